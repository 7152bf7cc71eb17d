/**
 * @module Check and write together: the current version is loaded, the preconditions are
 * evaluated against it and the write runs, all while no other write of the same resource runs
 * in this process. Two writers racing with the same `If-Match`: one wins, the other gets 412.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  invalidOption,
  oneOfOption,
  requiredFunctionOption,
} from '@resourceful/option-checks';
import { KeyedLock } from './keyed-lock.js';
import { evaluatePreconditions } from './preconditions.js';

/** What a write does when the resource does not exist (before any precondition is read). */
export type IfMissing = 'proceed' | 'not-found' | 'conflict';

export interface ConditionalWriteOptions<T, R> {
  /** Reads the current resource; `undefined` when it does not exist. */
  load: () => T | undefined | Promise<T | undefined>;
  /** The entity tag of a loaded resource, the same one its GET answers carry. */
  etag: (current: T) => string;
  /** Performs the write once the preconditions hold; its result is returned. */
  write: (current: T | undefined) => R | Promise<R>;
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
}

const FACTORY = 'conditionalWrite';
const KNOWN_OPTIONS = ['load', 'etag', 'write', 'ifMissing', 'requireIfMatch', 'identity', 'lock'];
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
 * Loads, evaluates `If-Match` / `If-None-Match` (RFC 9110 §13.2.2) and writes under a per-resource
 * lock. Throws the precondition's ApiError (412, 428, 400) or the missing resource's (404, 409).
 * Stores shared by several processes should also compare-and-set in `write`.
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
  booleanOption(FACTORY, 'requireIfMatch', options.requireIfMatch, false);
  const ifMissing = oneOfOption(FACTORY, 'ifMissing', options.ifMissing, IF_MISSING, 'not-found');
  const lock = options.lock ?? sharedLock;
  const key = options.identity ?? requestPath(req);
  return lock.run(key, async () => {
    const current = await options.load();
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
    evaluatePreconditions(req, current === undefined ? undefined : options.etag(current), {
      requireIfMatch: options.requireIfMatch,
    });
    return options.write(current);
  });
}
