/**
 * @module The grammar of a `Host` field value: `uri-host [ ":" port ]` (RFC 9110 §7.2), the host
 * being RFC 3986 §3.2.2's IP-literal, IPv4address or reg-name. Checked on every request the
 * server-level handlers see, so written as one pass over the characters, without a regular
 * expression or a string made.
 */
import { isIPv6 } from 'node:net';

/**
 * The longest host name accepted: RFC 3986 §3.2.2 asks URI producers to keep names to 255
 * characters, the bound of a DNS name (RFC 1035 §2.3.4).
 */
export const MAX_HOST_NAME_LENGTH = 255;

/** The highest TCP port (RFC 9293 §3.1: a 16-bit field). */
const MAX_PORT = 65_535;

// RFC 3986 §2.3 unreserved and §2.2 sub-delims: the characters of a reg-name besides `%HH`.
const REG_NAME_CHARACTER = new Uint8Array(128);
for (const character of "-._~!$&'()*+,;=") REG_NAME_CHARACTER[character.charCodeAt(0)] = 1;
for (let code = 48; code <= 57; code++) REG_NAME_CHARACTER[code] = 1;
for (let code = 65; code <= 90; code++) REG_NAME_CHARACTER[code] = 1;
for (let code = 97; code <= 122; code++) REG_NAME_CHARACTER[code] = 1;

function isHexDigit(code: number): boolean {
  return (code >= 48 && code <= 57) || ((code | 32) >= 97 && (code | 32) <= 102);
}

/** `reg-name = *( unreserved / pct-encoded / sub-delims )`, not empty, at most 255 long. */
function isRegName(value: string, end: number): boolean {
  if (end === 0 || end > MAX_HOST_NAME_LENGTH) return false;
  for (let i = 0; i < end; i++) {
    const code = value.charCodeAt(i);
    if (code === 37) {
      if (i + 2 >= end) return false;
      if (!isHexDigit(value.charCodeAt(i + 1)) || !isHexDigit(value.charCodeAt(i + 2))) {
        return false;
      }
      i += 2;
    } else if (code >= 128 || REG_NAME_CHARACTER[code] !== 1) {
      return false;
    }
  }
  return true;
}

/** `port = *DIGIT` from `start`: at most five digits, at most 65535; empty is allowed. */
function isPort(value: string, start: number): boolean {
  const digits = value.length - start;
  if (digits > 5) return false;
  let port = 0;
  for (let i = start; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 48 || code > 57) return false;
    port = port * 10 + (code - 48);
  }
  return port <= MAX_PORT;
}

/**
 * Whether `value` is a valid `Host` field value for an `http` or `https` request:
 * - a reg-name (a DNS name or an IPv4 address: letters, digits, `-._~`, the sub-delims
 *   `!$&'()*+,;=` and `%HH`), 1 to 255 characters, or an IPv6 literal in brackets
 *   (`[::1]`; no zone identifier, no IPvFuture: RFC 3986 §3.2.2 has a server answer an
 *   address format it does not know as unsupported),
 * - then, optionally, `:` and a port of at most five digits up to 65535 (an empty port is the
 *   default port, RFC 3986 §3.2.3).
 *
 * Not valid: an empty host (RFC 9110 §4.2.1: an `http` URI has one), userinfo (`a@b`,
 * which RFC 9110 §4.2.4 forbids in `http` URIs), spaces, control and non-ASCII characters
 * (RFC 3986 has no raw form of them: an internationalised name is sent as its A-label).
 */
export function isValidHost(value: string): boolean {
  let portStart: number;
  if (value.charCodeAt(0) === 91 /* [ */) {
    const close = value.indexOf(']');
    if (close < 0) return false;
    const literal = value.slice(1, close);
    // node:net's isIPv6 also takes a zone identifier (`fe80::1%eth0`), which a URI cannot carry
    // unencoded; RFC 9110 has no room for RFC 6874's encoded form either.
    if (literal.includes('%') || !isIPv6(literal)) return false;
    if (close === value.length - 1) return true;
    if (value.charCodeAt(close + 1) !== 58 /* : */) return false;
    portStart = close + 2;
  } else {
    const colon = value.indexOf(':');
    const end = colon < 0 ? value.length : colon;
    if (!isRegName(value, end)) return false;
    if (colon < 0) return true;
    portStart = colon + 1;
  }
  return isPort(value, portStart);
}
