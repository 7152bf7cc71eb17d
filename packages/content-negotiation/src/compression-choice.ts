/**
 * @module Which content coding an answer gets. The decision is made here once and given to the
 * `compression` package as its filter, so the tag conditional-requests computes before the
 * headers go (`"abc~gzip"`) always names the coding actually applied.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import zlib from 'node:zlib';
import compression from 'compression';
import Negotiator from 'negotiator';

const HAS_BROTLI = 'createBrotliCompress' in zlib;
/** The codings compression offers, and its preference among equals (the same lists it uses). */
const SUPPORTED = HAS_BROTLI
  ? ['br', 'gzip', 'deflate', 'identity']
  : ['gzip', 'deflate', 'identity'];
const PREFERRED = HAS_BROTLI ? ['br', 'gzip'] : ['gzip'];
const NO_TRANSFORM = /(?:^|,)\s*?no-transform\s*?(?:,|$)/i;

/** The coding the client accepts best, or `undefined` for identity (no header: identity). */
export function negotiateEncoding(acceptEncoding: string | undefined): string | undefined {
  if (acceptEncoding === undefined) return undefined;
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } });
  // negotiator 0.6.4 takes the preferred codings as compression passes them (its types do not).
  const encoding = negotiator.encoding as (
    available: string[],
    preferred: string[],
  ) => string | undefined;
  const method = encoding.call(negotiator, SUPPORTED, PREFERRED);
  return method === undefined || method === 'identity' ? undefined : method;
}

/**
 * The coding this response will be sent with, or `undefined`. `bodyLength` is the size of the
 * body about to be sent, when the caller knows it and `Content-Length` is not set yet.
 */
export function responseEncoding(
  req: IncomingMessage,
  res: ServerResponse,
  accepted: string | undefined,
  threshold: number,
  bodyLength: number | undefined,
): string | undefined {
  if (accepted === undefined) return undefined;
  // RFC 9110 §15.3.5, §15.4.5: 204 and 304 have no content to code; §14.4: a 206's
  // Content-Range counts the bytes of the identity form.
  const status = res.statusCode;
  if (status < 200 || status === 204 || status === 206 || status === 304) return undefined;
  if (!isCompressible(req, res)) return undefined;
  const cacheControl = res.getHeader('Cache-Control');
  // RFC 9111 §5.2.2.6: no-transform forbids intermediaries changing the content; we follow it too.
  if (typeof cacheControl === 'string' && NO_TRANSFORM.test(cacheControl)) return undefined;
  const coded = res.getHeader('Content-Encoding');
  if (coded !== undefined && coded !== 'identity') return undefined;
  if (threshold > 0) {
    const declared = Number(res.getHeader('Content-Length'));
    const length = Number.isFinite(declared) ? declared : bodyLength;
    if (length !== undefined && length < threshold) return undefined;
  }
  return accepted;
}

/**
 * A HEAD answer's coding headers: exactly those of the GET (RFC 9110 §9.3.2), which
 * `compression` leaves out (it skips HEAD). The GET's coded body is streamed, its length known
 * only once it is all coded, so it goes without `Content-Length`, chunked where the client speaks
 * HTTP/1.1: RFC 9112 §6.1 lets a HEAD answer name the transfer coding the GET would have had.
 */
export function codeHeadAsTheGet(
  req: IncomingMessage,
  res: ServerResponse,
  accepted: string | undefined,
  threshold: number,
): void {
  const encoding = responseEncoding(req, res, accepted, threshold, undefined);
  if (encoding === undefined) return;
  res.setHeader('Content-Encoding', encoding);
  res.removeHeader('Content-Length');
  if (res.useChunkedEncodingByDefault && !res.hasHeader('transfer-encoding')) {
    res.setHeader('Transfer-Encoding', 'chunked');
  }
}

/**
 * Whether an answer's `Vary` lists `Accept-Encoding`: a compressible one, and any 304. RFC 9110
 * §15.4.5: a 304 carries the `Vary` its 200 would have; its `Content-Type`, which decides
 * compressibility, is gone by then (Express removes it), so a 304 lists `Accept-Encoding`
 * whenever compression is on: naming a field that did not vary only splits a cache's entries,
 * leaving it out lets a cache serve a gzip body to a client without gzip.
 */
export function variesByCoding(res: ServerResponse, compressible: boolean): boolean {
  return compressible || res.statusCode === 304;
}

/** Answers by Content-Type value, so each answer does not look its type up in mime-db again. */
const compressibleTypes = new Map<string, boolean>();
const MAX_REMEMBERED_TYPES = 64;
/**
 * The last value answered and its answer: an API answers nearly always with the same type
 * (`application/json; charset=utf-8`), and comparing with it costs less than hashing the
 * header's value, a string made afresh for every response, for the `Map`.
 */
let lastType = '';
let lastAnswer = false;

/** Whether the response's media type is one compression would code. */
export function isCompressible(req: IncomingMessage, res: ServerResponse): boolean {
  // Lower case: Node folds a header name's case on every call, and leaves a lower-case one as is.
  const type = res.getHeader('content-type');
  if (typeof type !== 'string') return compression.filter(req as never, res as never);
  if (type === lastType) return lastAnswer;
  let known = compressibleTypes.get(type);
  if (known === undefined) {
    known = compression.filter(req as never, res as never);
    if (compressibleTypes.size < MAX_REMEMBERED_TYPES) compressibleTypes.set(type, known);
  }
  lastType = type;
  lastAnswer = known;
  return known;
}
