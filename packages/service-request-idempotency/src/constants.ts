/**
 * @module Names and defaults taken from the spec ("Request and response headers") and the IETF
 * httpapi draft "The Idempotency-Key HTTP Header Field".
 */

/** The spec's request header that makes a POST idempotent. */
export const SERVICE_REQUEST_ID_HEADER = 'Service-Request-Id';

/** The IETF draft's header, accepted as an alias by default. */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Response header set on a replayed response (and only there). */
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Response headers a replay carries over from the stored response. Never `Set-Cookie`, `Date`
 * or rate-limit headers: they belong to the request that got them, not to the resource. `Vary`
 * goes with the body it describes (a cache must know a replay varied on `Prefer` too).
 */
export const DEFAULT_REPLAY_HEADERS: readonly string[] = [
  'Location',
  'Content-Type',
  'ETag',
  'Link',
  'Preference-Applied',
  'Vary',
];

/**
 * Headers that may never be replayed: they describe one connection, one message or one
 * client session, or this package sets them itself.
 */
export const NEVER_REPLAYED_HEADERS: readonly string[] = [
  'set-cookie',
  'date',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'content-encoding',
  'retry-after',
  'ratelimit',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
  'ratelimit-policy',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
];

/** A day, as the draft's examples and most payment APIs keep keys. */
export const DEFAULT_TTL_MS = 24 * 60 * 60 * 1000;

/** How long a lock lives when the process holding it dies mid-request. */
export const DEFAULT_LOCK_TTL_MS = 60_000;

/** Responses with a larger body are not stored for replay. */
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/** The draft leaves the length open; 255 is what Stripe, Zuora and most others accept. */
export const DEFAULT_MAX_ID_LENGTH = 255;

/**
 * Letters, digits and `-._~:+=/@`: UUIDs, ULIDs, base64 and base64url values all fit; spaces,
 * commas, quotes and control characters do not.
 */
export const ID_PATTERN = /^[A-Za-z0-9\-._~:+=/@]+$/;
