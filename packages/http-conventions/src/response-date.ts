/**
 * @module The `Date` response header. The spec asks for an RFC 3339 timestamp of "the time at
 * which the request finished"; HTTP defines `Date` as an IMF-fixdate (RFC 9110 §6.6.1), which
 * caches use for age calculation (RFC 9111 §4.2.3). Both are offered; the spec's by default.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { beforeHeaders, shareShape } from '@resourceful/application-hooks';
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

/**
 * `formatRfc3339` or `formatImfFixdate` of a time (ms since the epoch), made cheaply: many
 * answers are written within the same millisecond, which gets the same text; a later one in the
 * same second reuses the second's text, which `Date`'s formatting (about 5 000 instructions
 * with V8's `snprintf`) makes once a second. For RFC 3339 the milliseconds follow it as three
 * digits; IMF-fixdate has no part below the second.
 */
export function dateTextCache(format: DateFormat): (time: number) => string {
  const formatDate = format === 'rfc3339' ? formatRfc3339 : formatImfFixdate;
  let lastTime = Number.NaN;
  let lastText = '';
  let second = Number.NaN;
  let secondText = '';
  return function dateText(time: number): string {
    if (time === lastTime) return lastText;
    const start = Math.floor(time / 1000) * 1000;
    if (start !== second) {
      const text = formatDate(new Date(start));
      // toISOString always ends in `.mmmZ` (also for six-digit years): the second's text ends
      // at the dot.
      secondText = format === 'rfc3339' ? text.slice(0, -4) : text;
      second = start;
    }
    if (format === 'rfc3339') {
      const milliseconds = time - start;
      lastText =
        secondText +
        String.fromCharCode(
          0x30 + Math.floor(milliseconds / 100),
          0x30 + (Math.floor(milliseconds / 10) % 10),
          0x30 + (milliseconds % 10),
          0x5a, // Z
        );
    } else {
      lastText = secondText;
    }
    lastTime = time;
    return lastText;
  };
}

/** What `responseDate()` does to one response: the hook that stamps `Date`. */
export type HookDate = (res: ServerResponse) => void;

/** Checks the options and makes the per-response work (shared with `httpConventions`). */
export function responseDateStep(options: ResponseDateOptions = {}): HookDate {
  const factory = 'responseDate';
  const checked = checkOptions<ResponseDateOptions>(factory, options, ['format', 'now']);
  const format = checked.format === undefined ? 'rfc3339' : checked.format;
  if (!DATE_FORMATS.includes(format)) {
    throw optionError(factory, 'format', '"rfc3339" or "imf-fixdate"', format);
  }
  const now = checked.now;
  if (now !== undefined && typeof now !== 'function') {
    throw optionError(factory, 'now', 'a function', now);
  }
  const dateText = dateTextCache(format);

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
  return function responseDateMiddleware(req: IncomingMessage, res: ServerResponse, next: Next) {
    shareShape(req);
    shareShape(res);
    hook(res);
    next();
  };
}
