/**
 * @module Headers sent as query parameters. The spec: "A header may also be sent as a query
 * parameter with the same name" (for clients that cannot set headers: links, `<img>`, some
 * proxies). One mechanism for every package: a query parameter naming an allowed header is
 * copied into that request header when the request has none, and taken out of the URL so
 * that collection parsers do not refuse it as an unknown parameter.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
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
 * §7.6.1), what describes the body's bytes, and `Accept`, for which the spec defines a short
 * form of its own (content negotiation reads it).
 */
export const REFUSED_QUERY_HEADERS: readonly string[] = [
  'Accept',
  'Connection',
  'Content-Encoding',
  'Content-Length',
  'Content-Type',
  'Expect',
  'Host',
  'Keep-Alive',
  'TE',
  'Trailer',
  'Transfer-Encoding',
  'Upgrade',
];

export const DEFAULT_QUERY_HEADER_MAX_LENGTH = 8192;

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
  /** True when the request had no such header and the values were copied into it. */
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
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    // As Express's query parsers do: a malformed escape is kept as sent.
    return spaced;
  }
}

/** Path, query and fragment (a client should not send one, RFC 9112 §3.2; kept as sent). */
function splitQuery(url: string): { path: string; query: string | undefined; fragment: string } {
  const start = url.indexOf('?');
  if (start === -1) return { path: url, query: undefined, fragment: '' };
  const hash = url.indexOf('#', start);
  return {
    path: url.slice(0, start),
    query: url.slice(start + 1, hash === -1 ? undefined : hash),
    fragment: hash === -1 ? '' : url.slice(hash),
  };
}

/** `url` without the parameters whose decoded, lower-cased name is in `names`. */
function withoutParameters(url: string, names: ReadonlySet<string>): string {
  const { path, query, fragment } = splitQuery(url);
  if (query === undefined) return url;
  // The other parameters keep their exact spelling: only whole pieces are dropped.
  const kept = query.split('&').filter((piece) => {
    const equals = piece.indexOf('=');
    const name = decode(equals === -1 ? piece : piece.slice(0, equals)).toLowerCase();
    return !names.has(name);
  });
  return (kept.length === 0 ? path : `${path}?${kept.join('&')}`) + fragment;
}

function recordsOf(req: QueryHeaderRequest): Map<string, QueryHeader> {
  const holder = req as QueryHeaderRequest & WithRecords;
  let records = holder[QUERY_HEADERS_KEY];
  if (records === undefined) {
    records = new Map();
    Object.defineProperty(holder, QUERY_HEADERS_KEY, { value: records, configurable: true });
  }
  return records;
}

/** The headers found in the query of this request so far, by lower-case header name. */
export function queryHeadersOf(req: QueryHeaderRequest): ReadonlyMap<string, QueryHeader> {
  return recordsOf(req);
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
  const maxLength = options.maxLength ?? DEFAULT_QUERY_HEADER_MAX_LENGTH;
  const records = recordsOf(req);
  const wanted = new Map<string, string>();
  for (const name of names) {
    const header = (typeof name === 'string' ? name : name.header).toLowerCase();
    const parameter = (typeof name === 'string' ? name : name.parameter).toLowerCase();
    if (!records.has(header)) wanted.set(parameter, header);
  }

  const found = new Map<string, { parameter: string; values: string[] }>();
  const query = wanted.size === 0 ? undefined : splitQuery(req.url ?? '').query;
  if (query !== undefined && query !== '') {
    for (const piece of query.split('&')) {
      const equals = piece.indexOf('=');
      const parameter = decode(equals === -1 ? piece : piece.slice(0, equals));
      const header = wanted.get(parameter.toLowerCase());
      if (header === undefined) continue;
      const value = equals === -1 ? '' : decode(piece.slice(equals + 1));
      if (value.length > maxLength || !isHeaderValue(value)) {
        throw ApiError.invalidRequest(
          `The query parameter ${JSON.stringify(parameter.slice(0, 64))} stands for a header and must be a valid header value of at most ${maxLength} characters.`,
          { target: parameter.slice(0, 64), innererror: { code: 'INVALID_QUERY_HEADER' } },
        );
      }
      const entry = found.get(header);
      if (entry === undefined) found.set(header, { parameter, values: [value] });
      else entry.values.push(value);
    }
  }

  if (found.size > 0) {
    for (const [header, { parameter, values }] of found) {
      const copied = req.headers[header] === undefined;
      // RFC 9110 §5.3: repeated field lines are equivalent to one line joined with ", ".
      if (copied) req.headers[header] = values.join(', ');
      records.set(header, { header, parameter, values, copied });
    }
    const taken = new Set([...wanted].filter(([, header]) => found.has(header)).map(([p]) => p));
    if (req.url !== undefined) req.url = withoutParameters(req.url, taken);
    if (typeof req.originalUrl === 'string') {
      req.originalUrl = withoutParameters(req.originalUrl, taken);
    }
    removeFromParsedQuery(req, taken);
  }

  const result: QueryHeader[] = [];
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
function removeFromParsedQuery(req: QueryHeaderRequest, names: ReadonlySet<string>): void {
  if (!Object.hasOwn(req, 'query')) return;
  const query = (req as { query?: unknown }).query;
  if (query === null || typeof query !== 'object') return;
  for (const key of Object.keys(query)) {
    if (names.has(key.toLowerCase())) delete (query as Record<string, unknown>)[key];
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

/**
 * Copies allowed query parameters into absent request headers of the same name
 * (case-insensitive), and removes them from the query the rest of the app sees.
 */
export function queryHeaders(options: QueryHeadersOptions = {}) {
  const factory = 'queryHeaders';
  const checked = checkOptions<QueryHeadersOptions>(factory, options, [
    'headers',
    'allowCredentials',
    'maxLength',
  ]);
  const allowCredentials = checked.allowCredentials ?? false;
  if (typeof allowCredentials !== 'boolean') {
    throw optionError(factory, 'allowCredentials', 'true or false', allowCredentials);
  }
  const headers = checked.headers ?? DEFAULT_QUERY_HEADERS;
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

  return function queryHeadersMiddleware(req: IncomingMessage, _res: ServerResponse, next: Next) {
    try {
      takeQueryHeaders(req, names, { maxLength });
    } catch (error) {
      next(error);
      return;
    }
    next();
  };
}
