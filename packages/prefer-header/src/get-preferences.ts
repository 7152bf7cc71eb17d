/**
 * @module Reading a request's preferences: the `Prefer` header, or the `Prefer` query parameter
 * when no header was sent (the spec lets any header travel as a same-named query parameter;
 * `@resourceful/http-conventions` does the copying, for every package alike).
 */
import type { IncomingMessage } from 'node:http';
import { takeQueryHeaders } from '@resourceful/http-conventions';
import { assertKnownOptions, assertOptionsObject, invalidOption } from '@resourceful/option-checks';
import {
  maxLengthOption,
  type ParsePreferOptions,
  type Preferences,
  parsePreferWithin,
} from './parse-prefer.js';

export interface GetPreferencesOptions extends ParsePreferOptions {
  /**
   * Query parameter read when the request has no `Prefer` header, matched case-insensitively;
   * `false` reads the header only.
   * @default 'Prefer'
   */
  queryParameter?: string | false;
}

/** The query parameter that stands in for the header. */
export const PREFER_QUERY_PARAMETER = 'Prefer';

/** `GetPreferencesOptions` checked, with the defaults filled in. */
export interface ResolvedPreferencesOptions {
  readonly maxLength: number;
  readonly queryParameter: string | false;
}

const KNOWN_OPTIONS = ['maxLength', 'queryParameter'] as const;

const DEFAULT_OPTIONS: ResolvedPreferencesOptions = Object.freeze({
  maxLength: maxLengthOption('getPreferences', undefined),
  queryParameter: PREFER_QUERY_PARAMETER,
});

/** Options objects this module resolved, so a request does not check them again. */
const resolved = new WeakSet<object>([DEFAULT_OPTIONS]);

/**
 * Checks the options of `preferHeader` or `getPreferences` and fills in the defaults; throws a
 * construction error naming the option. Only `undefined` means "the default".
 */
export function resolvePreferencesOptions(
  factory: string,
  options: unknown,
): ResolvedPreferencesOptions {
  if (options === undefined) return DEFAULT_OPTIONS;
  if (resolved.has(options as object)) return options as ResolvedPreferencesOptions;
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, KNOWN_OPTIONS);
  const { maxLength, queryParameter = PREFER_QUERY_PARAMETER } = options as GetPreferencesOptions;
  if (
    queryParameter !== false &&
    (typeof queryParameter !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(queryParameter))
  ) {
    invalidOption(
      factory,
      'queryParameter',
      'a parameter name such as "Prefer", or false',
      queryParameter,
    );
  }
  const result = Object.freeze({ maxLength: maxLengthOption(factory, maxLength), queryParameter });
  resolved.add(result);
  return result;
}

const cache = new WeakMap<IncomingMessage, Preferences>();

/**
 * Requests `preferHeader()` has seen, with its options. Their preferences are parsed on first
 * read when nothing but their sent field lines can change them (see `preferHeaderSaw`).
 */
const seen = new WeakMap<IncomingMessage, ResolvedPreferencesOptions>();

/**
 * Each `Prefer` field line the client sent, on its own, so a broken line cannot swallow the next
 * one: what `req.headersDistinct.prefer` (Node 18.3+) holds, read from `rawHeaders` without
 * building the distinct lists of every other header.
 */
function sentLines(req: IncomingMessage): readonly string[] | undefined {
  const raw = req.rawHeaders as readonly string[] | undefined;
  if (!Array.isArray(raw)) {
    return (req as { headersDistinct?: Record<string, string[] | undefined> }).headersDistinct
      ?.prefer;
  }
  let lines: string[] | undefined;
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const field = raw[index]!;
    if (field.length !== 6 || field.toLowerCase() !== 'prefer') continue;
    if (lines === undefined) lines = [];
    lines.push(raw[index + 1]!);
  }
  return lines;
}

/**
 * Whether the client sent a `Prefer` field line: `sentLines(req) !== undefined` without the
 * array, for the check the middleware makes on every request (`raw` is `req.rawHeaders`, read
 * once by the caller: every read of a property of an Express request misses V8's caches, since
 * each request has a hidden class of its own). The usual spellings are compared as they are,
 * without a lower-cased copy of the name.
 */
function sentAnyLine(raw: readonly string[]): boolean {
  for (let index = 0; index + 1 < raw.length; index += 2) {
    const field = raw[index]!;
    if (
      field.length === 6 &&
      (field === 'Prefer' || field === 'prefer' || field.toLowerCase() === 'prefer')
    ) {
      return true;
    }
  }
  return false;
}

/** `headers` joins repeated lines with ", " (and holds what was set after parsing). */
function joinedLines(req: IncomingMessage): readonly string[] | undefined {
  const joined = req.headers.prefer;
  if (joined === undefined) return undefined;
  return typeof joined === 'string' ? [joined] : joined;
}

/**
 * Whether the query of `url` may carry `parameter`: false only when no name in it can decode to
 * the parameter's, case-insensitively (no escapes, no `+`, no such text). The names are
 * lower-cased only for a URL with a query (not on every request).
 */
function queryMayName(url: string | undefined, parameter: string): boolean {
  const start = url === undefined ? -1 : url.indexOf('?');
  if (start === -1) return false;
  const query = url!.slice(start + 1);
  return (
    query.includes('%') ||
    query.includes('+') ||
    query.toLowerCase().includes(parameter.toLowerCase())
  );
}

/**
 * The `Prefer` parameters of the query, copied into the header when it is absent (and taken out
 * of the URL, so collection parsers do not see them). A value the copy refuses (a control
 * character, over 8 KiB) is left alone: preferences are optional, the request goes on without.
 */
function queryParameterValues(req: IncomingMessage, parameter: string) {
  try {
    return takeQueryHeaders(req, [{ header: 'prefer', parameter }]);
  } catch {
    return [];
  }
}

/** The preferences as the request stands: field lines sent, or a copy, or the query. */
function readPreferences(req: IncomingMessage, options: ResolvedPreferencesOptions): Preferences {
  const { queryParameter } = options;
  const sent = sentLines(req);
  let lines = sent ?? joinedLines(req);
  // The query needs reading only when it may carry the parameter, or when the header may be a
  // copy of it made earlier (present in `headers` but not sent): then the copy's own values
  // count, one line each. Otherwise takeQueryHeaders would find nothing to take or copy.
  if (
    queryParameter !== false &&
    (queryMayName(req.url, queryParameter) ||
      (sent === undefined && req.headers.prefer !== undefined))
  ) {
    const [fromQuery] = queryParameterValues(req, queryParameter);
    // Each parameter is read like one field line, as before the copy joined them.
    if (fromQuery?.copied) lines = fromQuery.values;
  }
  return parsePreferWithin(lines, options.maxLength);
}

/**
 * The request's preferences, parsed once and cached on the request. Reads the `Prefer` header
 * field lines; when there is none, the `Prefer` query parameter(s).
 */
export function getPreferences(req: IncomingMessage, options?: GetPreferencesOptions): Preferences {
  const cached = cache.get(req);
  if (cached !== undefined) return cached;
  // Seen by the middleware and left for now: its options, and the lines sent, decide.
  const deferred = seen.get(req);
  const preferences =
    deferred === undefined
      ? readPreferences(req, resolvePreferencesOptions('getPreferences', options))
      : parsePreferWithin(sentLines(req), deferred.maxLength);
  cache.set(req, preferences);
  return preferences;
}

/**
 * What `preferHeader()` does with a request: marks it as seen, and parses its preferences now
 * when later changes to the request could change them (a query that may carry the parameter is
 * also taken out of the URL now, before the routes read it; a `Prefer` in `headers` that was
 * not sent may be rewritten). Otherwise they depend on the field lines sent alone, and are
 * parsed when first read: the same preferences, without the work for routes that never ask.
 */
export function preferHeaderSaw(req: IncomingMessage, options: ResolvedPreferencesOptions): void {
  // A second preferHeader() on the same request keeps the first one's reading.
  if (seen.has(req)) return;
  // getPreferences returns preferences already read as they are (no second look at the query),
  // so whether they were is not asked first: one WeakMap lookup less on every request.
  if (!dependsOnSentLinesOnly(req, options)) getPreferences(req, options);
  seen.set(req, options);
}

/** Whether the middleware saw the request (`req.preferences` is then its preferences). */
export function seenByPreferHeader(req: IncomingMessage): boolean {
  return seen.has(req);
}

function dependsOnSentLinesOnly(
  req: IncomingMessage,
  options: ResolvedPreferencesOptions,
): boolean {
  const raw = req.rawHeaders as readonly string[] | undefined;
  if (!Array.isArray(raw)) return false;
  const { queryParameter } = options;
  if (queryParameter !== false && queryMayName(req.url, queryParameter)) {
    return false;
  }
  return req.headers.prefer === undefined || sentAnyLine(raw);
}
