/**
 * @module The media type of the OpenAPI document for a request's `Accept`. The document is
 * mounted before content negotiation (it has no XML mirror), so it negotiates its own two
 * types, with content negotiation's building blocks and bounds: `application/json` (what every
 * client reads, and the answer to any wildcard or no `Accept`) and `application/vnd.oai.openapi+json`,
 * the OpenAPI Initiative's registered type, for clients that ask for it by name. Any other
 * `Accept` is a 406 envelope listing both, as every other resource answers.
 */
import {
  ACCEPT_QUERY_PARAMETER,
  chooseMediaType,
  MAX_ACCEPT_HEADER_ELEMENTS,
  MAX_ACCEPT_HEADER_LENGTH,
  type MediaTypeChoice,
  SHORT_FORMS,
} from '@resourceful/content-negotiation';
import { ApiError } from '@resourceful/error-envelope';
import type { Request } from 'express';

/** The document's media types, in the server's order of preference. */
export const OPENAPI_MEDIA_TYPES: readonly MediaTypeChoice[] = Object.freeze([
  { format: 'json', mediaType: 'application/json' },
  { format: 'json', mediaType: 'application/vnd.oai.openapi+json' },
]);

/** A media range as `?accept=` may give it (content negotiation's grammar for the parameter). */
const MEDIA_RANGE = /^[A-Za-z0-9!#$&^_.+*-]+\/[A-Za-z0-9!#$&^_.+*-]+(?:\s*;.*)?$/;

/**
 * The `Accept` to negotiate: the `?accept=` query parameter when given (a short form such as
 * `json`, or a media range), as content negotiation reads it, else the header.
 * @throws ApiError 400 `INVALID_REQUEST` for a malformed parameter or an oversized header
 */
function acceptOf(req: Request): string | undefined {
  const query = new URLSearchParams(req.originalUrl.split('?')[1] ?? '');
  const queried = query.getAll(ACCEPT_QUERY_PARAMETER);
  if (queried.length > 0) {
    const [value = ''] = queried;
    const short = SHORT_FORMS[value.trim().toLowerCase()];
    if (queried.length === 1 && short !== undefined) return short;
    if (queried.length === 1 && MEDIA_RANGE.test(value)) return value;
    throw ApiError.invalidRequest(
      `The "${ACCEPT_QUERY_PARAMETER}" query parameter must be given once, as ${Object.keys(SHORT_FORMS).join(', ')} or a media type.`,
      { target: ACCEPT_QUERY_PARAMETER },
    );
  }
  const header = req.headers.accept;
  if (header === undefined) return undefined;
  // negotiator's cost grows with the header (content negotiation's bounds, its README).
  let commas = 0;
  for (let i = 0; i < header.length && i <= MAX_ACCEPT_HEADER_LENGTH; i++) {
    if (header.charCodeAt(i) === 0x2c) commas++;
  }
  if (header.length > MAX_ACCEPT_HEADER_LENGTH || commas >= MAX_ACCEPT_HEADER_ELEMENTS) {
    throw ApiError.invalidRequest(
      `The Accept header must be at most ${MAX_ACCEPT_HEADER_LENGTH} characters and ${MAX_ACCEPT_HEADER_ELEMENTS} elements.`,
      { target: 'Accept' },
    );
  }
  return header;
}

/**
 * The document's media type for the request.
 * @throws ApiError 406 `NOT_ACCEPTABLE` listing the available types (RFC 9110 §15.5.7)
 */
export function openApiMediaType(req: Request): string {
  const chosen = chooseMediaType(acceptOf(req), OPENAPI_MEDIA_TYPES);
  if (chosen !== undefined) return chosen.mediaType;
  throw ApiError.notAcceptable(
    `None of the media types in Accept is available. Available: ${OPENAPI_MEDIA_TYPES.map((choice) => choice.mediaType).join(', ')}.`,
    {
      target: 'Accept',
      details: OPENAPI_MEDIA_TYPES.map((choice) => ({
        code: 'AVAILABLE_MEDIA_TYPE',
        message: choice.mediaType,
        target: 'Accept',
      })),
    },
  );
}
