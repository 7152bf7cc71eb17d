/**
 * @module Bounds on the `Accept*` headers read, checked in one linear pass before any parser sees
 * them. negotiator (the jshttp parser Express uses) re-scans the text gathered so far for every
 * comma inside an unclosed quote, which is quadratic in the header's length; bounding the length
 * and the number of list elements keeps every header's cost linear and small.
 */
import { ApiError } from '@resourceful/error-envelope';

/** The longest `Accept*` header read, in characters. Real clients send well under 1 KiB. */
export const MAX_ACCEPT_HEADER_LENGTH = 4096;
/** The most list elements (comma-separated ranges) in one `Accept*` header. */
export const MAX_ACCEPT_HEADER_ELEMENTS = 64;

/**
 * The header's value, repeated lines joined (RFC 9110 §5.3), or `undefined` when absent.
 * @throws ApiError 400 `INVALID_REQUEST`, target the header, beyond the bounds
 */
export function boundedHeader(
  value: string | string[] | undefined,
  name: string,
): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.join(', ');
  let commas = 0;
  for (let i = 0; i < text.length && i <= MAX_ACCEPT_HEADER_LENGTH; i++) {
    if (text.charCodeAt(i) === 0x2c) commas++;
  }
  if (text.length > MAX_ACCEPT_HEADER_LENGTH || commas >= MAX_ACCEPT_HEADER_ELEMENTS) {
    throw ApiError.invalidRequest(
      `The ${name} header must be at most ${MAX_ACCEPT_HEADER_LENGTH} characters and ${MAX_ACCEPT_HEADER_ELEMENTS} elements.`,
      { target: name },
    );
  }
  return text;
}
