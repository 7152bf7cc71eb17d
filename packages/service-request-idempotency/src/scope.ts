/**
 * @module Scoping ids by the caller's identity, so that one client can never receive a response
 * stored for another that happened to use the same id.
 */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

/**
 * The default principal: a SHA-256 of the `Authorization` header (the header itself is never
 * stored), or the empty string for anonymous callers.
 */
export function authorizationPrincipal(req: { readonly headers: IncomingHttpHeaders }): string {
  const authorization = req.headers.authorization;
  if (authorization === undefined || authorization === '') return '';
  return hash('sha256', authorization);
}

/** The store key for an id within a principal's scope; fixed length, safe for any store. */
export function scopedKey(principal: string, id: string): string {
  return hash('sha256', `${principal}\u0000${id}`);
}
