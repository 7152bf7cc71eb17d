/**
 * @module Headers sent as query parameters. The spec: "A header may also be sent as a query
 * parameter with the same name" (for clients that cannot set headers: links, `<img>`, some
 * proxies). One mechanism for every package: a query parameter naming an allowed header is
 * copied into that request header when the request has none (or, for the negotiation headers,
 * over it), and taken out of the URL so
 * that collection parsers do not refuse it as an unknown parameter.
 */

import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { shareShape } from '@resourceful/application-hooks';
import { ApiError } from '@resourceful/error-envelope';
import { keptValue } from './application-prototype.js';
import {
  checkOptions,
  isHeaderName,
  isHeaderValue,
  optionError,
  positiveInteger,
  refusedOption,
} from './options.js';

/** What the spec names as request headers that make sense in a URL. */
export const DEFAULT_QUERY_HEADERS: readonly string[] = [
  'Prefer',
  'If-Match',
  'If-None-Match',
  'If-Range',
  'Accept-Language',
  'Accept-Charset',
  'Service-Request-Id',
];

/** Credentials in a URL end up in access logs, proxy logs and browser history. */
export const CREDENTIAL_HEADERS: readonly string[] = [
  'Authorization',
  'Cookie',
  'Proxy-Authorization',
];

/**
 * Never taken from the query: message framing and connection control (RFC 9112 §6, RFC 9110
 * §7.6.1, whose hop-by-hop list includes the non-standard `Proxy-Connection`), what describes
 * the body's bytes, `Accept`, for which the spec defines a short form of its own (content
 * negotiation reads it), and what a proxy tells the service about the client (RFC 7239
 * `Forwarded` and its `X-Forwarded-*` forerunners: Express's `req.ip`, `req.hostname` and
 * `req.protocol` behind `trust proxy`, and the links built from them). A proxy sets or appends
 * these headers but passes the query on as sent, so from the query any client could say them.
 */
export const REFUSED_QUERY_HEADERS: readonly string[] = [
  'Accept',
  'Connection',
  'Content-Encoding',
  'Content-Length',
  'Content-Type',
  'Expect',
  'Forwarded',
  'Host',
  'Keep-Alive',
  'Proxy-Connection',
  'TE',
  'Trailer',
  'Transfer-Encoding',
  'Upgrade',
  'X-Forwarded-For',
  'X-Forwarded-Host',
  'X-Forwarded-Proto',
];

export const DEFAULT_QUERY_HEADER_MAX_LENGTH = 8192;

/**
 * The proactive-negotiation headers (RFC 9110 §12.5) other than `Accept`: for them the parameter
 * wins over the header, as content negotiation's `?accept=` does. The parameter is the client's
 * explicit choice in the URL; the header is usually its user agent's default (every browser
 * sends `Accept-Language`, so `?Accept-Language=fr` would otherwise never apply). For every
 * other header (preconditions, `Prefer`, `Service-Request-Id`) the header wins: a link cannot
 * override what the client itself sent.
 */
const PARAMETER_WINS = new Set(['accept-charset', 'accept-encoding', 'accept-language']);

/** Where the copies are recorded on the request (a registered symbol: any copy agrees). */
export const QUERY_HEADERS_KEY: unique symbol = Symbol.for('@resourceful/query-headers');

/** One header found in the query. */
export interface QueryHeader {
  /** The header name, lower-case. */
  readonly header: string;
  /** The parameter as the client spelled it (the first one, when repeated). */
  readonly parameter: string;
  /** Every value, in order. */
  readonly values: readonly string[];
  /**
   * True when the values were copied into the header: when the request had none, and always for
   * `Accept-Charset`, `Accept-Encoding` and `Accept-Language`, where the parameter wins.
   */
  readonly copied: boolean;
}

/** A header name, or a header read from a parameter of another name. */
export type QueryHeaderName = string | { readonly header: string; readonly parameter: string };

/** The parts of a request this module reads and rewrites (Express's or plain `node:http`). */
export interface QueryHeaderRequest {
  headers: IncomingHttpHeaders;
  url?: string | undefined;
  originalUrl?: string | undefined;
}

interface WithRecords {
  [QUERY_HEADERS_KEY]?: Map<string, QueryHeader>;
}

export interface TakeQueryHeadersOptions {
  /** Longest value accepted. @default 8192 */
  maxLength?: number;
}

function decode(text: string): string {
  return decodeStrictly(text) ?? text.replace(/\+/g, ' ');
}

/** `text` decoded as a query component, or `undefined` when it is not percent-encoded UTF-8. */
function decodeStrictly(text: string): string | undefined {
  // Most names and many values hold neither: nothing to decode.
  if (text.indexOf('%') === -1 && text.indexOf('+') === -1) return text;
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // A name is kept as sent, as Express's query parsers do (it then names no header).
    return undefined;
  }
}

/** The decoded, lower-cased name of one `name=value` piece of a query. */
function parameterName(piece: string): string {
  const equals = piece.indexOf('=');
  return decode(equals === -1 ? piece : piece.slice(0, equals)).toLowerCase();
}

/** Where the query of `url` starts and ends (a fragment, which a client should not send, RFC 9112 §3.2, is kept as sent). */
function queryBounds(url: string): { start: number; end: number } | undefined {
  const mark = url.indexOf('?');
  if (mark === -1) return undefined;
  const hash = url.indexOf('#', mark);
  return { start: mark + 1, end: hash === -1 ? url.length : hash };
}

/** `url` with its query replaced by `query` (`''`: no query at all). */
function withQuery(url: string, bounds: { start: number; end: number }, query: string): string {
  const path = url.slice(0, bounds.start - 1);
  const fragment = url.slice(bounds.end);
  return (query === '' ? path : `${path}?${query}`) + fragment;
}

/** `url` without the parameters whose decoded, lower-cased name is in `names`. */
function withoutParameters(url: string, names: readonly string[]): string {
  const bounds = queryBounds(url);
  if (bounds === undefined) return url;
  // The other parameters keep their exact spelling: only whole pieces are dropped.
  const kept = url
    .slice(bounds.start, bounds.end)
    .split('&')
    .filter((piece) => !names.includes(parameterName(piece)));
  return withQuery(url, bounds, kept.join('&'));
}

/**
 * Where `=` is in `url[start, end)`, or -1. Searched within the piece only: `indexOf` from
 * `start` runs on to the end of the URL for a piece without one, so a query of many such pieces
 * (`?a&a&a…`) cost their number times its length.
 */
function equalsIn(url: string, start: number, end: number): number {
  for (let index = start; index < end; index++) {
    if (url.charCodeAt(index) === 0x3d) return index;
  }
  return -1;
}

/**
 * The parameters looked for (lower-case parameter name → lower-case header name), and a test
 * of one query piece against them that reads the URL in place: a query holding none of them
 * (most) is scanned, nothing more.
 */
class WantedParameters {
  readonly #parameters: readonly string[];
  readonly #byParameter: ReadonlyMap<string, string>;

  constructor(byParameter: ReadonlyMap<string, string>) {
    this.#byParameter = byParameter;
    this.#parameters = [...byParameter.keys()];
  }

  get size(): number {
    return this.#parameters.length;
  }

  /** The header of `parameter` (decoded, lower-cased), or `undefined`. */
  header(parameter: string): string | undefined {
    return this.#byParameter.get(parameter);
  }

  /**
   * The wanted parameter the piece `url[start, end)` names (its name decoded and lower-cased),
   * or `undefined`. Names of plain ASCII, the usual ones, are compared in place.
   */
  parameterIn(url: string, start: number, end: number): string | undefined {
    const equals = equalsIn(url, start, end);
    const nameEnd = equals === -1 ? end : equals;
    for (let index = start; index < nameEnd; index++) {
      const code = url.charCodeAt(index);
      // An escape, a '+' or a character outside ASCII: decoded and lower-cased as written.
      if (code === 0x25 || code === 0x2b || code > 0x7f) {
        const name = decode(url.slice(start, nameEnd)).toLowerCase();
        return this.#byParameter.has(name) ? name : undefined;
      }
    }
    const length = nameEnd - start;
    next: for (const parameter of this.#parameters) {
      if (parameter.length !== length) continue;
      for (let offset = 0; offset < length; offset++) {
        let code = url.charCodeAt(start + offset);
        // ASCII A-Z, the only characters here that toLowerCase() changes.
        if (code >= 0x41 && code <= 0x5a) code |= 0x20;
        if (code !== parameter.charCodeAt(offset)) continue next;
      }
      return parameter;
    }
    return undefined;
  }
}

/** `req[QUERY_HEADERS_KEY]`, without a new hidden class per request under Express. */
const storeRecords = keptValue<Map<string, QueryHeader>>('request', QUERY_HEADERS_KEY, {
  enumerable: false,
  writable: false,
});

function recordsOf(req: QueryHeaderRequest): Map<string, QueryHeader> {
  const holder = req as QueryHeaderRequest & WithRecords;
  let records = holder[QUERY_HEADERS_KEY];
  if (records === undefined) {
    records = new Map();
    storeRecords(holder, records);
  }
  return records;
}

/** The headers found in the query of this request so far, by lower-case header name. */
export function queryHeadersOf(req: QueryHeaderRequest): ReadonlyMap<string, QueryHeader> {
  return recordsOf(req);
}

/**
 * Copies the parameters of `wanted` into the absent headers, records them, and removes them
 * from the URLs and Express 4's `req.query`. Nothing is changed (not even a record made) when
 * the query has none of them, or when a value is refused.
 */
function take(req: QueryHeaderRequest, wanted: WantedParameters, maxLength: number): void {
  const url = req.url ?? '';
  if (wanted.size === 0) return;
  const mark = url.indexOf('?');
  if (mark === -1) return;
  const hash = url.indexOf('#', mark);
  const end = hash === -1 ? url.length : hash;
  const start = mark + 1;
  if (start === end) return;
  // Until a wanted parameter turns up, nothing is allocated: the pieces before it are kept as
  // one slice of the URL.
  let found: QueryHeader[] | undefined;
  let taken: string[] | undefined;
  let kept = '';
  let keptPieces = 0;
  for (let pieceStart = start; pieceStart <= end; ) {
    const amp = url.indexOf('&', pieceStart);
    const pieceEnd = amp === -1 || amp > end ? end : amp;
    const lower = wanted.parameterIn(url, pieceStart, pieceEnd);
    if (lower === undefined) {
      if (found !== undefined) {
        const piece = url.slice(pieceStart, pieceEnd);
        kept = keptPieces === 0 ? piece : `${kept}&${piece}`;
      }
      keptPieces++;
      pieceStart = pieceEnd + 1;
      continue;
    }
    if (found === undefined) {
      found = [];
      taken = [];
      if (pieceStart > start) kept = url.slice(start, pieceStart - 1);
    }
    const equals = equalsIn(url, pieceStart, pieceEnd);
    const parameter = decode(url.slice(pieceStart, equals === -1 ? pieceEnd : equals));
    const value = equals === -1 ? '' : decodeStrictly(url.slice(equals + 1, pieceEnd));
    pieceStart = pieceEnd + 1;
    // A value that is not percent-encoded UTF-8 (`%FF`, `%zz`) has no header value to stand
    // for: copied as sent, `If-Match=%FF` would compare "%FF" as a tag.
    if (value === undefined) {
      throw ApiError.invalidRequest(
        `The query parameter ${JSON.stringify(parameter.slice(0, 64))} stands for a header and its value must be percent-encoded UTF-8 (RFC 3986 §2.1).`,
        { target: parameter.slice(0, 64), innererror: { code: 'INVALID_QUERY_HEADER' } },
      );
    }
    if (value.length > maxLength || !isHeaderValue(value)) {
      throw ApiError.invalidRequest(
        `The query parameter ${JSON.stringify(parameter.slice(0, 64))} stands for a header and must be a valid header value (no control characters, none beyond Latin-1) of at most ${maxLength} characters.`,
        { target: parameter.slice(0, 64), innererror: { code: 'INVALID_QUERY_HEADER' } },
      );
    }
    if (!taken!.includes(lower)) taken!.push(lower);
    const header = wanted.header(lower)!;
    const entry = found.find((candidate) => candidate.header === header);
    // The headers are not changed before every value has been checked: `copied` holds.
    if (entry === undefined) {
      const copied = req.headers[header] === undefined || PARAMETER_WINS.has(header);
      found.push({ header, parameter, values: [value], copied });
    } else {
      (entry.values as string[]).push(value);
    }
  }
  if (found === undefined || taken === undefined) return;

  const records = recordsOf(req);
  for (const record of found) {
    // RFC 9110 §5.3: repeated field lines are equivalent to one line joined with ", ".
    if (record.copied) req.headers[record.header] = record.values.join(', ');
    records.set(record.header, record);
  }
  const rewritten =
    (kept === '' ? url.slice(0, mark) : url.slice(0, start) + kept) + url.slice(end);
  if (req.url !== undefined) req.url = rewritten;
  const original = req.originalUrl;
  if (typeof original === 'string') {
    // Usually the same URL as `req.url` was (a mount path only changes the path).
    if (original === url) {
      req.originalUrl = rewritten;
    } else {
      const originalBounds = queryBounds(original);
      req.originalUrl =
        originalBounds !== undefined &&
        original.slice(originalBounds.start, originalBounds.end) === url.slice(start, end)
          ? withQuery(original, originalBounds, kept)
          : withoutParameters(original, taken);
    }
  }
  removeFromParsedQuery(req, taken);
}

/** Lower-case parameter name → lower-case header name, for the headers not yet recorded. */
function wantedOf(
  names: readonly QueryHeaderName[],
  records: ReadonlyMap<string, QueryHeader> | undefined,
): WantedParameters {
  const wanted = new Map<string, string>();
  for (const name of names) {
    const header = (typeof name === 'string' ? name : name.header).toLowerCase();
    const parameter = (typeof name === 'string' ? name : name.parameter).toLowerCase();
    if (records === undefined || !records.has(header)) wanted.set(parameter, header);
  }
  return new WantedParameters(wanted);
}

/**
 * Copies the query parameters naming `names` into the request headers that are absent, and
 * removes them from `req.url`, `req.originalUrl` and Express 4's parsed `req.query`. Runs once
 * per header and request: a later call for the same header returns the first call's record.
 *
 * @throws ApiError 400 `INVALID_REQUEST` naming the parameter when a value is longer than
 * `maxLength` or holds a control character (nothing is changed then).
 * @returns the records of `names` found in the query, now or by an earlier call.
 */
export function takeQueryHeaders(
  req: QueryHeaderRequest,
  names: readonly QueryHeaderName[],
  options: TakeQueryHeadersOptions = {},
): QueryHeader[] {
  // Checked on each call, as packages call it per request: one comparison when the default is
  // used. A bound that is no number (`'8192'`) would compare false and bound nothing.
  const maxLength = positiveInteger(
    'takeQueryHeaders',
    'maxLength',
    options.maxLength,
    DEFAULT_QUERY_HEADER_MAX_LENGTH,
  );
  take(
    req,
    wantedOf(names, (req as QueryHeaderRequest & WithRecords)[QUERY_HEADERS_KEY]),
    maxLength,
  );
  const records = (req as QueryHeaderRequest & WithRecords)[QUERY_HEADERS_KEY];
  const result: QueryHeader[] = [];
  if (records === undefined) return result;
  for (const name of names) {
    const record = records.get((typeof name === 'string' ? name : name.header).toLowerCase());
    if (record !== undefined && !result.includes(record)) result.push(record);
  }
  return result;
}

/**
 * Express 4 parses `req.query` once, before any middleware; Express 5 re-parses `req.url` on
 * each read (a getter), which the rewrite above already covers.
 */
function removeFromParsedQuery(req: QueryHeaderRequest, names: readonly string[]): void {
  if (!Object.hasOwn(req, 'query')) return;
  const query = (req as { query?: unknown }).query;
  if (query === null || typeof query !== 'object') return;
  for (const key of Object.keys(query)) {
    if (names.includes(key.toLowerCase())) delete (query as Record<string, unknown>)[key];
  }
}

export interface QueryHeadersOptions {
  /** Headers that may be sent as query parameters. @default DEFAULT_QUERY_HEADERS */
  headers?: readonly string[];
  /**
   * Also allow `Authorization`, `Cookie` and `Proxy-Authorization` (when listed in `headers`).
   * They end up in logs and browser history. @default false
   */
  allowCredentials?: boolean;
  /** Longest value accepted; longer is a 400. @default 8192 */
  maxLength?: number;
}

type Next = (err?: unknown) => void;

/** What `queryHeaders()` does to one request: the 400 error it refuses it with, or `undefined`. */
export type TakeRequestQueryHeaders = (req: IncomingMessage) => unknown;

/** Checks the options and makes the per-request work (shared with `httpConventions`). */
export function queryHeadersStep(options: QueryHeadersOptions = {}): TakeRequestQueryHeaders {
  const factory = 'queryHeaders';
  const checked = checkOptions<QueryHeadersOptions>(factory, options, [
    'headers',
    'allowCredentials',
    'maxLength',
  ]);
  const allowCredentials =
    checked.allowCredentials === undefined ? false : checked.allowCredentials;
  if (typeof allowCredentials !== 'boolean') {
    throw optionError(factory, 'allowCredentials', 'true or false', allowCredentials);
  }
  const headers = checked.headers === undefined ? DEFAULT_QUERY_HEADERS : checked.headers;
  if (!Array.isArray(headers) || !headers.every(isHeaderName)) {
    throw optionError(factory, 'headers', 'an array of header names', headers);
  }
  const lower = (list: readonly string[]) => list.map((name) => name.toLowerCase());
  for (const name of headers) {
    if (lower(REFUSED_QUERY_HEADERS).includes(name.toLowerCase())) {
      throw refusedOption(factory, 'headers', `${name} cannot be taken from the query.`);
    }
    if (!allowCredentials && lower(CREDENTIAL_HEADERS).includes(name.toLowerCase())) {
      throw refusedOption(
        factory,
        'headers',
        `${name} carries credentials, which a URL leaks into logs; set allowCredentials: true to take it from the query anyway.`,
      );
    }
  }
  const maxLength = positiveInteger(
    factory,
    'maxLength',
    checked.maxLength,
    DEFAULT_QUERY_HEADER_MAX_LENGTH,
  );
  const names = Object.freeze([...headers]);
  const wanted = wantedOf(names, undefined);

  return function takeRequestQueryHeaders(req: IncomingMessage): unknown {
    // A request without a query (most of them) has nothing to take.
    if (req.url === undefined || req.url.indexOf('?') === -1) return undefined;
    const records = (req as IncomingMessage & WithRecords)[QUERY_HEADERS_KEY];
    try {
      take(req, records === undefined ? wanted : wantedOf(names, records), maxLength);
    } catch (error) {
      return error;
    }
    return undefined;
  };
}

/**
 * Copies allowed query parameters into absent request headers of the same name
 * (case-insensitive), and removes them from the query the rest of the app sees.
 */
export function queryHeaders(options: QueryHeadersOptions = {}) {
  const takeHeaders = queryHeadersStep(options);
  return function queryHeadersMiddleware(req: IncomingMessage, res: ServerResponse, next: Next) {
    shareShape(req);
    shareShape(res);
    next(takeHeaders(req));
  };
}
