/**
 * @module What node:http accepts as a header, checked before `setHeader` is called: an invalid
 * name or value makes it throw, which inside the error handler would lose the envelope.
 */

/** field-name = token (RFC 9110 §5.1, §5.6.2). */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** field-value characters node:http accepts: HTAB, SP, VCHAR, obs-text (RFC 9110 §5.5). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

export function isHeaderName(value: unknown): value is string {
  return typeof value === 'string' && TOKEN.test(value);
}

export function isHeaderValue(value: unknown): value is string {
  return typeof value === 'string' && FIELD_VALUE.test(value);
}
