/**
 * @module The content codings of every answer. contentNegotiation() compresses the answers of
 * the routes after it; the README, the API description (OpenAPI document, reference page and
 * its assets) and GraphQL are mounted before it, with media types of their own, so they are
 * compressed here, through the same `compression` package with the same options: the spec's
 * "Content-Encoding … on all responses" holds for them too.
 */
import type { ServerResponse } from 'node:http';
import {
  CONTENT_NEGOTIATION_DEFAULTS,
  type CompressionOptions,
} from '@resourceful/content-negotiation';
import compression from 'compression';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import onHeaders from 'on-headers';
import vary from 'vary';

/**
 * The compression of every answer: given to contentNegotiation() and used by
 * `compressAnswers()`, so both code alike (br, gzip or deflate as `Accept-Encoding` prefers,
 * every body however small).
 */
export const ANSWER_COMPRESSION: Readonly<Required<CompressionOptions>> = Object.freeze({
  threshold: CONTENT_NEGOTIATION_DEFAULTS.threshold,
  level: CONTENT_NEGOTIATION_DEFAULTS.level,
});

/**
 * Whether an answer is coded: not a 204 or 304 (no content, RFC 9110 §15.3.5, §15.4.5), not a
 * 206 (its `Content-Range` counts the bytes of the identity form, RFC 9110 §14.4), and a media
 * type worth compressing (compression's own test).
 */
function codable(req: Request, res: Response): boolean {
  const status = res.statusCode;
  if (status === 204 || status === 206 || status === 304) return false;
  return compression.filter(req, res);
}

/**
 * HEAD answers with the GET's headers (RFC 9110 §9.3.2): `Content-Encoding`, no
 * `Content-Length`, and the `Transfer-Encoding: chunked` of the GET's streamed coded body (RFC
 * 9112 §6.1 lets a HEAD name it). A 304 keeps the `Vary` its 200 would send (RFC 9110 §15.4.5).
 */
function headersLikeTheGet(this: ServerResponse): void {
  if (this.statusCode === 304) {
    vary(this, 'Accept-Encoding');
    return;
  }
  if (
    this.hasHeader('Content-Encoding') &&
    this.useChunkedEncodingByDefault &&
    !this.hasHeader('Transfer-Encoding')
  ) {
    this.setHeader('Transfer-Encoding', 'chunked');
  }
}

/** The GET a HEAD stands for, as compression sees it (it leaves HEAD uncoded). */
const AS_GET: PropertyDescriptorMap = { method: { value: 'GET' } };

/**
 * Compresses the answers of a route mounted before contentNegotiation(), as contentNegotiation()
 * would: use it on routes (`app.get(path, compressAnswers(), handler)`) or on a mount whose
 * every request it answers, never on one that falls through to contentNegotiation(), which
 * compresses those itself.
 */
export function compressAnswers(): RequestHandler {
  const compress = compression({
    threshold: ANSWER_COMPRESSION.threshold,
    level: ANSWER_COMPRESSION.level,
    filter: codable,
  });
  return function compressAnswer(req: Request, res: Response, next: NextFunction): void {
    // Registered before compression's listener, so it runs after it (on-headers runs the last
    // registered first) and sees the coding chosen.
    onHeaders(res, headersLikeTheGet);
    // compression leaves HEAD uncoded; asked as the GET, it codes the empty body as the GET's
    // (Node sends no body with a HEAD answer) and sets the GET's headers.
    compress(req.method === 'HEAD' ? (Object.create(req, AS_GET) as Request) : req, res, next);
  };
}
