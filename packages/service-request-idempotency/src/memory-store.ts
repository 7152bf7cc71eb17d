/**
 * @module The in-memory store, the default: one process only, bounded in entries and bytes,
 * expired entries evicted as new ones arrive (no timers).
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  functionOption,
  positiveIntegerOption,
} from '@resourceful/option-checks';
import type {
  AcquireResult,
  Completion,
  IdempotencyStore,
  LockRequest,
  StoredResponse,
  StoreEntry,
} from './types.js';

export interface MemoryStoreOptions {
  /**
   * Most entries (locks and responses) kept. When full, expired entries go first, then the
   * oldest responses; locks are never evicted, so a store full of locks refuses new ones (503).
   * @default 10000
   */
  maxEntries?: number;
  /**
   * Most bytes of stored responses (bodies, headers, bookkeeping). The oldest go first.
   * @default 67108864 (64 MiB)
   */
  maxBytes?: number;
  /** Clock, for tests. @default Date.now */
  now?: () => number;
}

/** The memory store, with its current size for monitoring and tests. */
export interface MemoryStore extends IdempotencyStore {
  /** Entries currently held (expired ones may still count until evicted). */
  readonly size: number;
  /** Bytes currently accounted for. */
  readonly bytes: number;
  clear(): void;
  renew(key: string, token: string, lockTtlMs: number): Promise<boolean>;
}

/**
 * One entry under its key, linked into the store's age order: oldest first, a lock by when it
 * was taken, a response by when it was stored. One class for both states, so every entry has
 * one hidden class.
 */
class Held {
  /** The next older and newer entries in age order. */
  older: Held | undefined = undefined;
  newer: Held | undefined = undefined;
  constructor(
    readonly key: string,
    /** A lock becomes a response in place when completed (see `complete`); never back. */
    public state: 'in-flight' | 'completed',
    public fingerprint: string,
    /** The attempt holding the lock; empty for a response. */
    public token: string,
    public response: StoredResponse | undefined,
    /** Raised by `renew` and `complete`: `earliestExpiry` stays a lower bound. */
    public expiresAt: number,
    public bytes: number,
  ) {}
}

/**
 * The memory store's methods without their promises. Its work is synchronous; the middleware
 * calls these directly, saving the promise, the microtask turns and the `await`s of every call
 * (the store interface stays asynchronous for every other store).
 */
export interface SynchronousStore {
  /**
   * The key of an id in a principal's scope, for this store: the two as they are. A `Map`
   * needs no fixed-length key, so the SHA-256 of `scopedKey` (which every other store gets)
   * would be work for nothing; the id holds no NUL (`ID_PATTERN`), so the last one separates
   * the two and no two pairs share a key. Without a principal (anonymous callers), the id
   * itself: no other key equals it, since every scoped key holds a NUL and no id does (no
   * string built, flattened and hashed per request).
   */
  keyOf(principal: string, id: string): string;
  acquire(key: string, lock: LockRequest): AcquireResult;
  complete(key: string, completion: Completion): void;
  release(key: string, token: string): void;
  renew(key: string, token: string, lockTtlMs: number): boolean;
}

const SYNCHRONOUS = Symbol('the memory store without promises');

/** The synchronous methods of `store` when it is this package's memory store. */
export function synchronousStore(store: IdempotencyStore): SynchronousStore | undefined {
  return (store as { [SYNCHRONOUS]?: SynchronousStore })[SYNCHRONOUS];
}

/** Entries examined for expiry on each new lock: keeps the work per request constant. */
const SWEEP_PER_ACQUIRE = 8;
const ENTRY_OVERHEAD_BYTES = 200;
const ACQUIRED: AcquireResult = Object.freeze({ state: 'acquired' });

const OPTION_NAMES = [
  'maxEntries',
  'maxBytes',
  'now',
] as const satisfies readonly (keyof MemoryStoreOptions)[];

function responseBytes(key: string, fingerprint: string, response: StoredResponse): number {
  let bytes = ENTRY_OVERHEAD_BYTES + key.length + fingerprint.length;
  bytes += response.body?.byteLength ?? 0;
  const { headers } = response;
  // Not `Object.entries`: an array per header, on every stored response.
  for (const name in headers) {
    if (!Object.hasOwn(headers, name)) continue;
    const value = headers[name]!;
    bytes += name.length + (typeof value === 'string' ? value.length : value.join('').length);
  }
  return bytes;
}

export function memoryStore(options: MemoryStoreOptions = {}): MemoryStore {
  assertOptionsObject('memoryStore', options);
  assertKnownOptions('memoryStore', options, OPTION_NAMES);
  const maxEntries = positiveIntegerOption('memoryStore', 'maxEntries', options.maxEntries, 10_000);
  const maxBytes = positiveIntegerOption(
    'memoryStore',
    'maxBytes',
    options.maxBytes,
    64 * 1024 * 1024,
  );
  const now =
    functionOption('memoryStore', 'now', options.now, 'a function returning milliseconds') ??
    Date.now;
  const entries = new Map<string, Held>();
  // Age order, oldest first: a list of the entries rather than the Map's own insertion order.
  // Walking a Map from its start also walks every slot deleted since V8 last rebuilt its table
  // (removed entries stay as holes until then), and a full store removes its oldest entry on
  // every new one: with 10 000 entries, 6–11 µs per new request went to skipping holes
  // (bench/findings/service-request-idempotency.md, the fifth pass).
  let oldest: Held | undefined;
  let newest: Held | undefined;
  let totalBytes = 0;
  // No entry expires before this time (a lower bound: removals only raise the true one). A
  // full store evicts on every new entry, and sweeping the whole store each time cost
  // O(maxEntries) per request although nothing had expired; now the whole store is swept only
  // when something may have, about once per lock lifetime under steady load.
  let earliestExpiry = Number.POSITIVE_INFINITY;

  function link(held: Held): void {
    held.older = newest;
    if (newest === undefined) oldest = held;
    else newest.newer = held;
    newest = held;
  }

  /** Takes `held` out of the age order and the byte count (not out of `entries`). */
  function unlink(held: Held): void {
    const { older, newer } = held;
    if (older === undefined) oldest = newer;
    else older.newer = newer;
    if (newer === undefined) newest = older;
    else newer.older = older;
    held.older = undefined;
    held.newer = undefined;
    totalBytes -= held.bytes;
  }

  function remove(held: Held): void {
    entries.delete(held.key);
    unlink(held);
  }

  /** Puts `held` under its key (where there is none), the newest entry in age order. */
  function stored(held: Held): void {
    entries.set(held.key, held);
    link(held);
    totalBytes += held.bytes;
    if (held.expiresAt < earliestExpiry) earliestExpiry = held.expiresAt;
  }

  function live(key: string): Held | undefined {
    const held = entries.get(key);
    if (held !== undefined && held.expiresAt <= now()) {
      remove(held);
      return undefined;
    }
    return held;
  }

  function sweep(limit: number): void {
    const time = now();
    let seen = 0;
    let earliest = Number.POSITIVE_INFINITY;
    for (let held = oldest; held !== undefined; ) {
      if (seen++ >= limit) return;
      const newer = held.newer;
      if (held.expiresAt <= time) remove(held);
      else if (held.expiresAt < earliest) earliest = held.expiresAt;
      held = newer;
    }
    // The whole store was seen: the bound is exact again.
    earliestExpiry = earliest;
  }

  function sweepAll(): void {
    sweep(Number.POSITIVE_INFINITY);
  }

  /** Evicts expired entries, then the oldest responses, until the bounds hold. */
  function evict(entriesWanted: number, keep?: Held): void {
    if (entries.size <= entriesWanted && totalBytes <= maxBytes) return;
    if (earliestExpiry <= now()) sweepAll();
    for (let held = oldest; held !== undefined; ) {
      if (entries.size <= entriesWanted && totalBytes <= maxBytes) return;
      const newer = held.newer;
      if (held.state === 'completed' && held !== keep) remove(held);
      held = newer;
    }
  }

  function view(held: Held): StoreEntry {
    return held.state === 'in-flight'
      ? {
          state: 'in-flight',
          fingerprint: held.fingerprint,
          expiresInMs: Math.max(0, held.expiresAt - now()),
        }
      : { state: 'completed', fingerprint: held.fingerprint, response: held.response! };
  }

  const synchronous: SynchronousStore = {
    keyOf: (principal, id) => (principal === '' ? id : `${principal}\u0000${id}`),

    acquire(key, lock) {
      const time = now();
      // Nothing to sweep before the earliest expiry: no walk over the map (an iterator and an
      // entry array per entry examined) on every request of a store where nothing expired.
      if (earliestExpiry <= time) sweep(SWEEP_PER_ACQUIRE);
      const held = entries.get(key);
      if (held !== undefined) {
        if (held.expiresAt > time) return view(held);
        remove(held);
      }
      evict(maxEntries - 1);
      if (entries.size >= maxEntries) {
        throw new Error('memoryStore: every entry is an in-flight lock; no room for another');
      }
      const bytes = ENTRY_OVERHEAD_BYTES + key.length + lock.fingerprint.length;
      const expiresAt = time + lock.lockTtlMs;
      stored(new Held(key, 'in-flight', lock.fingerprint, lock.token, undefined, expiresAt, bytes));
      return ACQUIRED;
    },

    complete(key, completion) {
      const time = now();
      const held = entries.get(key);
      if (held !== undefined) {
        // Another attempt's live lock or response is never overwritten; an expired entry is.
        const live = held.expiresAt > time;
        if (live && (held.state !== 'in-flight' || held.token !== completion.token)) return;
      }
      let response = completion.response;
      let bytes = responseBytes(key, completion.fingerprint, response);
      if (bytes > maxBytes) {
        // Too large to keep at all: keep that it happened, so a repeat is refused, not re-run.
        response = { ...response, body: null };
        bytes = responseBytes(key, completion.fingerprint, response);
      }
      const expiresAt = time + completion.ttlMs;
      let done: Held;
      if (held === undefined) {
        done = new Held(key, 'completed', completion.fingerprint, '', response, expiresAt, bytes);
        stored(done);
      } else {
        // The entry under the key (this attempt's lock, or an expired one) becomes the response:
        // no new entry and no second `Map.set`. It moves to the newest end of the age order, as
        // a new entry would, so eviction still goes by when each response was stored.
        done = held;
        unlink(held);
        held.state = 'completed';
        held.fingerprint = completion.fingerprint;
        held.token = '';
        held.response = response;
        held.expiresAt = expiresAt;
        held.bytes = bytes;
        link(held);
        totalBytes += bytes;
        if (expiresAt < earliestExpiry) earliestExpiry = expiresAt;
      }
      evict(maxEntries, done);
    },

    release(key, token) {
      const held = entries.get(key);
      if (held?.state === 'in-flight' && held.token === token) remove(held);
    },

    renew(key, token, lockTtlMs) {
      const time = now();
      const held = entries.get(key);
      if (held?.state !== 'in-flight' || held.token !== token || held.expiresAt <= time) {
        return false;
      }
      // The age order is by when the lock was taken; a renewal does not move it.
      held.expiresAt = time + lockTtlMs;
      return true;
    },
  };

  const store: MemoryStore & { readonly [SYNCHRONOUS]: SynchronousStore } = {
    [SYNCHRONOUS]: synchronous,
    get size() {
      return entries.size;
    },
    get bytes() {
      return totalBytes;
    },
    clear() {
      entries.clear();
      oldest = undefined;
      newest = undefined;
      totalBytes = 0;
      earliestExpiry = Number.POSITIVE_INFINITY;
    },

    async acquire(key: string, lock: LockRequest): Promise<AcquireResult> {
      return synchronous.acquire(key, lock);
    },

    async complete(key: string, completion: Completion): Promise<void> {
      synchronous.complete(key, completion);
    },

    async release(key: string, token: string): Promise<void> {
      synchronous.release(key, token);
    },

    async renew(key: string, token: string, lockTtlMs: number): Promise<boolean> {
      return synchronous.renew(key, token, lockTtlMs);
    },

    async get(key: string): Promise<StoreEntry | undefined> {
      const held = live(key);
      return held === undefined ? undefined : view(held);
    },
  };
  return store;
}
