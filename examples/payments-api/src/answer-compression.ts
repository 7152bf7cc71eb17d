/**
 * @module The content codings of every answer. contentNegotiation() compresses the answers of
 * the routes after it; the README, the API description (OpenAPI document, reference page and
 * its assets) and GraphQL are mounted before it, with media types of their own, so they are
 * compressed here, by content negotiation's own compression step with the same options: the
 * spec's "Content-Encoding … on all responses" holds for them too.
 */
import {
  CONTENT_NEGOTIATION_DEFAULTS,
  type CompressionOptions,
  negotiatedCompression,
} from '@resourceful/content-negotiation';
import type { RequestHandler } from 'express';

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
 * Compresses the answers of a route mounted before contentNegotiation(), as contentNegotiation()
 * would (its HEAD, 304 and 206 rules included): use it on routes
 * (`app.get(path, compressAnswers(), handler)`) or on a mount whose every request it answers,
 * never on one that falls through to contentNegotiation(), which compresses those itself.
 */
export function compressAnswers(): RequestHandler {
  return negotiatedCompression(ANSWER_COMPRESSION) as unknown as RequestHandler;
}
