/**
 * @module Keeping the locks of slow handlers: while a response is pending, its lock is renewed
 * every third of `lockTtlMs`, so a repeat sent after `lockTtlMs` still finds the first run in
 * progress (409) instead of running the handler a second time.
 *
 * Renewal stops when the response ends (its outcome is then stored under the same token), when
 * a renewal finds the lock gone (`LockLostError` to `onStoreError`), or `TTLS_AFTER_CLOSE` lock
 * TTLs after the client went away without the response ending.
 *
 * One timer per middleware, not one per request: a request adds itself to a set and removes
 * itself when its response ends (two set operations and a clock read on the common path). The
 * timer ticks every sixth of `lockTtlMs` while the set is not empty and stops at the first tick
 * that finds it empty; it is unref'd, so it never keeps a process alive by itself. A request
 * faster than a third of `lockTtlMs` is never renewed (no store call); a slower one is renewed
 * between a third and a half of `lockTtlMs` after its lock was taken or last renewed, which
 * leaves the renewal half the TTL to reach the store.
 */
import type { ServerResponse } from 'node:http';
import { wasCutByErrorHandler } from '@resourceful/error-envelope';

/** One lock held by a request of this process. */
export interface HeldLock {
  readonly key: string;
  readonly token: string;
  readonly res: ServerResponse;
  /** `Date.now()` when the lock was taken or last renewed. */
  renewedAt: number;
  /** A renewal is on its way to the store (no second one meanwhile). */
  renewing: boolean;
  /** `Date.now()` when the tick first saw the response closed before it ended; else 0. */
  closedAt: number;
}

/**
 * How long, in lock TTLs, a response closed before it ended (the client went away) is still
 * renewed. A client that timed out and retries is the retry this guards against, and its first
 * handler is usually still running: the lock is kept until that handler ends the response, but
 * not forever for a handler that never does.
 */
const TTLS_AFTER_CLOSE = 10;

/** Thrown to `onStoreError` when a renewal finds the lock no longer held by its request. */
export class LockLostError extends Error {
  override readonly name = 'LockLostError';
  constructor(readonly key: string) {
    super(
      'A Service-Request-Id lock expired or was lost while its handler was still running; a repeat may run the handler again. The first response is sent but not stored over another attempt.',
    );
  }
}

export interface LockRenewer {
  /** Starts keeping `held` (the lock was just taken). */
  hold(held: HeldLock): void;
  /** Stops keeping it (its outcome is being stored, or the request is gone). */
  drop(held: HeldLock): void;
}

/**
 * `renew` answers whether the lock was still the request's (synchronously for the memory
 * store); `onError` receives store failures and `LockLostError`s; `release` gives back the lock
 * of a response the error handler cut (see `tick`).
 */
export function lockRenewer(
  lockTtlMs: number,
  renew: (key: string, token: string, lockTtlMs: number) => boolean | Promise<boolean>,
  onError: (error: unknown) => void,
  release: (lock: HeldLock) => void,
): LockRenewer {
  const held = new Set<HeldLock>();
  const renewAfterMs = lockTtlMs / 3;
  const tickMs = Math.max(1, Math.floor(lockTtlMs / 6));
  const closedLimitMs = TTLS_AFTER_CLOSE * lockTtlMs;
  let timer: NodeJS.Timeout | undefined;

  function renewed(lock: HeldLock, sentAt: number, stillHeld: boolean): void {
    lock.renewing = false;
    if (!held.has(lock)) return;
    if (stillHeld) {
      lock.renewedAt = sentAt;
      return;
    }
    held.delete(lock);
    onError(new LockLostError(lock.key));
  }

  function failed(lock: HeldLock, error: unknown): void {
    // Kept: the next tick tries again while the lock may still be ours.
    lock.renewing = false;
    onError(error);
  }

  function renewOne(lock: HeldLock, time: number): void {
    lock.renewing = true;
    let answer: boolean | Promise<boolean>;
    try {
      answer = renew(lock.key, lock.token, lockTtlMs);
    } catch (error) {
      failed(lock, error);
      return;
    }
    if (typeof answer === 'boolean') renewed(lock, time, answer);
    else
      answer.then(
        (stillHeld) => renewed(lock, time, stillHeld),
        (error: unknown) => failed(lock, error),
      );
  }

  function tick(): void {
    if (held.size === 0) {
      clearInterval(timer);
      timer = undefined;
      return;
    }
    const time = Date.now();
    for (const lock of held) {
      if (lock.res.destroyed) {
        if (wasCutByErrorHandler(lock.res)) {
          // The handler failed after its response had started, and error-envelope's handler
          // closed the connection: the run is over and its response will never end. A failure,
          // as a 5xx is: the id is given back for a retry, not kept until the close limit.
          held.delete(lock);
          release(lock);
          continue;
        }
        if (lock.closedAt === 0) lock.closedAt = time;
        else if (time - lock.closedAt >= closedLimitMs) {
          // Left to expire, as every lock did before renewal.
          held.delete(lock);
          continue;
        }
      }
      if (!lock.renewing && time - lock.renewedAt >= renewAfterMs) renewOne(lock, time);
    }
  }

  return {
    hold(lock) {
      held.add(lock);
      if (timer === undefined) {
        timer = setInterval(tick, tickMs);
        timer.unref();
      }
    },
    drop(lock) {
      held.delete(lock);
    },
  };
}
