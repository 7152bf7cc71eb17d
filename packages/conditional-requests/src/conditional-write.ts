/**
 * @module Check and write together: the current version is loaded, the preconditions are
 * evaluated against it and the write runs. Two writers racing with the same `If-Match`: one wins,
 * the other gets 412. Either no other write of the same resource runs in this process meanwhile
 * (the in-process lock, for stores that cannot compare-and-set), or the store writes only while
 * the stored version is still the one loaded (compare-and-set, which holds across processes).
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  compareAndSetOption,
  invalidOption,
  oneOfOption,
  positiveIntegerOption,
  requiredFunctionOption,
} from '@resourceful/option-checks';
import { KeyedLock } from './keyed-lock.js';
import { evaluatePreconditions } from './preconditions.js';
import { isStaleVersionError } from './stale-version.js';

/** What a write does when the resource does not exist (before any precondition is read). */
export type IfMissing = 'proceed' | 'not-found' | 'conflict';

/**
 * What a compare-and-set write must still find in the store for its change to apply: no resource
 * (insert only if absent: `INSERT … ON CONFLICT DO NOTHING`), or the version that was loaded and
 * checked, whose entity tag is `etag` (`UPDATE … WHERE id = $1 AND etag = $2`,
 * `DELETE … WHERE id = $1 AND etag = $2`).
 */
export type WriteCondition =
  | { readonly exists: false }
  | { readonly exists: true; readonly etag: string };

export interface ConditionalWriteOptions<T, R> {
  /** Reads the current resource; `undefined` or `null` when it does not exist. */
  load: () => T | null | undefined | Promise<T | null | undefined>;
  /** The entity tag of a loaded resource, the same one its GET answers carry. */
  etag: (current: T) => string;
  /**
   * Performs the write once the preconditions hold; its result is returned. With
   * `compareAndSet`, it changes the store only while `condition` still holds there and throws
   * `StaleVersionError` when it does not (no row updated, deleted or inserted), before any other
   * side effect. Any `write` may throw it: the attempt is then repeated from a fresh `load`.
   */
  write: (current: T | undefined, condition: WriteCondition) => R | Promise<R>;
  /**
   * When `load` finds nothing: `'not-found'` → 404, `'conflict'` → 409 (PATCH without upsert),
   * `'proceed'` → evaluate the preconditions (`If-Match` then fails with 412) and call `write`
   * with `undefined` (create, or an idempotent DELETE).
   * @default 'not-found'
   */
  ifMissing?: IfMissing;
  /** 428 when an existing resource is written without `If-Match`. @default false */
  requireIfMatch?: boolean;
  /**
   * The identity of the written resource (its id, or its type and id such as `customer:42`):
   * writes of one identity run one at a time, whatever URL spelling, version prefix or route
   * reached them. Without it, the normalised request path (`requestPath(req)`) is used, which
   * only holds while every writer of the resource is reached through one route.
   * @default requestPath(req)
   */
  identity?: string;
  /** The lock shared by every writer of these resources. @default one lock per process */
  lock?: KeyedLock;
  /**
   * The store checks the version itself, atomically: `write` applies its change only while
   * `condition` holds and throws `StaleVersionError` otherwise. No in-process lock is taken, so
   * the check holds across every process writing to the store. Not together with `lock`.
   * @default false
   */
  compareAndSet?: boolean;
  /**
   * How many times the load, evaluate, write sequence runs while `write` throws
   * `StaleVersionError`; after the last, 409 `WRITE_CONTENTION` with `Retry-After: 1`. A request
   * with `If-Match` loses on its second attempt with 412 when another write won the race.
   * @default 10
   */
  maxAttempts?: number;
}

/** The defaults of `conditionalWrite`'s options. */
export const CONDITIONAL_WRITE_DEFAULTS = Object.freeze({
  ifMissing: 'not-found' as IfMissing,
  requireIfMatch: false,
  compareAndSet: false,
  maxAttempts: 10,
});

const FACTORY = 'conditionalWrite';
const KNOWN_OPTIONS = [
  'load',
  'etag',
  'write',
  'ifMissing',
  'requireIfMatch',
  'identity',
  'lock',
  'compareAndSet',
  'maxAttempts',
];
const sharedLock = new KeyedLock();
const IF_MISSING: readonly IfMissing[] = ['proceed', 'not-found', 'conflict'];

/**
 * The key of the resource a request addresses: its path without the query, normalised so that
 * every spelling Express routes to the same handler and id gives the same key. Express matches
 * paths case-insensitively, ignores a trailing slash and percent-decodes parameters, so
 * `/hooks/WH-1`, `/HOOKS/WH-1/` and `/hooks/WH%2D1` all write `WH-1`; keyed by the raw path,
 * writers racing under those spellings would not wait for each other. Two different resources
 * that share a key are only serialised, never mixed up.
 */
export function requestPath(req: IncomingMessage): string {
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const segments = pathOf(url)
    .split('/')
    .filter((segment) => segment !== '')
    .map(decodeSegment);
  return `/${segments.join('/')}`.toLowerCase();
}

function pathOf(url: string): string {
  const end = url.search(/[?#]/);
  const path = end === -1 ? url : url.slice(0, end);
  if (path.startsWith('/')) return path;
  // Absolute-form request target (RFC 9112 §3.2.2): Express routes on its path alone.
  try {
    return new URL(path).pathname;
  } catch {
    return path;
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    // Malformed escapes: Express answers 400 for such a parameter; the raw text is a fine key.
    return segment;
  }
}

/**
 * Loads, evaluates `If-Match` / `If-None-Match` (RFC 9110 §13.2.2) and writes, either under a
 * per-resource lock in this process or, with `compareAndSet`, through a store that applies the
 * write only to the version it was checked against. Throws the precondition's ApiError (412, 428,
 * 400), the missing resource's (404, 409), or 409 `WRITE_CONTENTION` when every attempt lost a race.
 */
export async function conditionalWrite<T, R>(
  req: IncomingMessage,
  options: ConditionalWriteOptions<T, R>,
): Promise<R> {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, KNOWN_OPTIONS);
  for (const name of ['load', 'etag', 'write'] as const) {
    requiredFunctionOption(FACTORY, name, options[name]);
  }
  if (
    options.identity !== undefined &&
    (typeof options.identity !== 'string' || options.identity === '')
  ) {
    invalidOption(FACTORY, 'identity', 'a non-empty string', options.identity);
  }
  if (options.lock !== undefined && !(options.lock instanceof KeyedLock)) {
    invalidOption(FACTORY, 'lock', 'a KeyedLock', options.lock);
  }
  const requireIfMatch = booleanOption(
    FACTORY,
    'requireIfMatch',
    options.requireIfMatch,
    CONDITIONAL_WRITE_DEFAULTS.requireIfMatch,
  );
  const compareAndSet = compareAndSetOption(
    FACTORY,
    options,
    CONDITIONAL_WRITE_DEFAULTS.compareAndSet,
  );
  const maxAttempts = positiveIntegerOption(
    FACTORY,
    'maxAttempts',
    options.maxAttempts,
    CONDITIONAL_WRITE_DEFAULTS.maxAttempts,
  );
  const ifMissing = oneOfOption(
    FACTORY,
    'ifMissing',
    options.ifMissing,
    IF_MISSING,
    CONDITIONAL_WRITE_DEFAULTS.ifMissing,
  );
  const lock = options.lock ?? sharedLock;
  const key = options.identity ?? requestPath(req);

  const attempt = async (): Promise<R> => {
    // `null` is "not found" too: what Prisma's `findUnique`, many drivers and JSON stores answer.
    const current = (await options.load()) ?? undefined;
    if (current === undefined) {
      if (ifMissing === 'not-found') throw ApiError.notFound();
      if (ifMissing === 'conflict') {
        throw ApiError.conflict(
          'The resource does not exist, and this resource cannot be created by this request.',
          {
            innererror: { code: 'RESOURCE_MISSING' },
          },
        );
      }
    }
    const currentETag = current === undefined ? undefined : options.etag(current);
    evaluatePreconditions(req, currentETag, { requireIfMatch });
    const condition: WriteCondition =
      currentETag === undefined ? { exists: false } : { exists: true, etag: currentETag };
    return options.write(current, condition);
  };

  for (let attempts = 1; ; attempts++) {
    try {
      return await (compareAndSet ? attempt() : lock.run(key, attempt));
    } catch (error) {
      if (!isStaleVersionError(error)) throw error;
      // Another writer changed the resource after our load: evaluate again against what it
      // stored (RFC 9110 §13.2.2 asks for the state when the method is applied).
      if (attempts >= maxAttempts) {
        throw ApiError.conflict(
          'The resource kept changing while this request tried to write it; retry the request.',
          { innererror: { code: 'WRITE_CONTENTION' }, retryAfter: 1 },
        );
      }
    }
  }
}
