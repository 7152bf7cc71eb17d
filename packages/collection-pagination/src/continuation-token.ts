/**
 * @module Opaque, tamper-evident continuation tokens for server-driven paging: the last record's
 * keyset position, bound to the collection, the sort and the filters, signed with HMAC-SHA256.
 * Every instance configured with the same secret accepts the others' tokens; a list of secrets
 * lets a secret be rotated (sign with the first, accept any).
 * @see Microsoft REST API guidelines, "Server-driven paging" (an opaque `nextLink`)
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ApiError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  invalidOption,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import type { CollectionQuery, KeysetPosition, KeyValue } from './types.js';

/** Server-driven paging options (`paginate({ continuation })`). */
export interface ContinuationOptions {
  /**
   * HMAC keys, each at least 32 characters (or bytes). Tokens are signed with the first and
   * accepted when any verifies: to rotate, put the new secret first, keep the old one until
   * the tokens it signed no longer matter, then drop it.
   */
  secrets: readonly (string | Uint8Array)[];
  /**
   * The name tokens are bound to. @default the request path (as the client addressed it), so
   * a token of `/v1/customers` is refused on `/v1/vault/credit-cards`
   */
  collection?: string;
}

/** The longest page token accepted (and produced): keys are short, a token stays a URL part. */
export const MAX_PAGE_TOKEN_LENGTH = 2048;
const MIN_SECRET_LENGTH = 32;
const VERSION = 'v1';

export interface ResolvedContinuation {
  readonly secrets: readonly Buffer[];
  readonly collection: string | undefined;
}

export function resolveContinuation(factory: string, value: unknown): ResolvedContinuation {
  assertOptionsObject(`${factory} continuation`, value);
  assertKnownOptions(`${factory} continuation`, value, ['secrets', 'collection']);
  const options = value as Partial<ContinuationOptions>;
  if (options.secrets === undefined) {
    throw optionError(
      OPTION_ERROR_CODES.missingOption,
      factory,
      '"continuation.secrets" is required: a list of at least one secret of 32 or more characters.',
      'continuation.secrets',
    );
  }
  const secretsExpected = `a non-empty array of secrets, each a string or bytes of at least ${MIN_SECRET_LENGTH}`;
  if (!Array.isArray(options.secrets) || options.secrets.length === 0) {
    invalidOption(factory, 'continuation.secrets', secretsExpected, options.secrets);
  }
  const secrets = options.secrets.map((secret: unknown) => {
    const bytes =
      typeof secret === 'string'
        ? Buffer.from(secret, 'utf8')
        : secret instanceof Uint8Array
          ? Buffer.from(secret)
          : undefined;
    if (bytes === undefined || bytes.length < MIN_SECRET_LENGTH) {
      // The secret itself is never echoed in the error.
      invalidOption(
        factory,
        'continuation.secrets',
        secretsExpected,
        '(a short or non-string secret)',
      );
    }
    return bytes;
  });
  const collection = options.collection;
  if (collection !== undefined && (typeof collection !== 'string' || collection === '')) {
    invalidOption(factory, 'continuation.collection', 'a non-empty string', collection);
  }
  return { secrets, collection };
}

/**
 * What a token is bound to: the collection, the sort and every filter and time condition, in a
 * canonical form (filters by name, time conditions by parameter), hashed.
 */
export function bindingDigest(collection: string, query: CollectionQuery): string {
  const filters = Object.keys(query.filters)
    .sort()
    .map((name) => [name, query.filters[name]]);
  const time = query.time
    .map((condition) => [condition.parameter, condition.operator, condition.value.toISOString()])
    .sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  const canonical = JSON.stringify([
    collection,
    query.sort?.by ?? null,
    query.sort?.order ?? null,
    filters,
    time,
  ]);
  return createHash('sha256').update(canonical).digest('base64url').slice(0, 22);
}

type EncodedValue = null | ['s', string] | ['n', number] | ['b', boolean] | ['d', string];

function encodeValue(value: KeyValue): EncodedValue {
  if (value === null) return null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime()))
      throw new TypeError('A keyset position holds an invalid Date.');
    return ['d', value.toISOString()];
  }
  switch (typeof value) {
    case 'string':
      return ['s', value];
    case 'number':
      if (!Number.isFinite(value)) {
        throw new TypeError('A keyset position holds a number that is not finite.');
      }
      return ['n', value];
    case 'boolean':
      return ['b', value];
  }
  throw new TypeError(
    `A keyset position holds a ${typeof value}; use a string, number, boolean, Date or null.`,
  );
}

function decodeValue(value: unknown): KeyValue | undefined {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length !== 2) return undefined;
  const [tag, inner] = value as [unknown, unknown];
  if (tag === 's' && typeof inner === 'string') return inner;
  if (tag === 'n' && typeof inner === 'number' && Number.isFinite(inner)) return inner;
  if (tag === 'b' && typeof inner === 'boolean') return inner;
  if (tag === 'd' && typeof inner === 'string') {
    const date = new Date(inner);
    return Number.isNaN(date.getTime()) ? undefined : date;
  }
  return undefined;
}

function mac(secret: Buffer, signed: string): Buffer {
  return createHmac('sha256', secret).update(signed).digest();
}

/** Signs a position for the query's binding: `v1.<payload>.<mac>`, URL-safe. */
export function signPageToken(
  continuation: ResolvedContinuation,
  binding: string,
  position: KeysetPosition,
): string {
  if (typeof position.id !== 'string' && typeof position.id !== 'number') {
    throw new TypeError('positionOf() must return an id that is a string or a number.');
  }
  const payload = Buffer.from(
    JSON.stringify({ b: binding, k: encodeValue(position.key), i: encodeValue(position.id) }),
  ).toString('base64url');
  const signed = `${VERSION}.${payload}`;
  const token = `${signed}.${mac(continuation.secrets[0]!, signed).toString('base64url')}`;
  if (token.length > MAX_PAGE_TOKEN_LENGTH) {
    throw new TypeError(
      `A continuation token would be longer than ${MAX_PAGE_TOKEN_LENGTH} characters: the sort value is too long to page by keyset.`,
    );
  }
  return token;
}

/**
 * The position a token carries, after checking its signature (against every secret) and its
 * binding to this request's collection, sort and filters.
 * @throws ApiError 400 naming `parameter`: `INVALID_PAGE_TOKEN` (forged, altered, truncated,
 *   signed with an unknown secret) or `PAGE_TOKEN_MISMATCH` (another collection, sort or filter)
 */
export function verifyPageToken(
  continuation: ResolvedContinuation,
  binding: string,
  token: string,
  parameter: string,
): KeysetPosition {
  const invalid = () =>
    ApiError.invalidRequest(
      `The query parameter "${parameter}" is not a continuation token this service issued; follow the "next" link as given.`,
      { target: parameter, innererror: { code: 'INVALID_PAGE_TOKEN' } },
    );
  const parts = token.split('.');
  if (parts.length !== 3 || parts[0] !== VERSION) throw invalid();
  const [, payload, signature] = parts as [string, string, string];
  const given = Buffer.from(signature, 'base64url');
  // base64url decoding skips bad characters: re-encode to refuse a signature that is not one.
  if (given.toString('base64url') !== signature) throw invalid();
  const signed = `${VERSION}.${payload}`;
  const verified = continuation.secrets.some((secret) => {
    const expected = mac(secret, signed);
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
  if (!verified) throw invalid();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (typeof decoded !== 'object' || decoded === null) throw invalid();
  const { b, k, i } = decoded as { b?: unknown; k?: unknown; i?: unknown };
  if (b !== binding) {
    throw ApiError.invalidRequest(
      `The query parameter "${parameter}" belongs to another collection, sort or filter; send the other parameters unchanged with it, or start from the first page.`,
      { target: parameter, innererror: { code: 'PAGE_TOKEN_MISMATCH' } },
    );
  }
  const key = decodeValue(k);
  const id = decodeValue(i);
  if (key === undefined || (typeof id !== 'string' && typeof id !== 'number')) throw invalid();
  return { key, id };
}
