/**
 * @module Keeps a suffix inside the service's proxy prefix. Node's `URL` (like browsers and the
 * control plane) resolves `..`, `%2e%2e`, `.%2E` and `\` as dot segments and separators, so
 * `new URL(base + '/proxy/%2e%2e/%2e%2e/secrets')` leaves the prefix and would carry the proxy's
 * token to another resource. These checks run on the raw text, before any `URL` call.
 */

/** Decoding rounds checked: a suffix double-encoded this many times is still caught. */
const DECODE_ROUNDS = 3;

/** C0 controls and DEL. */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

function decodeOnce(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

function hasDotSegment(text: string): boolean {
  return text.split(/[/\\]/).some((part) => part === '.' || part === '..');
}

/**
 * Why an encoded suffix (`/a/b%20c`, without query) is refused, or `undefined` when it is safe:
 * a dot segment (literal, percent-encoded, double-encoded), a backslash, a control character or
 * malformed percent-encoding.
 */
export function suffixProblem(encodedSuffix: string): string | undefined {
  if (hasControlCharacter(encodedSuffix)) return 'contains a control character';
  if (encodedSuffix.includes('\\')) return 'contains a backslash';
  if (/[?#]/.test(encodedSuffix)) return 'contains "?" or "#"';
  let text = encodedSuffix;
  for (let round = 0; round <= DECODE_ROUNDS; round++) {
    if (hasDotSegment(text)) return 'contains a "." or ".." segment';
    if (!text.includes('%')) return undefined;
    const decoded = decodeOnce(text);
    if (decoded === undefined) return 'has malformed percent-encoding';
    if (hasControlCharacter(decoded)) return 'contains a control character';
    if (decoded === text) return undefined;
    text = decoded;
  }
  return 'is encoded too many times';
}

export function isSafeSuffix(encodedSuffix: string): boolean {
  return suffixProblem(encodedSuffix) === undefined;
}

/** Encodes raw suffix segments (`['files', 'a b']` → `/files/a%20b`); `.` and `..` are refused. */
export function encodeSuffixSegments(segments: readonly string[]): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment !== 'string') throw new TypeError('suffix segments must be strings');
    if (segment === '.' || segment === '..') {
      throw new RangeError('suffix must not contain "." or ".." segments');
    }
    out += `/${encodeURIComponent(segment)}`;
  }
  return out;
}
