/**
 * @module The small pieces of Go's net/http behaviour that kubectl proxy users can observe:
 * path cleaning, plain-text errors and the redirect body.
 */
import type { ServerResponse } from 'node:http';
import { posix } from 'node:path';

/** Go's `cleanPath`: rooted, `.`/`..`/`//` resolved, a trailing slash kept. */
export function cleanPath(path: string): string {
  if (path === '') return '/';
  const rooted = path.startsWith('/') ? path : `/${path}`;
  let cleaned = posix.normalize(rooted);
  if (cleaned.startsWith('//')) cleaned = cleaned.replace(/^\/+/, '/');
  if (rooted.endsWith('/') && cleaned !== '/' && !cleaned.endsWith('/')) cleaned += '/';
  if (!rooted.endsWith('/') && cleaned !== '/' && cleaned.endsWith('/'))
    cleaned = cleaned.slice(0, -1);
  return cleaned;
}

/** Go's `http.Error`: plain text with a newline, `nosniff`. */
export function plainError(res: ServerResponse, status: number, text: string): void {
  const body = `${text}\n`;
  res.statusCode = status;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req?.method === 'HEAD' ? undefined : body);
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/** Go's `http.Redirect` with 301: `Location` and, for GET and HEAD, a one-link HTML body. */
export function movedPermanently(res: ServerResponse, location: string): void {
  res.statusCode = 301;
  res.setHeader('Location', location);
  const method = res.req?.method;
  if (method === 'GET' || method === 'HEAD') {
    const body = `<a href="${escapeHtml(location)}">Moved Permanently</a>.\n\n`;
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(method === 'HEAD' ? undefined : body);
    return;
  }
  res.end();
}

/** A percent sign that does not start a two-digit hex escape. */
const MALFORMED_ESCAPE = /%(?![0-9a-f]{2})/i;

/**
 * Decodes a path as Go's URL parser does (`%2F` becomes `/`); `undefined` when an escape is
 * malformed (`%zz`, a lone `%`). Go takes any escaped byte, UTF-8 or not (`caf%e9`, Latin-1), so
 * a path that is not UTF-8 once decoded still decodes here, each byte that is not UTF-8 becoming
 * U+FFFD, as Go's regular expressions read it.
 */
export function decodePath(rawPath: string): string | undefined {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    if (MALFORMED_ESCAPE.test(rawPath)) return undefined;
    const bytes = rawPath.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) =>
      String.fromCharCode(Number.parseInt(hex, 16)),
    );
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
}

/** The bytes Go's `validEncoded` lets stand in a path: RFC 3986 pchars, `/`, `[`, `]`, `%`. */
const GO_VALID_PATH = /^[A-Za-z0-9\-._~!$&'()*+,;=:@[\]%/]*$/;
/** The bytes Go's `escape(…, encodePath)` leaves alone; every other byte becomes `%XX`. */
const GO_PATH_SAFE = /[A-Za-z0-9\-._~$&+,/:;=@]/;

/**
 * Go's `URL.EscapedPath()` of a request's (well-formed) raw path, the path kubectl relays: the raw
 * path itself, unless it holds a byte Go would escape (`#`, `"`, `{`, `|`, …); then the decoded
 * path escaped again, byte by byte (`/a#b` becomes `/a%23b`, `/a#b%21` becomes `/a%23b%21`).
 */
export function goEscapedPath(rawPath: string): string {
  if (GO_VALID_PATH.test(rawPath)) return rawPath;
  const bytes = rawPath.replace(/%([0-9a-f]{2})/gi, (_escape, hex: string) =>
    String.fromCharCode(Number.parseInt(hex, 16)),
  );
  let escaped = '';
  for (const byte of Buffer.from(bytes, 'latin1')) {
    const char = String.fromCharCode(byte);
    escaped += GO_PATH_SAFE.test(char)
      ? char
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return escaped;
}

/**
 * What Go's server answers to a request line or header it refuses (a malformed escape, two
 * `Host` headers): `400 Bad Request` in plain text, without a newline, and it hangs up.
 */
export function badRequest(res: ServerResponse): void {
  const body = '400 Bad Request';
  res.statusCode = 400;
  res.shouldKeepAlive = false;
  res.setHeader('Content-Type', 'text/plain; charset=utf-8');
  res.setHeader('Connection', 'close');
  res.setHeader('Content-Length', body.length);
  res.end(body);
}
