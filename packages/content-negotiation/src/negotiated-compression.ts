/**
 * @module The compression step of `contentNegotiation()` on its own, for routes mounted before it
 * with media types of their own (an API description, a documentation page, GraphQL): the same
 * coding choice, the same `Vary`, and the same rules for HEAD and 304.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { beforeHeaders } from '@resourceful/application-hooks';
import compression from 'compression';
import vary from 'vary';
import {
  codeHeadAsTheGet,
  isCompressible,
  negotiateEncoding,
  responseEncoding,
  variesByCoding,
} from './compression-choice.js';
import { boundedHeader } from './header-limits.js';
import { type CompressionOptions, resolveCompression } from './options.js';

type Next = (err?: unknown) => void;

/** What the header hook of one answer needs. */
interface Coding {
  readonly req: IncomingMessage;
  /** The coding the client accepts best, if any. */
  readonly accepted: string | undefined;
  readonly head: boolean;
  readonly threshold: number;
}

function codingHeaders(res: ServerResponse, coding: Coding): void {
  const { req, accepted, head, threshold } = coding;
  const compressible = isCompressible(req, res);
  if (variesByCoding(res, compressible)) vary(res, 'Accept-Encoding');
  if (compressible && head) codeHeadAsTheGet(req, res, accepted, threshold);
}

/**
 * Compresses the answers of the routes it is mounted on as `contentNegotiation()` compresses
 * its own, for routes mounted before it: `app.get(path, negotiatedCompression(), handler)`, or
 * on a mount whose every request it answers (never on one that falls through to
 * `contentNegotiation()`, which compresses those itself). br, gzip or deflate as
 * `Accept-Encoding` prefers, through the `compression` package; identity for 204, 206, 304,
 * `Cache-Control: no-transform`, types not worth compressing and bodies under `threshold`;
 * `Vary: Accept-Encoding` on compressible answers and on every 304; a HEAD answer gets the GET's
 * coding headers. `Accept-Encoding` beyond the bounds, or with a malformed weight, is a 400 naming
 * it.
 * @param options `threshold` and `level`, as `contentNegotiation()`'s `compression` option
 */
export function negotiatedCompression(options: Readonly<CompressionOptions> = {}) {
  const { threshold, level } = resolveCompression('negotiatedCompression', undefined, options);
  /** Each coded response's accepted coding, read by compression's filter. */
  const accepted = new WeakMap<ServerResponse, string>();
  const compressor = compression({
    threshold,
    level,
    filter: (req, res) =>
      responseEncoding(
        req as unknown as IncomingMessage,
        res as unknown as ServerResponse,
        accepted.get(res as unknown as ServerResponse),
        threshold,
        undefined,
      ) !== undefined,
  });

  return function negotiatedCompressionMiddleware(
    req: IncomingMessage,
    res: ServerResponse,
    next: Next,
  ): void {
    let encoding: string | undefined;
    try {
      encoding = negotiateEncoding(
        boundedHeader(req.headers['accept-encoding'], 'Accept-Encoding'),
      );
    } catch (error) {
      next(error);
      return;
    }
    // Registered before compression's own hook, so it runs after it and sees its coding.
    beforeHeaders(res, codingHeaders, {
      req,
      accepted: encoding,
      head: (req.method ?? '').toUpperCase() === 'HEAD',
      threshold,
    });
    if (encoding === undefined) {
      next();
      return;
    }
    accepted.set(res, encoding);
    compressor(req as never, res as never, next);
  };
}
