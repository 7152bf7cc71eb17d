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

const NEGOTIATED = Symbol.for('@resourceful/content-negotiation.negotiated');
const LANGUAGE_USED = Symbol.for('@resourceful/content-negotiation.language-used');

type Carrier = IncomingMessage & { [NEGOTIATED]?: Negotiated; [LANGUAGE_USED]?: boolean };

export function setNegotiated(req: IncomingMessage, negotiated: Negotiated): void {
  (req as Carrier)[NEGOTIATED] = negotiated;
}

/** The representation chosen for this request; `undefined` when the middleware did not run. */
export function getNegotiated(req: IncomingMessage): Negotiated | undefined {
  return (req as Carrier)[NEGOTIATED];
}

/**
 * The language chosen for this request's answer. Reading it marks the answer as localised:
 * it then carries `Content-Language` and `Vary: Accept-Language`.
 */
export function getLanguage(req: IncomingMessage): string | undefined {
  const carrier = req as Carrier;
  const language = carrier[NEGOTIATED]?.language;
  if (language !== undefined) carrier[LANGUAGE_USED] = true;
  return language;
}

export function languageUsed(req: IncomingMessage): boolean {
  return (req as Carrier)[LANGUAGE_USED] === true;
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
