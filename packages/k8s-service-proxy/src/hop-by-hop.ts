/**
 * @module Hop-by-hop headers (RFC 9110 §7.6.1): never relayed, and on HTTP/2 never sent at all
 * (RFC 9113 §8.2.2 makes a message carrying connection-specific fields malformed).
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Hop-by-hop headers (RFC 9110 §7.6.1 and the legacy ones Go's reverse proxy also drops). */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** The header names a `Connection` header lists, lower-cased. */
export function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  const text = Array.isArray(value) ? value.join(',') : (value ?? '');
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
}
