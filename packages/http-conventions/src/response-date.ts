/**
 * @module The `Date` response header. The spec asks for an RFC 3339 timestamp of "the time at
 * which the request finished"; HTTP defines `Date` as an IMF-fixdate (RFC 9110 §6.6.1), which
 * caches use for age calculation (RFC 9111 §4.2.3). Both are offered; the spec's by default.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { beforeHeaders } from '@resourceful/application-hooks';
import { checkOptions, optionError } from './options.js';

export type DateFormat = 'rfc3339' | 'imf-fixdate';

export const DATE_FORMATS: readonly DateFormat[] = ['rfc3339', 'imf-fixdate'];

export interface ResponseDateOptions {
  /**
   * `'rfc3339'` (`2026-11-23T19:03:11.123Z`, the spec's form) or `'imf-fixdate'`
   * (`Mon, 23 Nov 2026 19:03:11 GMT`, HTTP's form). @default 'rfc3339'
   */
  format?: DateFormat;
  /** The clock. @default () => new Date() */
  now?: () => Date;
}

/** RFC 3339 §5.6 `date-time` in UTC with milliseconds, as `create_time` fields are written. */
export function formatRfc3339(date: Date): string {
  return date.toISOString();
}

/** RFC 9110 §5.6.7 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
export function formatImfFixdate(date: Date): string {
  return date.toUTCString();
}

type Next = (err?: unknown) => void;

/** What `responseDate()` does to one response: the hook that stamps `Date`. */
export type HookDate = (res: ServerResponse) => void;

/** Checks the options and makes the per-response work (shared with `httpConventions`). */
export function responseDateStep(options: ResponseDateOptions = {}): HookDate {
  const factory = 'responseDate';
  const checked = checkOptions<ResponseDateOptions>(factory, options, ['format', 'now']);
  const format = checked.format ?? 'rfc3339';
  if (!DATE_FORMATS.includes(format)) {
    throw optionError(factory, 'format', '"rfc3339" or "imf-fixdate"', format);
  }
  const now = checked.now ?? undefined;
  if (now !== undefined && typeof now !== 'function') {
    throw optionError(factory, 'now', 'a function', now);
  }
  const formatDate = format === 'rfc3339' ? formatRfc3339 : formatImfFixdate;
  // Many answers are written within the same millisecond: the text is made once for each.
  let lastTime = Number.NaN;
  let lastText = '';
  function dateText(time: number): string {
    if (time !== lastTime) {
      lastText = formatDate(new Date(time));
      lastTime = time;
    }
    return lastText;
  }

  // One listener for every response: `beforeHeaders` keeps it with the response in a `WeakMap`
  // and runs it from the `writeHead` defined once on the app's outermost `app.response`, which
  // hands on to the `writeHead` it shadows (another package's hook, then Node's); on-headers
  // where that does not reach the response (see @resourceful/application-hooks).
  function stampDate(res: ServerResponse) {
    const time = now === undefined ? Date.now() : now().getTime();
    // A clock that returns an invalid date leaves Node's own Date in place.
    if (Number.isNaN(time)) return;
    res.setHeader('Date', dateText(time));
  }

  return function hookDate(res: ServerResponse) {
    beforeHeaders(res, stampDate, undefined);
  };
}

/**
 * Stamps `Date` when the response head is written: the last moment a header can be set, so
 * the time is when the answer was ready (for a streamed body, when it started).
 */
export function responseDate(options: ResponseDateOptions = {}) {
  const hook = responseDateStep(options);
  return function responseDateMiddleware(_req: IncomingMessage, res: ServerResponse, next: Next) {
    hook(res);
    next();
  };
}
