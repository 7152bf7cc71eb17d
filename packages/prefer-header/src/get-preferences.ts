/**
 * @module Reading a request's preferences: the `Prefer` header, or the `Prefer` query parameter
 * when no header was sent (the spec lets any header travel as a same-named query parameter;
 * `@resourceful/http-conventions` does the copying, for every package alike).
 */
import type { IncomingMessage } from 'node:http';
import { takeQueryHeaders } from '@resourceful/http-conventions';
import { type ParsePreferOptions, type Preferences, parsePrefer } from './parse-prefer.js';

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

const cache = new WeakMap<IncomingMessage, Preferences>();

/** Each `Prefer` field line on its own, so a broken line cannot swallow the next one. */
function headerLines(req: IncomingMessage): readonly string[] | undefined {
  // `headersDistinct` (Node 18.3+) keeps field lines apart; `headers` joins them with ", ".
  const distinct = (req as { headersDistinct?: Record<string, string[] | undefined> })
    .headersDistinct?.prefer;
  if (distinct !== undefined) return distinct;
  const joined = req.headers.prefer;
  if (joined === undefined) return undefined;
  return typeof joined === 'string' ? [joined] : joined;
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

/**
 * The request's preferences, parsed once and cached on the request. Reads the `Prefer` header
 * field lines; when there is none, the `Prefer` query parameter(s).
 */
export function getPreferences(
  req: IncomingMessage,
  options: GetPreferencesOptions = {},
): Preferences {
  const cached = cache.get(req);
  if (cached !== undefined) return cached;
  const queryParameter = options.queryParameter ?? PREFER_QUERY_PARAMETER;
  let lines = headerLines(req);
  if (queryParameter !== false) {
    const [fromQuery] = queryParameterValues(req, queryParameter);
    // Each parameter is read like one field line, as before the copy joined them.
    if (fromQuery?.copied) lines = fromQuery.values;
  }
  const preferences = parsePrefer(lines, { maxLength: options.maxLength });
  cache.set(req, preferences);
  return preferences;
}
