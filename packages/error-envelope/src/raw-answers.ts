/**
 * @module The request id and `Date` of the answers the server-level handlers write, which no
 * middleware of the app stamps: parser refusals written on the raw socket, and the answers Node
 * would write itself. RFC 9110 §6.6.1: an origin server with a clock sends `Date` on every 2xx,
 * 3xx and 4xx; the conventions give every answer a request id, quoted in its envelope.
 */
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { checkOptions, optionError } from './check-options.js';
import { OPTION_NAMES, REQUEST_ID_KEY, requestIdOf } from './error-settings.js';
import { isHeaderName } from './header-checks.js';

/** `2026-11-23T19:03:11.123Z` (RFC 3339, the conventions' form) or HTTP's IMF-fixdate. */
export type RawAnswerDateFormat = 'rfc3339' | 'imf-fixdate';

export interface RawAnswerOptions {
  /**
   * Header carrying a new request id on each such answer (the app's request id header), also
   * put in the envelope as `innererror.request_id` and given to `onError`. @default false
   */
  requestIdHeader?: string | false;
  /** `Date` sent on each such answer, in this form. @default false (Node's own behaviour) */
  dateFormat?: RawAnswerDateFormat | false;
}

export interface RawAnswerSettings {
  readonly requestIdHeader: string | false;
  readonly dateFormat: RawAnswerDateFormat | false;
}

const NONE: RawAnswerSettings = Object.freeze({ requestIdHeader: false, dateFormat: false });

/** Every option of the factories that write raw answers: the error settings and these two. */
const RAW_ANSWER_OPTION_NAMES = [...OPTION_NAMES, 'requestIdHeader', 'dateFormat'] as const;

/**
 * Takes the raw-answer options out of `options`, checked; the rest are the error settings.
 * The whole object is checked here, before it is split: an array spread into `rest` would pass
 * as an empty object, and a misspelt `dateFormat` would be told only of the error settings.
 */
export function splitRawAnswerOptions<T extends object>(
  factory: string,
  options: (T & RawAnswerOptions) | undefined,
): { raw: RawAnswerSettings; rest: T | undefined } {
  if (options === undefined) return { raw: NONE, rest: undefined };
  checkOptions(factory, options, RAW_ANSWER_OPTION_NAMES);
  const { requestIdHeader, dateFormat, ...rest } = options;
  if (
    requestIdHeader !== undefined &&
    requestIdHeader !== false &&
    !isHeaderName(requestIdHeader)
  ) {
    throw optionError(
      factory,
      'requestIdHeader',
      'a header name such as "X-Request-Id", or false',
      requestIdHeader,
    );
  }
  if (
    dateFormat !== undefined &&
    dateFormat !== false &&
    dateFormat !== 'rfc3339' &&
    dateFormat !== 'imf-fixdate'
  ) {
    throw optionError(factory, 'dateFormat', '"rfc3339", "imf-fixdate" or false', dateFormat);
  }
  return {
    raw: Object.freeze({
      requestIdHeader: requestIdHeader ?? false,
      dateFormat: dateFormat ?? false,
    }),
    rest: rest as T,
  };
}

function formatDate(format: RawAnswerDateFormat): string {
  const now = new Date();
  return format === 'rfc3339' ? now.toISOString() : now.toUTCString();
}

/** The header lines of an answer written on the raw socket, and the id it carries. */
export function rawAnswerHeaders(raw: RawAnswerSettings): {
  requestId: string | undefined;
  headers: [string, string][];
} {
  const headers: [string, string][] = [];
  let requestId: string | undefined;
  if (raw.requestIdHeader !== false) {
    requestId = randomUUID();
    headers.push([raw.requestIdHeader, requestId]);
  }
  if (raw.dateFormat !== false) headers.push(['Date', formatDate(raw.dateFormat)]);
  return { requestId, headers };
}

/**
 * Stamps an answer written through a `ServerResponse` that the app's middleware may not have
 * seen: a new request id where the request has none (kept on it, so the envelope and `onError`
 * carry it), and `Date`, which a `responseDate()` of the app still stamps over when it ran.
 */
export function stampAnswer(res: ServerResponse, raw: RawAnswerSettings): void {
  if (res.headersSent) return;
  const req = res.req as (ServerResponse['req'] & { [REQUEST_ID_KEY]?: string }) | undefined;
  if (raw.requestIdHeader !== false && req !== undefined && requestIdOf(req) === undefined) {
    const requestId = randomUUID();
    req[REQUEST_ID_KEY] = requestId;
    res.setHeader(raw.requestIdHeader, requestId);
  }
  if (raw.dateFormat !== false) res.setHeader('Date', formatDate(raw.dateFormat));
}
