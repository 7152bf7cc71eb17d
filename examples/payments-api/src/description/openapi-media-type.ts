/**
 * @module The media type of the OpenAPI document for a request's `Accept`. The document is
 * mounted before content negotiation (it has no XML mirror), so it negotiates its own two types
 * with content negotiation's building blocks (its reading of `?accept=` and `Accept`, its 406):
 * `application/json` (what every client reads, and the answer to any wildcard or no `Accept`)
 * and `application/vnd.oai.openapi+json`, the OpenAPI Initiative's registered type, for clients
 * that ask for it by name. Any other `Accept` is a 406 envelope listing both, as every other
 * resource answers.
 */
import {
  acceptOfRequest,
  chooseMediaType,
  type MediaTypeChoice,
  notAcceptable,
} from '@resourceful/content-negotiation';
import type { Request } from 'express';

/** The document's media types, in the server's order of preference. */
export const OPENAPI_MEDIA_TYPES: readonly MediaTypeChoice[] = Object.freeze([
  { format: 'json', mediaType: 'application/json' },
  { format: 'json', mediaType: 'application/vnd.oai.openapi+json' },
]);

/**
 * The document's media type for the request.
 * @throws ApiError 406 `NOT_ACCEPTABLE` listing the available types (RFC 9110 §15.5.7)
 */
export function openApiMediaType(req: Request): string {
  const chosen = chooseMediaType(acceptOfRequest(req), OPENAPI_MEDIA_TYPES);
  if (chosen !== undefined) return chosen.mediaType;
  throw notAcceptable(OPENAPI_MEDIA_TYPES);
}
