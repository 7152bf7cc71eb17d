/**
 * @module A request id on every answer, so a client can quote it to support and the service
 * can find the request in its logs (PayPal's error `debug_id` plays the same part). The header
 * is `X-Request-Id`, the convention of the Heroku router, Rails' `ActionDispatch::RequestId`
 * and nginx's `$request_id`: the id a proxy or client already sent is kept when it is
 * well-formed, so one id follows the request through every hop.
 */

import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { shareShape } from '@resourceful/application-hooks';
import { keptValue } from './application-prototype.js';
import { checkOptions, isHeaderName, optionError, positiveInteger } from './options.js';

/**
 * Where the id is kept on the request: a registered symbol, so other packages (the error
 * handler puts the id into every envelope) read it without importing this one, and ESM and
 * CommonJS copies agree.
 */
export const REQUEST_ID_KEY: unique symbol = Symbol.for('@resourceful/request-id');

export const DEFAULT_REQUEST_ID_HEADER = 'X-Request-Id';
export const DEFAULT_REQUEST_ID_MAX_LENGTH = 200;

/** Letters, digits and `-._~:@+=/`: a UUID, a ULID, a trace id, a base64 token all fit. */
const ID_CHARACTERS = /^[A-Za-z0-9._~:@+=/-]+$/;

export interface RequestIdOptions {
  /** The response header, and the request header read first. @default 'X-Request-Id' */
  header?: string;
  /** Further request headers an id is taken from, in order (e.g. `'Request-Id'`). @default [] */
  acceptFrom?: readonly string[];
  /** Longest id taken from a request; longer ones are replaced. @default 200 */
  maxLength?: number;
  /** Makes a new id. @default crypto.randomUUID */
  generate?: () => string;
}

type Next = (err?: unknown) => void;

/** `req[REQUEST_ID_KEY] = id`, without a new hidden class per request under Express. */
const storeRequestId = keptValue<string>('request', REQUEST_ID_KEY, {
  enumerable: true,
  writable: true,
});

interface WithRequestId {
  [REQUEST_ID_KEY]?: string;
}

/** The request's id, set by `requestId()`; `undefined` when that middleware did not run. */
export function getRequestId(req: IncomingMessage): string | undefined {
  const id = (req as IncomingMessage & WithRequestId)[REQUEST_ID_KEY];
  return typeof id === 'string' ? id : undefined;
}

/** True for an id this package would take from a request. */
export function isWellFormedRequestId(
  value: unknown,
  maxLength = DEFAULT_REQUEST_ID_MAX_LENGTH,
): value is string {
  return (
    typeof value === 'string' &&
    value.length > 0 &&
    value.length <= maxLength &&
    ID_CHARACTERS.test(value)
  );
}

/** What `requestId()` does to one request: the id on the request and on the response. */
export type AssignRequestId = (req: IncomingMessage, res: ServerResponse) => void;

/** Checks the options and makes the per-request work (shared with `httpConventions`). */
export function requestIdStep(options: RequestIdOptions = {}): AssignRequestId {
  const factory = 'requestId';
  const checked = checkOptions<RequestIdOptions>(factory, options, [
    'header',
    'acceptFrom',
    'maxLength',
    'generate',
  ]);
  const header = checked.header === undefined ? DEFAULT_REQUEST_ID_HEADER : checked.header;
  if (!isHeaderName(header)) throw optionError(factory, 'header', 'a header name', header);
  const acceptFrom = checked.acceptFrom === undefined ? [] : checked.acceptFrom;
  if (!Array.isArray(acceptFrom) || !acceptFrom.every(isHeaderName)) {
    throw optionError(factory, 'acceptFrom', 'an array of header names', acceptFrom);
  }
  const maxLength = positiveInteger(
    factory,
    'maxLength',
    checked.maxLength,
    DEFAULT_REQUEST_ID_MAX_LENGTH,
  );
  const generate = checked.generate === undefined ? randomUUID : checked.generate;
  if (typeof generate !== 'function') {
    throw optionError(factory, 'generate', 'a function returning a string', generate);
  }
  const readFrom = [header, ...acceptFrom].map((name) => name.toLowerCase());

  function incomingId(req: IncomingMessage): string | undefined {
    for (const name of readFrom) {
      // A repeated header arrives joined with ", ", which no well-formed id contains.
      const value = req.headers[name];
      if (isWellFormedRequestId(value, maxLength)) return value;
    }
    return undefined;
  }

  return function assignRequestId(req: IncomingMessage, res: ServerResponse) {
    let id = incomingId(req);
    if (id === undefined) {
      id = generate();
      // A generator that returns something unusable must not break the response (a UUID is
      // always well-formed).
      if (generate !== randomUUID && !isWellFormedRequestId(id, Number.POSITIVE_INFINITY)) {
        id = randomUUID();
      }
    }
    storeRequestId(req, id);
    res.setHeader(header, id);
  };
}

/**
 * Gives every request an id, on the request (`getRequestId(req)`) and on the response
 * (`X-Request-Id`). Mount it first, so every answer (errors and 404s included) carries it.
 */
export function requestId(options: RequestIdOptions = {}) {
  const assign = requestIdStep(options);
  return function requestIdMiddleware(req: IncomingMessage, res: ServerResponse, next: Next) {
    shareShape(req);
    shareShape(res);
    assign(req, res);
    next();
  };
}
