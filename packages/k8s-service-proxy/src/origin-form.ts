/**
 * @module Request targets in absolute form (`GET http://host/path`), which an HTTP/1.1 server
 * must accept (RFC 9112 §3.2.2) and Node passes on as `req.url` unchanged.
 */

/**
 * The origin form (`/path?query`) of an absolute-form target: its scheme and authority go, so
 * the path relayed is the one it names. Any other target is returned as it is.
 */
export function originForm(target: string): string {
  if (target.charCodeAt(0) === 0x2f /* "/" */) return target;
  const match = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i.exec(target);
  if (match === null) return target;
  const rest = target.slice(match[0].length);
  return rest.startsWith('/') ? rest : `/${rest}`;
}
