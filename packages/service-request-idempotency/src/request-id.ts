/**
 * @module Reading and validating the request id from the headers (and, as the spec allows for
 * any header, from a query parameter of the same name).
 */
import type { IncomingHttpHeaders } from 'node:http';
import {
  QUERY_HEADERS_KEY,
  type QueryHeader,
  takeQueryHeaders,
} from '@resourceful/http-conventions';
import { DEFAULT_MAX_ID_LENGTH, ID_PATTERN } from './constants.js';

export interface ReadRequestIdOptions {
  /** Header names to read, first the main one; matched case-insensitively. */
  readonly names: readonly string[];
  /** Also read query parameters of the same names. */
  readonly query: boolean;
  readonly maxLength: number;
}

/** The outcome of reading the id: absent, found, or a 400 naming where it came from. */
export type RequestIdResult =
  | { readonly kind: 'absent' }
  | { readonly kind: 'found'; readonly id: string; readonly source: string }
  | {
      readonly kind: 'invalid' | 'ambiguous';
      readonly source: string;
    };

/**
 * Validates one id value. The draft sends it as a Structured Field string (`"8e03…"`); a bare
 * value is accepted too. @returns the id, or undefined when it is empty, too long or has a
 * character outside letters, digits and `-._~:+=/@`.
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/ §2.1
 */
export function parseRequestId(
  value: string,
  maxLength: number = DEFAULT_MAX_ID_LENGTH,
): string | undefined {
  let id = value.trim();
  if (id.length >= 2 && id.startsWith('"') && id.endsWith('"')) id = id.slice(1, -1);
  if (id.length === 0 || id.length > maxLength || !ID_PATTERN.test(id)) return undefined;
  return id;
}

interface RequestLike {
  headers: IncomingHttpHeaders;
  url?: string | undefined;
  originalUrl?: string | undefined;
}

/**
 * The id's query parameters, through the one mechanism every package shares: copied into the
 * header when it is absent, taken out of the URL. `undefined` when a value cannot be a header
 * at all (a control character): that id is invalid.
 */
function queryRecords(
  req: RequestLike,
  names: readonly string[],
): ReadonlyMap<string, QueryHeader> | undefined {
  // No query and no copy recorded by an earlier call: nothing `takeQueryHeaders` could find.
  if (
    (req as { [QUERY_HEADERS_KEY]?: unknown })[QUERY_HEADERS_KEY] === undefined &&
    (req.url ?? '').indexOf('?') === -1
  ) {
    return NO_RECORDS;
  }
  try {
    const records = takeQueryHeaders(req, names);
    return new Map(records.map((record) => [record.header, record]));
  } catch {
    return undefined;
  }
}

const NO_RECORDS: ReadonlyMap<string, QueryHeader> = new Map();

/** Reads the id from every configured header and query parameter; they must agree. */
export function readRequestId(req: RequestLike, options: ReadRequestIdOptions): RequestIdResult {
  return readWith(req, options, lowerCased(options.names));
}

/**
 * `readRequestId` for one set of options, the names lower-cased once: per request, lower-casing
 * each name made a new string, which `req.headers[name]` then looked up in V8's string table.
 */
export function requestIdReader(
  options: ReadRequestIdOptions,
): (req: RequestLike) => RequestIdResult {
  const lower = lowerCased(options.names);
  return (req) => readWith(req, options, lower);
}

function lowerCased(names: readonly string[]): string[] {
  return names.map((name) => name.toLowerCase());
}

function readWith(
  req: RequestLike,
  options: ReadRequestIdOptions,
  lowerNames: readonly string[],
): RequestIdResult {
  const values: [source: string, value: string][] = [];
  const fromQuery = options.query ? queryRecords(req, options.names) : NO_RECORDS;
  if (fromQuery === undefined) return { kind: 'invalid', source: options.names[0] ?? 'query' };
  for (let index = 0; index < options.names.length; index++) {
    const name = options.names[index]!;
    const lower = lowerNames[index]!;
    const record = fromQuery.size === 0 ? undefined : fromQuery.get(lower);
    const raw = req.headers[lower];
    if (record?.copied !== true && raw !== undefined) {
      // Node joins repeated headers with ", ", which no valid id contains; an array is only
      // possible for a few well-known names, but is handled the same way.
      if (Array.isArray(raw)) return { kind: 'ambiguous', source: name };
      values.push([name, String(raw)]);
    }
    // Each query value on its own, so a header and a parameter that disagree are caught.
    if (record !== undefined) for (const value of record.values) values.push([name, value]);
  }
  if (values.length === 0) return { kind: 'absent' };

  let found: { id: string; source: string } | undefined;
  for (const [source, value] of values) {
    const id = parseRequestId(value, options.maxLength);
    if (id === undefined) return { kind: 'invalid', source };
    if (found !== undefined && found.id !== id) return { kind: 'ambiguous', source };
    found ??= { id, source };
  }
  return { kind: 'found', id: found!.id, source: found!.source };
}
