/**
 * @module The absolute URL of the current request, for navigation links: from a configured
 * public base URL, or from Express's trust-proxy-aware protocol and host (the authority of an
 * absolute-form target before Host), and the original URL (so a router mounted under a path
 * prefix still links to itself).
 */
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { ApiError, hasRepeatedHost, isValidHost } from '@resourceful/error-envelope';

/** The members an Express request adds that this module reads, all optional. */
interface ExpressRequestLike extends IncomingMessage {
  originalUrl?: string;
  protocol?: string;
  app?: { get?: (setting: string) => unknown };
}

type TrustFunction = (address: string | undefined, hop: number) => boolean;

// Host and X-Forwarded-Host are client input that ends up in links: host[:port] only, by
// error-envelope's rule (RFC 3986), the one its server check answers 400 by.
const PROTOCOL = /^https?$/;

/**
 * The request's absolute URL as the client addressed it.
 * @param publicBaseUrl `https://api.example.com` or `https://example.com/payments`: used instead
 *   of the request's protocol and host, and put before the original URL's path.
 * @throws ApiError 400 when Host (or a trusted X-Forwarded-Host / -Proto) is missing or invalid,
 *   or Host is sent more than once (RFC 9112 §3.2: such a request is a 400)
 */
export function requestUrl(req: IncomingMessage, publicBaseUrl?: string): URL {
  const request = req as ExpressRequestLike;
  const raw = request.originalUrl ?? request.url ?? '/';
  const absolute = absoluteForm(raw);
  const target = raw.startsWith('/')
    ? raw
    : absolute === undefined
      ? '/'
      : absolute.pathname + absolute.search;
  if (publicBaseUrl !== undefined) return new URL(publicBaseUrl + target);
  const protocol = requestProtocol(request);
  const host = requestHost(request, absolute);
  try {
    return new URL(`${protocol}://${host}${target}`);
  } catch {
    // The pattern admits hosts the WHATWG URL parser refuses (a port over 65535, an IPv4
    // address with an octet over 255, a malformed IPv6 literal); the path after a valid host
    // cannot make it fail, so the host is what was wrong.
    throw invalidHost(request);
  }
}

/** An absolute-form request target (RFC 9112 §3.2.2), as clients send to proxies. */
function absoluteForm(raw: string): URL | undefined {
  if (raw.startsWith('/')) return undefined;
  try {
    return new URL(raw);
  } catch {
    return undefined;
  }
}

function trustFunction(req: ExpressRequestLike): TrustFunction | undefined {
  const fn = req.app?.get?.('trust proxy fn');
  return typeof fn === 'function' ? (fn as TrustFunction) : undefined;
}

function isTrusted(req: ExpressRequestLike): boolean {
  return trustFunction(req)?.(req.socket?.remoteAddress, 0) === true;
}

function requestProtocol(req: ExpressRequestLike): string {
  // Express computes `req.protocol` from the socket and, behind a trusted proxy,
  // X-Forwarded-Proto; outside Express only the socket counts.
  const protocol =
    typeof req.protocol === 'string'
      ? req.protocol.toLowerCase()
      : (req.socket as TLSSocket | undefined)?.encrypted === true
        ? 'https'
        : 'http';
  if (!PROTOCOL.test(protocol)) {
    throw ApiError.invalidRequest('X-Forwarded-Proto must be http or https.', {
      target: 'X-Forwarded-Proto',
      innererror: { code: 'INVALID_FORWARDED_PROTO' },
    });
  }
  return protocol;
}

/** Whether the host came from a trusted proxy's X-Forwarded-Host rather than Host. */
function hostFromProxy(req: ExpressRequestLike): boolean {
  return firstHeader(req.headers['x-forwarded-host']) !== undefined && isTrusted(req);
}

function requestHost(req: ExpressRequestLike, absolute: URL | undefined): string {
  if (hostFromProxy(req)) {
    const forwarded = firstHeader(req.headers['x-forwarded-host'])!.split(',')[0]!.trim();
    if (!isValidHost(forwarded)) throw invalidHost(req);
    return forwarded;
  }
  // RFC 9112 §3.2.2: with an absolute-form target, the server MUST ignore Host and use the
  // target's authority (the URL parser has checked it).
  if (
    absolute !== undefined &&
    PROTOCOL.test(absolute.protocol.slice(0, -1)) &&
    absolute.host !== ''
  ) {
    return absolute.host;
  }
  // Node keeps the first of several Host lines; which one the client meant cannot be known.
  if (Array.isArray(req.rawHeaders) && hasRepeatedHost(req.rawHeaders)) {
    throw ApiError.invalidRequest('The request must carry one Host header, not several.', {
      target: 'Host',
      innererror: { code: 'REPEATED_HOST' },
    });
  }
  const host = firstHeader(req.headers.host);
  if (host === undefined || !isValidHost(host)) throw invalidHost(req);
  return host;
}

function invalidHost(req: ExpressRequestLike): ApiError {
  const target = hostFromProxy(req) ? 'X-Forwarded-Host' : 'Host';
  return ApiError.invalidRequest(`The ${target} header is missing or not a valid host.`, {
    target,
    innererror: { code: 'INVALID_HOST' },
  });
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
