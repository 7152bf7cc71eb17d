/**
 * @module RFC 3339 `date-time` parsing for time selection. Strict: a full date, a time and an
 * offset (`Z` or `±HH:MM`); `Date.parse`'s lenient formats are not accepted.
 * @see https://www.rfc-editor.org/rfc/rfc3339#section-5.6
 */

// RFC 3339 §5.6 allows lower-case `t` and `z`. A space stands for `+` in the offset because an
// unencoded `+` in a query string decodes as a space (application/x-www-form-urlencoded).
const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+\- ])(\d{2}):(\d{2}))$/;

/** The instant an RFC 3339 `date-time` names, or `undefined` when it is not one. */
export function parseTimestamp(value: string): Date | undefined {
  const match = DATE_TIME.exec(value);
  if (match === null) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zulu, sign, oh, om] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  // Leap second 60 is valid RFC 3339 but not representable in a JS Date; it is refused.
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes = 0;
  if (zulu === undefined) {
    const offsetHours = Number(oh);
    const offsetMins = Number(om);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = fraction === undefined ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'));
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, millis);
  return new Date(date.getTime() - offsetMinutes * 60_000);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) {
    const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
    return leap ? 29 : 28;
  }
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
