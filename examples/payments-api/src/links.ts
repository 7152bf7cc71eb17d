/**
 * @module Absolute links. Built from the configured public base URL when there is one,
 * otherwise from Express's trust-proxy-aware protocol and host.
 */
import { isValidHost } from '@resourceful/error-envelope';
import type { Request } from 'express';

export interface Link {
  href: string;
  rel: string;
  method: string;
}

// Host and X-Forwarded-Host are client input that ends up in links: host[:port] only, by the
// rule error-envelope's server check refuses a Host by.

/** Host with port, honouring X-Forwarded-Host only from a trusted proxy (as Express 5's req.host). */
function requestHost(req: Request): string {
  const trust = req.app.get('trust proxy fn') as (
    address: string | undefined,
    hop: number,
  ) => boolean;
  const forwarded = req.get('X-Forwarded-Host');
  const host =
    forwarded !== undefined && trust(req.socket.remoteAddress, 0)
      ? forwarded.split(',')[0]!.trim()
      : req.get('Host');
  return host !== undefined && isValidHost(host) ? host : 'localhost';
}

// A list builds a link per item from the same request: its base is worked out once per request
// (the host, the protocol and the trust-proxy setting do not change while it is answered).
const requestBases = new WeakMap<Request, string>();

export function baseUrl(req: Request): string {
  let base = requestBases.get(req);
  if (base === undefined) {
    const configured = req.app.get('public base url') as string | undefined;
    base = configured ?? `${req.protocol}://${requestHost(req)}`;
    requestBases.set(req, base);
  }
  return base;
}

/** `path` is an absolute path such as `/v1/vault/credit-cards/CARD-1`. */
export function absoluteUrl(req: Request, path: string): string {
  return baseUrl(req) + path;
}

export function link(req: Request, path: string, rel: string, method = 'GET'): Link {
  return { href: absoluteUrl(req, path), rel, method };
}
