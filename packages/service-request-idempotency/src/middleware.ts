/**
 * @module The middleware: a POST with `Service-Request-Id` runs once; repeats get the stored
 * response. Semantics the spec does not show follow the IETF httpapi draft "The Idempotency-Key
 * HTTP Header Field".
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorSettingsFor } from '@resourceful/error-envelope';
import {
  abandonCapture,
  type CapturedResponse,
  type CaptureSink,
  captureResponse,
} from './capture.js';
import {
  ambiguousIdError,
  inProgressError,
  invalidIdError,
  notReplayableError,
  requiredIdError,
  reusedIdError,
  storeUnavailableError,
} from './errors.js';
import { type HeldLock, type LockRenewer, lockRenewer } from './lock-renewal.js';
import { synchronousStore } from './memory-store.js';
import {
  type IdempotentRequest,
  type ResolvedOptions,
  resolveOptions,
  type ServiceRequestIdempotencyOptions,
} from './options.js';
import { requestIdReader } from './request-id.js';
import { scopedKey } from './scope.js';
import type { AcquireResult, LockRequest, StoredResponse } from './types.js';

type Next = (err?: unknown) => void;

/**
 * One request's attempt at running under its id; once its lock is taken, also the lock as the
 * renewer keeps it (one object per request for both).
 */
class Attempt implements HeldLock {
  renewedAt = 0;
  renewing = false;
  closedAt = 0;
  readonly token: string;
  constructor(
    /** Where the id came from (header or parameter name), for error targets. */
    readonly target: string,
    readonly key: string,
    readonly lock: LockRequest,
    readonly res: ServerResponse,
  ) {
    this.token = lock.token;
  }
}

/**
 * Statuses after which the id stays usable: server failures, and refusals that say "try again"
 * (408 Request Timeout, 429 Too Many Requests). Everything else is stored and replayed.
 */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/**
 * Whether an answer leaves the id usable: a retryable status, or a refusal that says when to try
 * again (`Retry-After` on a 4xx: conditional-requests' 409 `WRITE_CONTENTION`, a limiter's 403).
 * Such a refusal invites the same request later; stored, it would refuse that request for the
 * id's whole retention. A 2xx or 3xx with `Retry-After` (a 202 saying when to poll) is an
 * outcome, and stored.
 */
function releasesId(status: number, res: ServerResponse): boolean {
  return isRetryableStatus(status) || (status >= 400 && res.hasHeader('retry-after'));
}

/** Statuses whose responses carry no body, so no `Content-Length` either (RFC 9110 §8.6). */
function hasNoBody(status: number): boolean {
  return status < 200 || status === 204 || status === 304;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ReplayHeaders {
  /** Lower-case name → name as sent on a replay. */
  readonly names: ReadonlyMap<string, string>;
  /** The lower-case names, as the capture reads them. */
  readonly keep: readonly string[];
}

function replayHeadersOf(names: ReadonlyMap<string, string>): ReplayHeaders {
  return { names, keep: [...names.keys()] };
}

/** Code header names whose replay lists were built; an app has one or a few. */
const MAX_CACHED_CODE_HEADERS = 16;

/**
 * The headers kept for replay of a request. The default list also holds the app's error code
 * header, so a replayed 4xx carries the code the first answer had, whatever header the app's
 * `errorHandler` names. Built once per code header, not per request.
 */
function replayHeadersFinder(config: ResolvedOptions): (req: IncomingMessage) => ReplayHeaders {
  const configured = replayHeadersOf(config.replayHeaders);
  if (!config.replayCodeHeader) return () => configured;
  const byCodeHeader = new Map<string, ReplayHeaders>();
  const replayed = config.replayedHeader.toLowerCase();
  return function replayHeadersFor(req) {
    const { codeHeader } = errorSettingsFor(req);
    if (codeHeader === false) return configured;
    let found = byCodeHeader.get(codeHeader);
    if (found === undefined) {
      const lower = codeHeader.toLowerCase();
      if (lower === replayed) return configured;
      found = replayHeadersOf(new Map([...config.replayHeaders, [lower, codeHeader]]));
      if (byCodeHeader.size < MAX_CACHED_CODE_HEADERS) byCodeHeader.set(codeHeader, found);
    }
    return found;
  };
}

/** A value a user callback may give as is or as a promise (`principal`, `fingerprint`). */
function isThenable<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function';
}

/** Writes a stored response: its status, allow-listed headers, body, and the replay marker. */
function replay(
  res: ServerResponse,
  response: StoredResponse,
  replayHeaders: ReadonlyMap<string, string>,
  config: ResolvedOptions,
): void {
  res.statusCode = response.status;
  for (const [name, value] of Object.entries(response.headers)) {
    const configured = replayHeaders.get(name);
    if (configured !== undefined) res.setHeader(configured, value);
  }
  res.setHeader(config.replayedHeader, 'true');
  // A view, not a copy: the stored bytes are only read.
  const stored = response.body;
  const body =
    stored === null
      ? Buffer.alloc(0)
      : Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
  if (hasNoBody(response.status)) {
    res.end();
    return;
  }
  res.setHeader('Content-Length', body.length);
  res.end(res.req?.method === 'HEAD' ? undefined : body);
}

type Outcome = 'next' | 'done';

/**
 * Attempt tokens: one random UUID per process and a counter. As unique as a UUID per attempt
 * (the random part is one), without drawing and formatting a random UUID per request; a token
 * only tells this process's attempts, and those of other processes, apart.
 */
const TOKEN_PREFIX = randomUUID();
let attempts = 0;
function attemptToken(): string {
  attempts += 1;
  return `${TOKEN_PREFIX}.${attempts.toString(36)}`;
}

/**
 * Makes POST idempotent by `Service-Request-Id`. Mount it after the body parser and before
 * the create handlers: `app.post('/v1/things', serviceRequestIdempotency(), createThing)`.
 */
export function serviceRequestIdempotency(options: ServiceRequestIdempotencyOptions = {}) {
  const config = resolveOptions(options);
  const { store } = config;
  const replayHeadersFor = replayHeadersFinder(config);
  // The memory store's methods without promises: with it, a request that needs no waiting is
  // handled synchronously (no promise, no microtask turn), and its outcome is stored before
  // `end` returns, so the response is never held back.
  const synchronous = synchronousStore(store);
  const keyOf = synchronous?.keyOf ?? scopedKey;
  // A lock whose response the error handler cut is given back, retried as an outcome is; what
  // the handler might still write to that response is not stored.
  const releaseCut = (held: HeldLock) => {
    abandonCapture(held.res);
    void persist(() => store.release(held.key, held.token), true);
  };
  // Stores without `renew` (third-party ones written before it) keep a lock `lockTtlMs`.
  const renewer: LockRenewer | undefined =
    synchronous !== undefined
      ? lockRenewer(config.lockTtlMs, synchronous.renew, config.onStoreError, releaseCut)
      : typeof store.renew === 'function'
        ? lockRenewer(config.lockTtlMs, store.renew.bind(store), config.onStoreError, releaseCut)
        : undefined;
  const readRequestId = requestIdReader({
    names: config.idNames,
    query: config.query,
    maxLength: config.maxIdLength,
  });

  /** A store that knows how long it stays unavailable (`retryAfterMs`) sets `Retry-After`. */
  function retryAfterSeconds(error: unknown): number {
    const ms = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
    return typeof ms === 'number' && Number.isFinite(ms) && ms > 0
      ? Math.max(config.retryAfterSeconds, Math.ceil(ms / 1000))
      : config.retryAfterSeconds;
  }

  /** After a failed store call: `undefined` when failing open, else the 503 to answer. */
  function storeFailed(error: unknown): undefined {
    config.onStoreError(error);
    if (config.failOpen) return undefined;
    throw storeUnavailableError(retryAfterSeconds(error), error);
  }

  /** Runs a store call; a failure becomes a 503, or `undefined` when failing open. */
  async function fromStore<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      return storeFailed(error);
    }
  }

  /**
   * Runs a store write now and, while it fails, again with backoff (up to 2 s apart) for as
   * long as the lock would live. Resolves after the first attempt; later ones go on in the
   * background.
   */
  function persist(write: () => Promise<void>, report: boolean): Promise<void> {
    const deadline = Date.now() + config.lockTtlMs;
    const attempt = (delay: number): Promise<void> =>
      write().then(undefined, (error: unknown) => {
        if (report) config.onStoreError(error);
        if (Date.now() + delay >= deadline) return;
        setTimeout(() => void attempt(Math.min(delay * 2, 2_000)), delay).unref();
      });
    return attempt(100);
  }

  /** The stored outcome of a run: its response, or, after a failure worth retrying, nothing. */
  function outcomeWrite(attempt: Attempt, captured: CapturedResponse): () => Promise<void> {
    const { key, lock } = attempt;
    return releasesId(captured.status, attempt.res)
      ? () => store.release(key, lock.token)
      : () =>
          store.complete(key, {
            token: lock.token,
            fingerprint: lock.fingerprint,
            response: captured,
            ttlMs: config.ttlMs,
          });
  }

  /**
   * Stores the outcome, retrying while the lock would still be ours, so that a short store
   * outage after the handler ran does not make the id runnable again. The response waits for
   * the first attempt: a repeat sent after the response then finds the outcome stored. The
   * memory store has stored it when its call returns: nothing to wait for.
   */
  const sink: CaptureSink<Attempt> = {
    maxBodyBytes: config.maxBodyBytes,
    // Lower case: Node's `removeHeader` lower-cases the name it is given, twice per create
    // here, and a name already in lower case comes back as the same string (no new string, and
    // a key V8 has already internalized).
    stripHeader: config.replayedHeader.toLowerCase(),
    onEnd(attempt, captured) {
      // Only attempts that took their lock are captured, and every such one is held.
      renewer?.drop(attempt);
      if (synchronous !== undefined) {
        try {
          if (releasesId(captured.status, attempt.res))
            synchronous.release(attempt.key, attempt.lock.token);
          else {
            synchronous.complete(attempt.key, {
              token: attempt.lock.token,
              fingerprint: attempt.lock.fingerprint,
              response: captured,
              ttlMs: config.ttlMs,
            });
          }
          return undefined;
        } catch {
          // Retried through the store's promise, as for any other store.
        }
      }
      return persist(outcomeWrite(attempt, captured), true);
    },
  };

  /**
   * What to do with the store's answer: run the handler (the lock is ours), replay, refuse, or
   * `undefined`: wait for the run in flight.
   */
  function decide(
    req: IdempotentRequest,
    res: ServerResponse,
    attempt: Attempt,
    result: AcquireResult,
  ): Outcome | undefined {
    if (result.state === 'acquired') {
      captureResponse(res, sink, replayHeadersFor(req).keep, attempt);
      if (renewer !== undefined) {
        attempt.renewedAt = Date.now();
        renewer.hold(attempt);
      }
      return 'next';
    }
    if (result.fingerprint !== attempt.lock.fingerprint) throw reusedIdError(attempt.target);
    if (result.state === 'completed') {
      if (result.response.body === null) {
        throw notReplayableError(attempt.target, result.response.status);
      }
      replay(res, result.response, replayHeadersFor(req).names, config);
      return 'done';
    }
    if (!config.waitForInFlight) throw inProgressError(attempt.target, config.retryAfterSeconds);
    return undefined;
  }

  /**
   * A failed acquire may still have taken the lock (Redis ran the script but answered after
   * `commandTimeoutMs`, or a replica got it before its primary died): give it back, retrying
   * until the store is back, or every retry would get 409 until `lockTtlMs` passes. The
   * release only removes a lock holding this attempt's token, whose handler never ran.
   */
  function acquire(attempt: Attempt): Promise<AcquireResult> {
    const { key, lock } = attempt;
    return store.acquire(key, lock).catch((error: unknown) => {
      giveBack(attempt);
      throw error;
    });
  }

  function giveBack(attempt: Attempt): void {
    void persist(() => store.release(attempt.key, attempt.lock.token), false);
  }

  /**
   * Takes the lock through the store's promise and decides. A promise chain, not an async
   * function: each async layer adds a promise and microtask turns to every request.
   */
  function lockAsync(
    req: IdempotentRequest,
    res: ServerResponse,
    attempt: Attempt,
  ): Promise<Outcome> {
    let acquired: Promise<AcquireResult>;
    try {
      acquired = store.acquire(attempt.key, attempt.lock);
    } catch (error) {
      acquired = Promise.reject(error);
    }
    return acquired.then(
      (result) => decide(req, res, attempt, result) ?? waitForRun(req, res, attempt, result),
      (error: unknown) => {
        giveBack(attempt);
        return storeFailed(error) ?? 'next';
      },
    );
  }

  /** Polls the store while the run holding the lock is in flight (`waitForInFlight`). */
  async function waitForRun(
    req: IdempotentRequest,
    res: ServerResponse,
    attempt: Attempt,
    first: AcquireResult,
  ): Promise<Outcome> {
    let result: AcquireResult | undefined = first;
    const deadline = Date.now() + config.waitTimeoutMs;
    let pollMs = 10;
    // Each turn either returns, throws, or sleeps; the wait is bounded by `waitTimeoutMs`.
    for (;;) {
      if (result === undefined) return 'next'; // store down, failing open
      const decided = decide(req, res, attempt, result);
      if (decided !== undefined) return decided;
      const remaining = deadline - Date.now();
      if (remaining <= 0) throw inProgressError(attempt.target, config.retryAfterSeconds);
      await sleep(Math.min(pollMs, remaining));
      pollMs = Math.min(pollMs * 2, 200);
      result = await fromStore(async () => (await store.get(attempt.key)) ?? acquire(attempt));
    }
  }

  function lock(
    req: IdempotentRequest,
    res: ServerResponse,
    target: string,
    key: string,
    fingerprint: string,
  ): Outcome | Promise<Outcome> {
    const attempt = new Attempt(
      target,
      key,
      { token: attemptToken(), fingerprint, lockTtlMs: config.lockTtlMs },
      res,
    );
    if (synchronous === undefined) return lockAsync(req, res, attempt);
    let result: AcquireResult;
    try {
      result = synchronous.acquire(key, attempt.lock);
    } catch (error) {
      // As `lockAsync` does with a rejected promise.
      giveBack(attempt);
      return storeFailed(error) ?? 'next';
    }
    return decide(req, res, attempt, result) ?? waitForRun(req, res, attempt, result);
  }

  function fingerprinted(
    req: IdempotentRequest,
    res: ServerResponse,
    target: string,
    key: string,
  ): Outcome | Promise<Outcome> {
    const fingerprint = config.fingerprint(req);
    // Awaited only when the callback answers a promise: the common request is handled without
    // a turn of the microtask queue.
    return isThenable(fingerprint)
      ? fingerprint.then((value) => lock(req, res, target, key, value))
      : lock(req, res, target, key, fingerprint);
  }

  /** The outcome, or its promise; throws the error to answer. */
  function handle(req: IdempotentRequest, res: ServerResponse): Outcome | Promise<Outcome> {
    const read = readRequestId(req);
    if (read.kind === 'absent') {
      if (config.required) throw requiredIdError(config.header);
      return 'next';
    }
    if (read.kind !== 'found') {
      throw read.kind === 'invalid'
        ? invalidIdError(read.source, config.maxIdLength)
        : ambiguousIdError(read.source);
    }
    const { id, source } = read;
    const principal = config.principal(req);
    return isThenable(principal)
      ? principal.then((value) => fingerprinted(req, res, source, keyOf(value ?? '', id)))
      : fingerprinted(req, res, source, keyOf(principal ?? '', id));
  }

  function settled(outcome: Outcome, next: Next): void {
    if (outcome === 'next') next();
  }

  // `req` is typed as Node's request: a `body?: unknown` here would make Express infer `unknown`
  // for `req.body` in every handler mounted after this middleware.
  return function serviceRequestIdempotencyMiddleware(
    req: IncomingMessage,
    res: ServerResponse,
    next: Next,
  ): void {
    if (!config.methods.has(req.method ?? '')) {
      next();
      return;
    }
    let outcome: Outcome | Promise<Outcome>;
    try {
      outcome = handle(req as IdempotentRequest, res);
    } catch (error) {
      next(error);
      return;
    }
    // `next` outside the `try`: an error thrown by a later handler is not this middleware's.
    if (typeof outcome === 'string') settled(outcome, next);
    else outcome.then((value) => settled(value, next), next);
  };
}
