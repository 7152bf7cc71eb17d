/**
 * @module Response formats: the media types served, the `accept` short form, and the choice
 * among them by RFC 9110 §12.5.1 (negotiator, as Express's `req.accepts` uses it).
 */
import { ApiError } from '@resourceful/error-envelope';
import Negotiator from 'negotiator';
import { boundedHeader } from './header-limits.js';

export type Format = 'json' | 'xml' | 'jsonp';

/** A served media type and the format that writes it. */
export interface MediaTypeChoice {
  readonly format: Format;
  readonly mediaType: string;
}

/** Every media type this package can answer in, in the server's order of preference. */
export const MEDIA_TYPES: readonly MediaTypeChoice[] = [
  { format: 'json', mediaType: 'application/json' },
  { format: 'xml', mediaType: 'application/xml' },
  { format: 'xml', mediaType: 'text/xml' },
  { format: 'jsonp', mediaType: 'text/javascript' },
];

const CHARSET_PARAMETER = /;[ \t]*charset[ \t]*=[ \t]*(?:"[^"]*"|[^;,]*)/gi;

/** The query parameter standing for `Accept` (spec: a header may arrive as a query parameter). */
export const ACCEPT_QUERY_PARAMETER = 'accept';

/** The short form's names: `?accept=xml`. */
export const SHORT_FORMS: Readonly<Record<string, string>> = {
  json: 'application/json',
  xml: 'application/xml',
  jsonp: 'text/javascript',
};

/** The media type of a `?accept=` value: a short name, or the value itself when it is a range. */
export function mediaRangeOfQuery(values: readonly string[]): string {
  const [value] = values;
  if (values.length === 1 && value !== undefined) {
    const name = value.trim().toLowerCase();
    // Own names only: `?accept=constructor` or `__proto__` would find Object's and fail later.
    if (Object.hasOwn(SHORT_FORMS, name)) return SHORT_FORMS[name]!;
    if (/^[A-Za-z0-9!#$&^_.+*-]+\/[A-Za-z0-9!#$&^_.+*-]+(?:\s*;.*)?$/.test(value)) {
      // Within the header's bounds (negotiator's parse is quadratic past them), weights checked.
      return boundedHeader(value, ACCEPT_QUERY_PARAMETER, 'query parameter')!;
    }
  }
  throw ApiError.invalidRequest(
    `The "${ACCEPT_QUERY_PARAMETER}" query parameter must be given once, as ${Object.keys(SHORT_FORMS).join(', ')} or a media type.`,
    { target: ACCEPT_QUERY_PARAMETER },
  );
}

/**
 * The best of `available` for an `Accept` value: q-values, then specificity, then the client's
 * order, then the server's (negotiator's order, RFC 9110 §12.5.1). `undefined` when none is
 * acceptable; no `Accept` at all accepts the first.
 */
export function chooseMediaType(
  accept: string | undefined,
  available: readonly MediaTypeChoice[],
): MediaTypeChoice | undefined {
  if (accept === undefined) return available[0];
  // The common headers need no parsing: the first type is JSON, and JSON is always served.
  if (accept === '*/*' || accept === 'application/json') return available[0];
  // A charset parameter on a range (`application/json; charset=utf-8`, sent by many clients)
  // is about the charset, which Accept-Charset negotiates; negotiator would read it as a
  // parameter the type must carry and find no match.
  const ranges = accept.replace(CHARSET_PARAMETER, '');
  const [best] = new Negotiator({ headers: { accept: ranges } }).mediaTypes(
    available.map((choice) => choice.mediaType),
  );
  return best === undefined ? undefined : available.find((choice) => choice.mediaType === best);
}

/** 406 with the media types that are available (RFC 9110 §15.5.7). */
export function notAcceptable(available: readonly MediaTypeChoice[]): ApiError {
  return ApiError.notAcceptable(
    `None of the media types in Accept is available. Available: ${available.map((c) => c.mediaType).join(', ')}.`,
    {
      target: 'Accept',
      details: available.map((choice) => ({
        code: 'AVAILABLE_MEDIA_TYPE',
        message: choice.mediaType,
        target: 'Accept',
      })),
    },
  );
}
