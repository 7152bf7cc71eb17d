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

/** Decodes a path as Go's URL parser does (`%2F` becomes `/`); `undefined` when malformed. */
export function decodePath(rawPath: string): string | undefined {
  try {
    return decodeURIComponent(rawPath);
  } catch {
    return undefined;
  }
}
