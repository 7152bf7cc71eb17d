/**
 * @module The middleware: a strong `ETag` on every response that carries a resource, and the
 * read preconditions (`If-Match` → 412, `If-None-Match` → 304) evaluated against it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { shareShape } from '@resourceful/application-hooks';
import { ApiError, sendError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  functionOption,
} from '@resourceful/option-checks';
import { hashTag, representationETag, valueTag } from './entity-tag.js';
import { evaluatePreconditions, evaluateUntaggedRead } from './preconditions.js';
import {
  hasRepresentationVariant,
  markConditionalRequests,
  representationVariantOf,
} from './representation-variant.js';
import {
  attach,
  type End,
  type HookedResponse,
  hookedResponse,
  nextEnd,
  nextJson,
  nextSend,
  type ResponseHooks,
  type Send,
} from './response-hooks.js';

export interface ConditionalRequestsOptions {
  /**
   * Generate weak tags (`W/"…"`) instead of strong ones. Weak tags still give 304s on reads but
   * never satisfy `If-Match`.
   * @default false
   */
  weak?: boolean;
  /**
   * Computes the tag of a response body from its bytes, for every answer. Without it, a value
   * sent with `res.json(value)` is tagged `etagFor(value)` (its canonical serialisation, the
   * tag writes compare `If-Match` with, whatever the app's `json spaces`), and other bodies by
   * their bytes. A route can also set `ETag` itself (for instance from a version), which is kept.
   * @default etagFor(value) for res.json, SHA-256 of the bytes otherwise
   */
  etag?: (body: Uint8Array | string) => string;
}

export const CONDITIONAL_REQUESTS_DEFAULTS = Object.freeze({ weak: false });

/** Methods whose 200/201 answers carry the resource and get an `ETag`. */
const TAGGED_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH']);
/** Statuses whose body is the resource's representation. */
const TAGGED_STATUSES: ReadonlySet<number> = new Set([200, 201]);

/**
 * Whether the middleware computes a tag from this answer's body. A POST's 201 carries the
 * created representation and its validators (RFC 9110 §15.3.2), but a POST's 200 is the result
 * of the action (§9.3.3), not a representation of any resource a client could GET (§6.4.2), so
 * a tag hashed from it would name nothing: it carries the tag its route set, if any. This is
 * also what makes a replay of a stored POST answer (`Service-Request-Id`) carry the headers the
 * first answer had: the rule depends on the method and status only, not on the handler.
 */
function derivesTag(method: string, status: number): boolean {
  if (!TAGGED_METHODS.has(method) || !TAGGED_STATUSES.has(status)) return false;
  return method !== 'POST' || status === 201;
}

/**
 * The name `getHeader` and `removeHeader` look `ETag` up by: Node lower-cases the name it is
 * given, which makes a new string of `'ETag'` on every call (and a key the header map's lookup
 * must internalise); a name already in lower case needs no new string. `setHeader` keeps the
 * `ETag` spelling, the one sent.
 */
const ETAG = 'etag';

/** RFC 9110 §15.4.5: a 304 carries no content and no content metadata. */
const CONTENT_HEADERS = [
  'Content-Type',
  'Content-Length',
  'Content-Encoding',
  'Content-Language',
  'Content-Range',
  'Transfer-Encoding',
] as const;

const FACTORY = 'conditionalRequests';

function validateOptions(options: ConditionalRequestsOptions): void {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, ['weak', 'etag']);
  booleanOption(FACTORY, 'weak', options.weak, CONDITIONAL_REQUESTS_DEFAULTS.weak);
  functionOption(FACTORY, 'etag', options.etag, 'a function (body) => string');
}

type Next = (err?: unknown) => void;
const NO_ARGUMENTS: readonly unknown[] = [];
type Chunk = string | Uint8Array;

interface ExpressApp {
  get?: (setting: string) => unknown;
}

/** Whether Express's res.json on this response writes exactly `JSON.stringify(value)`. */
function sendsCanonicalJson(res: ServerResponse): boolean {
  const app = (res as ServerResponse & { app?: ExpressApp }).app;
  if (typeof app?.get !== 'function') return false;
  return (
    app.get('json replacer') === undefined &&
    app.get('json spaces') === undefined &&
    !app.get('json escape')
  );
}

/** Whether the request carries a precondition `conditionalRequests()` evaluates on a read. */
function sendsPreconditions(req: IncomingMessage): boolean {
  const headers = req.headers;
  return headers['if-match'] !== undefined || headers['if-none-match'] !== undefined;
}

/**
 * The request's method in upper case. Node's parser gives the methods in upper case already, so
 * the usual ones are taken as they are, without a call that looks at every character.
 */
function methodOf(req: IncomingMessage): string {
  const method = req.method;
  if (method !== undefined && TAGGED_METHODS.has(method)) return method;
  return (method ?? 'GET').toUpperCase();
}

function isChunk(value: unknown): value is Chunk {
  return typeof value === 'string' || value instanceof Uint8Array;
}

type Express = ServerResponse & { json?: Send; send?: Send };

/**
 * Tags responses that carry a resource with a strong `ETag` and answers `If-None-Match` on
 * GET/HEAD with 304 (and a failed `If-Match` with 412). Mount it before the routes.
 * Writes evaluate their preconditions with `conditionalWrite`, before they change anything.
 */
export function conditionalRequests(options: ConditionalRequestsOptions = {}) {
  validateOptions(options);
  const weak = options.weak ?? CONDITIONAL_REQUESTS_DEFAULTS.weak;
  const computeTag = options.etag ?? ((body: Chunk) => hashTag(body, weak));
  const generatesTags = options.etag === undefined;
  const tagValue =
    options.etag === undefined ? (value: unknown) => valueTag(value, weak) : undefined;
  // The states of responses whose own methods this middleware replaced (see response-hooks.ts
  // for when): each middleware keeps its own, so that two of them on one response (an app's and
  // a router's) each find what the other left.
  const ownStates = new WeakMap<ServerResponse, HookedResponse>();

  /** Tags the body; answers 304/412/400 for reads. True when it answered. */
  function settle(res: ServerResponse, state: HookedResponse, body: Chunk | undefined): boolean {
    if (res.headersSent) return false;
    const status = res.statusCode;
    // RFC 9110 §8.8.3: a tag names a representation of the resource; an error body is not one
    // (Express tags every res.send body, errors included, whatever the method).
    if (status >= 400) res.removeHeader(ETAG);
    const { method } = state;
    const tagged = TAGGED_METHODS.has(method);
    if (!state.settled && tagged && status === 204) {
      // A write's answer without content still names the version a GET would now select
      // (json-patch-update sends the new ETag with its 204): in that GET's representation.
      nameVariant(res, undefined, true);
      return false;
    }
    if (state.settled || !tagged || !TAGGED_STATUSES.has(status)) return false;
    let etag = res.getHeader(ETAG);
    let generated = false;
    if (body !== undefined && etag === undefined && derivesTag(method, status)) {
      etag = computeTag(body);
      generated = generatesTags;
      res.setHeader('ETag', etag);
    }
    // A registered variant may rename the tag; otherwise it is the one read or set above.
    if (hasRepresentationVariant(res)) {
      nameVariant(res, body, false);
      etag = res.getHeader(ETAG);
    }
    const read = method === 'GET' || method === 'HEAD';
    if (!read || status !== 200) return false;
    if (typeof etag !== 'string') {
      // A representation without a tag (a HEAD handler that sends no body): it exists, so
      // `If-None-Match: *` still answers 304 and `If-Match: *` holds (RFC 9110 §13.1.1, §13.1.2).
      if (!sendsPreconditions(res.req)) return false;
      state.settled = true;
      return answerRead(res, state, undefined);
    }
    state.settled = true;
    // RFC 9110 §13.2.2: without If-Match or If-None-Match the request proceeds. A tag
    // generateETag made (and representationETag renamed) is well-formed, so evaluatePreconditions
    // would find nothing to refuse in it either; a tag the route or an `etag` option made is
    // still checked, and refused when malformed, as before.
    if (generated && !sendsPreconditions(res.req)) return false;
    return answerRead(res, state, etag);
  }

  /** Evaluates a read's preconditions against its tag; true when it answered (304, 412, 400). */
  function answerRead(res: ServerResponse, state: HookedResponse, etag: string | undefined) {
    let outcome: 'proceed' | 'not-modified';
    try {
      outcome =
        etag === undefined ? evaluateUntaggedRead(res.req) : evaluatePreconditions(res.req, etag);
    } catch (error) {
      if (!(error instanceof ApiError)) throw error;
      sendError(res, error);
      return true;
    }
    if (outcome === 'proceed') return false;
    res.statusCode = 304;
    for (const name of CONTENT_HEADERS) res.removeHeader(name);
    nextEnd(res, state, NO_ARGUMENTS);
    return true;
  }

  /** The tag names the representation sent: another format or coding, another tag. */
  function nameVariant(res: ServerResponse, body: Chunk | undefined, bodiless: boolean): void {
    // An identity-coded UTF-8 JSON answer registers no variant: nothing to measure or rename.
    if (!hasRepresentationVariant(res)) return;
    const etag = res.getHeader(ETAG);
    if (typeof etag !== 'string') return;
    const length =
      body === undefined
        ? undefined
        : typeof body === 'string'
          ? Buffer.byteLength(body)
          : body.length;
    const variant = representationVariantOf(res, length, bodiless);
    if (variant.length > 0) res.setHeader('ETag', representationETag(etag, variant));
  }

  const hooks: ResponseHooks = {
    // The value, not the bytes: the tag is the same whatever the app's json settings, and the
    // same one a write computes from the stored resource (etagFor).
    json(res, state, value) {
      // Express's own res.json (not one another middleware wrapped) sends JSON.stringify(value)
      // when the app's json settings are the defaults: the bytes are the canonical
      // serialisation, so the tag send() computes from them is etagFor(value), without
      // serialising twice.
      if (
        tagValue !== undefined &&
        derivesTag(state.method, res.statusCode) &&
        !(state.expressJson && sendsCanonicalJson(res)) &&
        res.getHeader(ETAG) === undefined &&
        value !== undefined
      ) {
        res.setHeader('ETag', tagValue(value));
      }
      return nextJson(res, state, value);
    },

    // Express's res.send computes its own weak ETag and freshness; tagging the body first makes
    // it keep ours (it only tags when no ETag is set), and HEAD bodies are seen here only.
    send(res, state, body) {
      if (isChunk(body) && settle(res, state, body)) return res;
      return nextSend(res, state, body);
    },

    end(res, state, args) {
      // Once settled (Express's send got here first) or already sent, the body is not looked
      // at: no copy of it to make.
      if (state.settled || res.headersSent) return nextEnd(res, state, args);
      const [chunk, encoding] = args as unknown as [unknown, unknown];
      let body: Chunk | undefined;
      if (isChunk(chunk) && chunk.length > 0) {
        body =
          typeof chunk === 'string' &&
          typeof encoding === 'string' &&
          encoding !== 'utf8' &&
          encoding !== 'utf-8' &&
          Buffer.isEncoding(encoding)
            ? Buffer.from(chunk, encoding)
            : chunk;
      } else if (state.method === 'GET') {
        // A GET answered without content selected a representation of zero bytes: it is tagged
        // as res.send('') is, so `If-None-Match: *` or its tag answers 304 (RFC 9110 §13.1.2).
        // Not a HEAD: a HEAD handler sends no body whatever the representation it describes.
        body = '';
      }
      if (settle(res, state, body)) return res;
      return nextEnd(res, state, args);
    },
  };

  // Used only where the shared methods would not reach the response (response-hooks.ts): made
  // once per middleware, reading the state of the response they are called on.
  function jsonWithETag(this: ServerResponse, value?: unknown): unknown {
    return hooks.json(this, ownStates.get(this)!, value);
  }

  function sendWithETag(this: ServerResponse, body?: unknown): unknown {
    return hooks.send(this, ownStates.get(this)!, body);
  }

  function endWithETag(this: ServerResponse): ServerResponse {
    // biome-ignore lint/complexity/noArguments: forwarding what the caller gave, without a copy
    return hooks.end(this, ownStates.get(this)!, arguments);
  }

  /** Replaces the response's own methods: the way for responses the shared ones do not reach. */
  function replaceOwnMethods(res: ServerResponse, method: string): void {
    const response = res as Express;
    const json = response.json;
    const send = response.send;
    const state = hookedResponse(
      hooks,
      method,
      undefined,
      res.end,
      typeof json === 'function' ? json : undefined,
      typeof send === 'function' ? send : undefined,
      json !== undefined && !Object.hasOwn(res, 'json'),
    );
    ownStates.set(res, state);
    if (tagValue !== undefined && state.json !== undefined) response.json = jsonWithETag;
    if (state.send !== undefined) response.send = sendWithETag;
    res.end = endWithETag as End;
  }

  return function conditionalRequestsMiddleware(
    req: IncomingMessage,
    res: ServerResponse,
    next: Next,
  ): void {
    // Express re-prototypes every response, which leaves it a hidden class of its own on V8
    // before 13: every access to it (this package's, Express's, Node's) would miss V8's caches.
    // The probe gives it the shape every such response shares (application-hooks), before the
    // accesses below and the ones of the answer.
    shareShape(res);
    const method = methodOf(req);
    if (attach(hooks, res, method) === undefined) {
      replaceOwnMethods(res, method);
      markConditionalRequests(res);
    }
    next();
  };
}
