/**
 * @module Reading a request's preferences: the `Prefer` header, or the `Prefer` query parameter
 * when no header was sent (the spec lets any header travel as a same-named query parameter).
 */
import type { IncomingMessage } from 'node:http';
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

function queryValues(url: string | undefined, name: string): string[] {
  if (url === undefined) return [];
  const start = url.indexOf('?');
  if (start === -1) return [];
  const hash = url.indexOf('#', start);
  const query = url.slice(start + 1, hash === -1 ? undefined : hash);
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of new URLSearchParams(query)) {
    if (key.toLowerCase() === wanted) values.push(value);
  }
  return values;
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
  if (lines === undefined && queryParameter !== false) {
    const values = queryValues(req.url, queryParameter);
    if (values.length > 0) lines = values;
  }
  const preferences = parsePrefer(lines, { maxLength: options.maxLength });
  cache.set(req, preferences);
  return preferences;
}
