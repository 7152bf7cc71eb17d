/**
 * @module What was negotiated for a request, and how handlers read it.
 */
import type { IncomingMessage } from 'node:http';
import type { Charset } from './charsets.js';
import type { Format } from './formats.js';

/** The representation chosen for a request's answer. */
export interface Negotiated {
  /** `json`, `xml` or `jsonp`. */
  readonly format: Format;
  /** The media type answered (`application/xml` or `text/xml` for XML). */
  readonly mediaType: string;
  readonly charset: Charset;
  /** The best of the service's languages (`languages` option), or `undefined` without it. */
  readonly language: string | undefined;
  /** The content coding the client accepts best (`gzip`, `br`, `deflate`), if any. */
  readonly encoding: string | undefined;
  /** The JSONP callback, for `jsonp`. */
  readonly callback: string | undefined;
}

/**
 * Each request's negotiated representation, and the requests whose language was read. Kept in
 * a `WeakMap` and a `WeakSet` rather than as properties of the request: Express gives every
 * request its prototype with `Object.setPrototypeOf`, after which V8 builds a new hidden class
 * for each property added to it (no transition is shared between requests), which cost more
 * than the rest of the middleware's work on a plain JSON answer. Both live on `globalThis`
 * under `Symbol.for` keys, so that every copy of this package loaded in the process reads what
 * another wrote, as it did through the `Symbol.for` properties they replace.
 */
const NEGOTIATED = Symbol.for('@resourceful/content-negotiation.negotiated');
const LANGUAGE_USED = Symbol.for('@resourceful/content-negotiation.language-used');
const shared = globalThis as {
  [NEGOTIATED]?: WeakMap<IncomingMessage, Negotiated>;
  [LANGUAGE_USED]?: WeakSet<IncomingMessage>;
};
shared[NEGOTIATED] ??= new WeakMap();
shared[LANGUAGE_USED] ??= new WeakSet();
const negotiatedOf: WeakMap<IncomingMessage, Negotiated> = shared[NEGOTIATED];
const languageRead: WeakSet<IncomingMessage> = shared[LANGUAGE_USED];

export function setNegotiated(req: IncomingMessage, negotiated: Negotiated): void {
  negotiatedOf.set(req, negotiated);
}

/** The representation chosen for this request; `undefined` when the middleware did not run. */
export function getNegotiated(req: IncomingMessage): Negotiated | undefined {
  return negotiatedOf.get(req);
}

/**
 * The language chosen for this request's answer. Reading it marks the answer as localised:
 * it then carries `Content-Language` and `Vary: Accept-Language`.
 */
export function getLanguage(req: IncomingMessage): string | undefined {
  const language = negotiatedOf.get(req)?.language;
  if (language !== undefined) languageRead.add(req);
  return language;
}

export function languageUsed(req: IncomingMessage): boolean {
  return languageRead.has(req);
}

declare global {
  // Express's request type is augmented through this namespace (as @types/express documents).
  namespace Express {
    interface Request {
      /**
       * The language chosen for the answer by `contentNegotiation({ languages })`; reading it
       * sets `Content-Language` and `Vary: Accept-Language` on the answer.
       */
      readonly language?: string;
    }
  }
}
