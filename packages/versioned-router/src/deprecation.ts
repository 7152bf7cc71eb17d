/**
 * @module Deprecation signalling: `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a `Link` with
 * rel `deprecation` to the migration notes.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9745
 * @see https://www.rfc-editor.org/rfc/rfc8594
 */
import {
  assertKnownOptions,
  invalidOption,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';

const FACTORY = 'versionedRouter';

export interface DeprecationOptions {
  /**
   * When the version is (or was) deprecated. Sent as `Deprecation: @<unix-seconds>`, a
   * Structured Field Date (RFC 9745 §2.1); a date in the past is normal.
   */
  date: Date | string | number;
  /**
   * When the version is expected to stop answering. Sent as `Sunset: <HTTP-date>` (RFC 8594);
   * must not be earlier than `date` (RFC 9745 §4.2).
   */
  sunset?: Date | string | number;
  /** The migration notes: sent as `Link: <url>; rel="deprecation"` (RFC 9745 §3). */
  link?: string;
}

/** The header values for one deprecated version, computed once. */
export interface DeprecationHeaders {
  deprecation: string;
  sunset: string | undefined;
  link: string | undefined;
}

/** RFC 9651 §3.3.7: `@` followed by an integer number of seconds since the epoch. */
export function formatStructuredDate(date: Date): string {
  return `@${Math.floor(date.getTime() / 1000)}`;
}

function toDate(value: unknown, what: string): Date {
  const date =
    value instanceof Date
      ? new Date(value.getTime())
      : typeof value === 'string' || typeof value === 'number'
        ? new Date(value)
        : undefined;
  if (date === undefined || Number.isNaN(date.getTime())) {
    invalidOption(
      FACTORY,
      what,
      'a Date, an ISO 8601 string or a timestamp in milliseconds',
      value,
    );
  }
  return date;
}

// No whitespace, controls, quotes or angle brackets: the URL goes between "<" and ">".
const SAFE_LINK = /^[\x21\x23-\x3b\x3d\x3f-\x7e]+$/;

function checkLink(link: unknown, what: string): string {
  if (typeof link !== 'string' || !SAFE_LINK.test(link)) {
    invalidOption(
      FACTORY,
      what,
      'a URL without spaces, quotes or angle brackets, such as "https://example.com/migrate-to-v2"',
      link,
    );
  }
  if (!link.startsWith('/')) {
    try {
      new URL(link);
    } catch {
      invalidOption(FACTORY, what, 'an absolute URL or a path starting with "/"', link);
    }
  }
  return link;
}

/** Validates one version's deprecation settings and formats its headers. */
export function resolveDeprecation(options: unknown, what: string): DeprecationHeaders {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    invalidOption(FACTORY, what, "an object such as { date: new Date('2025-01-01') }", options);
  }
  assertKnownOptions(FACTORY, options, ['date', 'sunset', 'link'], what);
  const { date, sunset, link } = options as Record<string, unknown>;
  const deprecatedAt = toDate(date, `${what}.date`);
  let sunsetAt: Date | undefined;
  if (sunset !== undefined) {
    sunsetAt = toDate(sunset, `${what}.sunset`);
    if (sunsetAt.getTime() < deprecatedAt.getTime()) {
      throw optionError(
        OPTION_ERROR_CODES.conflictingOptions,
        FACTORY,
        `"${what}.sunset" must not be earlier than "${what}.date" (RFC 9745 §4.2).`,
        `${what}.sunset`,
      );
    }
  }
  return {
    deprecation: formatStructuredDate(deprecatedAt),
    sunset: sunsetAt?.toUTCString(),
    link:
      link === undefined ? undefined : `<${checkLink(link, `${what}.link`)}>; rel="deprecation"`,
  };
}
