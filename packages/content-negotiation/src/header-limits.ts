/**
 * @module Bounds on the `Accept*` headers read, checked in one linear pass before any parser sees
 * them. negotiator (the jshttp parser Express uses) re-scans the text gathered so far for every
 * comma inside an unclosed quote, which is quadratic in the header's length; bounding the length
 * and the number of list elements keeps every header's cost linear and small. The same pass
 * refuses a weight that is no number from 0 to 1, which negotiator would read as a refusal.
 */
import { ApiError } from '@resourceful/error-envelope';

/** The longest `Accept*` header read, in characters. Real clients send well under 1 KiB. */
export const MAX_ACCEPT_HEADER_LENGTH = 4096;
/** The most list elements (comma-separated ranges) in one `Accept*` header. */
export const MAX_ACCEPT_HEADER_ELEMENTS = 64;

/**
 * A weight as clients write it: RFC 9110 §12.4.2's qvalue (`0` to `1`, three decimals at most),
 * also with more decimals or without the leading digit (Java's `HttpURLConnection` sends
 * `q=.2` by default); whether it is at most 1 is checked on the number.
 */
const WEIGHT = /^(?:[01](?:\.[0-9]*)?|\.[0-9]+)$/;

/** Whether `text` is a weight as clients write it (see `WEIGHT`), from 0 to 1. */
export function isWeight(text: string): boolean {
  return WEIGHT.test(text) && Number(text) <= 1;
}

/** `OWS` (RFC 9110 §5.6.3). */
function isSpace(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Whether a `q` parameter in `text` is not a weight. Quoted strings are skipped (a parameter's
 * value may hold `;` and `,`).
 */
function hasInvalidWeight(text: string): boolean {
  const length = text.length;
  let quoted = false;
  for (let i = 0; i < length; i++) {
    const code = text.charCodeAt(i);
    if (quoted) {
      if (code === 0x5c) i++;
      else if (code === 0x22) quoted = false;
      continue;
    }
    if (code === 0x22) {
      quoted = true;
      continue;
    }
    if (code !== 0x3b) continue;
    let at = i + 1;
    while (at < length && isSpace(text.charCodeAt(at))) at++;
    if ((text.charCodeAt(at) | 0x20) !== 0x71) continue;
    at++;
    while (at < length && isSpace(text.charCodeAt(at))) at++;
    if (text.charCodeAt(at) !== 0x3d) continue;
    let end = at + 1;
    while (end < length && text.charCodeAt(end) !== 0x2c && text.charCodeAt(end) !== 0x3b) end++;
    if (!isWeight(text.slice(at + 1, end).trim())) return true;
    i = end - 1;
  }
  return false;
}

/**
 * The header's value, repeated lines joined (RFC 9110 §5.3), or `undefined` when absent.
 * `source` names where the value came from in the error's message: the `accept` query
 * parameter is read by the same parser, so it is held to the same bounds.
 * @throws ApiError 400 `INVALID_REQUEST`, target the header, beyond the bounds or with a `q`
 *   that is no number from 0 to 1
 */
export function boundedHeader(
  value: string | string[] | undefined,
  name: string,
  source: 'header' | 'query parameter' = 'header',
): string | undefined {
  if (value === undefined) return undefined;
  const text = typeof value === 'string' ? value : value.join(', ');
  let commas = 0;
  let parameters = false;
  for (let i = 0; i < text.length && i <= MAX_ACCEPT_HEADER_LENGTH; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x2c) commas++;
    else if (code === 0x3b) parameters = true;
  }
  if (text.length > MAX_ACCEPT_HEADER_LENGTH || commas >= MAX_ACCEPT_HEADER_ELEMENTS) {
    throw ApiError.invalidRequest(
      `The ${name} ${source} must be at most ${MAX_ACCEPT_HEADER_LENGTH} characters and ${MAX_ACCEPT_HEADER_ELEMENTS} elements.`,
      { target: name },
    );
  }
  if (parameters) refuseInvalidWeight(text, name);
  return text;
}

/**
 * RFC 9110 §12.4.2: a weight is a qvalue. negotiator reads any other as a refusal of the range
 * (`application/json;q=abc` became a 406 naming nothing wrong); a client that wrote one has a
 * bug it should hear about, so it is a 400 naming the header, as every other malformed input is.
 * @throws ApiError 400 `INVALID_REQUEST`, target `name`
 */
export function refuseInvalidWeight(text: string, name: string): void {
  if (!hasInvalidWeight(text)) return;
  throw ApiError.invalidRequest(
    `A weight (q) in ${name} is not a number from 0 to 1; write it with at most three decimals (RFC 9110 §12.4.2).`,
    { target: name },
  );
}
