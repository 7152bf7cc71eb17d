/**
 * @module Deprecation signalling: `Deprecation` (RFC 9745), `Sunset` (RFC 8594) and a `Link` with
 * rel `deprecation` to the migration notes.
 *
 * @see https://www.rfc-editor.org/rfc/rfc9745
 * @see https://www.rfc-editor.org/rfc/rfc8594
 */

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
    throw new TypeError(
      `${what} must be a Date, an ISO 8601 string or a timestamp in milliseconds.`,
    );
  }
  return date;
}

// No whitespace, controls, quotes or angle brackets: the URL goes between "<" and ">".
const SAFE_LINK = /^[\x21\x23-\x3b\x3d\x3f-\x7e]+$/;

function checkLink(link: unknown, what: string): string {
  if (typeof link !== 'string' || !SAFE_LINK.test(link)) {
    throw new TypeError(
      `${what} must be a URL without spaces, quotes or angle brackets, such as "https://example.com/migrate-to-v2".`,
    );
  }
  if (!link.startsWith('/')) {
    try {
      new URL(link);
    } catch {
      throw new TypeError(
        `${what} must be an absolute URL or a path starting with "/", got "${link}".`,
      );
    }
  }
  return link;
}

/** Validates one version's deprecation settings and formats its headers. */
export function resolveDeprecation(options: unknown, what: string): DeprecationHeaders {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${what} must be an object such as { date: new Date('2025-01-01') }.`);
  }
  const { date, sunset, link, ...rest } = options as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) {
    throw new TypeError(`${what}: unknown option "${unknown}". Known options: date, sunset, link.`);
  }
  const deprecatedAt = toDate(date, `${what}.date`);
  let sunsetAt: Date | undefined;
  if (sunset !== undefined) {
    sunsetAt = toDate(sunset, `${what}.sunset`);
    if (sunsetAt.getTime() < deprecatedAt.getTime()) {
      throw new TypeError(`${what}.sunset must not be earlier than ${what}.date (RFC 9745 §4.2).`);
    }
  }
  return {
    deprecation: formatStructuredDate(deprecatedAt),
    sunset: sunsetAt?.toUTCString(),
    link:
      link === undefined ? undefined : `<${checkLink(link, `${what}.link`)}>; rel="deprecation"`,
  };
}
