/**
 * @module Hop-by-hop headers (RFC 9110 §7.6.1): never relayed, and on HTTP/2 never sent at all
 * (RFC 9113 §8.2.2 makes a message carrying connection-specific fields malformed).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';

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

const NO_TOKENS: ReadonlySet<string> = new Set();
const KEEP_ALIVE: ReadonlySet<string> = new Set(['keep-alive']);

/** The header names a `Connection` header lists, lower-cased. */
export function connectionTokens(headers: IncomingHttpHeaders): ReadonlySet<string> {
  const value = headers.connection;
  if (value === undefined) return NO_TOKENS;
  // What nearly every keep-alive answer carries; its one token is hop-by-hop anyway.
  if (value === 'keep-alive' || value === 'Keep-Alive') return KEEP_ALIVE;
  const text = Array.isArray(value) ? value.join(',') : value;
  return new Set(
    text
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter((token) => token !== ''),
  );
}

/**
 * Adds a header line to outgoing headers, keeping repeats: the first value stays a string (what
 * nearly every header is), a repeat turns it into an array. One object per message, no copy.
 */
export function appendHeader(headers: OutgoingHttpHeaders, name: string, value: string): void {
  const existing = headers[name];
  if (existing === undefined) headers[name] = value;
  else if (Array.isArray(existing)) existing.push(value);
  else headers[name] = [String(existing), value];
}
