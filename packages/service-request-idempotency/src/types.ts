/**
 * @module The store interface: what the middleware needs from a place that keeps locks and
 * responses. Both built-in stores implement it; so can any other.
 */

/** A response as captured from the first run, ready to be replayed. */
export interface StoredResponse {
  readonly status: number;
  /** Lower-case header names; only the replay allow-list is kept. */
  readonly headers: Readonly<Record<string, string | readonly string[]>>;
  /** The body, or null when it was larger than `maxBodyBytes` and so not stored. */
  readonly body: Uint8Array | null;
}

/** What a store holds under one key. */
export type StoreEntry =
  | {
      readonly state: 'in-flight';
      readonly fingerprint: string;
      /** Milliseconds until the lock expires. */
      readonly expiresInMs: number;
    }
  | {
      readonly state: 'completed';
      readonly fingerprint: string;
      readonly response: StoredResponse;
    };

/** The result of `acquire`: the lock was taken (`acquired`), or the entry already there. */
export type AcquireResult = { readonly state: 'acquired' } | StoreEntry;

export interface LockRequest {
  /** The request's fingerprint, compared by the middleware on repeats. */
  readonly fingerprint: string;
  /** Unique per attempt; `complete` and `release` only act on the lock with this token. */
  readonly token: string;
  readonly lockTtlMs: number;
}

/** What `complete` stores: the attempt's token and fingerprint, its response, the retention. */
export interface Completion {
  readonly token: string;
  readonly fingerprint: string;
  readonly response: StoredResponse;
  readonly ttlMs: number;
}

/**
 * A store of idempotency locks and responses. Every method rejects when the store cannot be
 * reached; the middleware then fails closed (503) unless `failOpen` is set. An error with a
 * numeric `retryAfterMs` (the store knows how long it stays unavailable) sets the 503's
 * `Retry-After`.
 */
export interface IdempotencyStore {
  /**
   * Atomically: when nothing is stored under `key`, store an in-flight lock that expires after
   * `lockTtlMs` and answer `acquired`; otherwise answer what is stored, unchanged.
   */
  acquire(key: string, lock: LockRequest): Promise<AcquireResult>;
  /**
   * Replace the lock holding `completion.token` by the response, kept for `ttlMs`. Also stores
   * it when the lock has already expired and nobody else took the key; never overwrites a lock
   * or response of another attempt.
   */
  complete(key: string, completion: Completion): Promise<void>;
  /** Remove the lock holding `token` (the attempt failed), so the id can be retried. */
  release(key: string, token: string): Promise<void>;
  /**
   * Optional. When the lock under `key` still holds `token`, make it expire `lockTtlMs` from
   * now and answer `true`; otherwise (it expired, another attempt took the key, the store lost
   * it) change nothing and answer `false`. Never creates a lock. The middleware calls it while
   * a handler outlives a third of `lockTtlMs`, so a slow handler keeps its lock; a store
   * without it keeps the older contract: a lock lives `lockTtlMs`, however long the handler
   * runs.
   */
  renew?(key: string, token: string, lockTtlMs: number): Promise<boolean>;
  /** What is stored under `key`, without changing it. */
  get(key: string): Promise<StoreEntry | undefined>;
}
