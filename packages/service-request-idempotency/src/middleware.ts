/**
 * @module The middleware: a POST with `Service-Request-Id` runs once; repeats get the stored
 * response. Semantics the spec does not show follow the IETF httpapi draft "The Idempotency-Key
 * HTTP Header Field".
 * @see https://datatracker.ietf.org/doc/draft-ietf-httpapi-idempotency-key-header/
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorSettingsFor } from '@resourceful/error-envelope';
import { type CapturedResponse, captureResponse } from './capture.js';
import {
  ambiguousIdError,
  inProgressError,
  invalidIdError,
  notReplayableError,
  requiredIdError,
  reusedIdError,
  storeUnavailableError,
} from './errors.js';
import { settlesSynchronously } from './memory-store.js';
import {
  type IdempotentRequest,
  type ResolvedOptions,
  resolveOptions,
  type ServiceRequestIdempotencyOptions,
} from './options.js';
import { readRequestId } from './request-id.js';
import { scopedKey } from './scope.js';
import type { AcquireResult, StoredResponse } from './types.js';

type Next = (err?: unknown) => void;

/**
 * Statuses after which the id stays usable: server failures, and refusals that say "try again"
 * (408 Request Timeout, 429 Too Many Requests). Everything else is stored and replayed.
 */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || status === 408 || status === 429;
}

/** Statuses whose responses carry no body, so no `Content-Length` either (RFC 9110 §8.6). */
function hasNoBody(status: number): boolean {
  return status < 200 || status === 204 || status === 304;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface ReplayHeaders {
  /** Lower-case name → name as sent on a replay. */
  readonly names: ReadonlyMap<string, string>;
  /** The lower-case names, as the capture looks them up. */
  readonly keep: ReadonlySet<string>;
}

function replayHeadersOf(names: ReadonlyMap<string, string>): ReplayHeaders {
  return { names, keep: new Set(names.keys()) };
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
  return function replayHeadersFor(req) {
    const { codeHeader } = errorSettingsFor(req);
    if (codeHeader === false) return configured;
    const lower = codeHeader.toLowerCase();
    if (lower === config.replayedHeader.toLowerCase()) return configured;
    let found = byCodeHeader.get(codeHeader);
    if (found === undefined) {
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

/**
 * Makes POST idempotent by `Service-Request-Id`. Mount it after the body parser and before
 * the create handlers: `app.post('/v1/things', serviceRequestIdempotency(), createThing)`.
 */
export function serviceRequestIdempotency(options: ServiceRequestIdempotencyOptions = {}) {
  const config = resolveOptions(options);
  const { store } = config;
  const replayHeadersFor = replayHeadersFinder(config);
  // The memory store has stored the outcome when `complete` returns (its promise only reports
  // it): the response need not be held back until the promise settles.
  const storesBeforeReturning = settlesSynchronously(store);

  /** A store that knows how long it stays unavailable (`retryAfterMs`) sets `Retry-After`. */
  function retryAfterSeconds(error: unknown): number {
    const ms = (error as { retryAfterMs?: unknown } | null)?.retryAfterMs;
    return typeof ms === 'number' && Number.isFinite(ms) && ms > 0
      ? Math.max(config.retryAfterSeconds, Math.ceil(ms / 1000))
      : config.retryAfterSeconds;
  }

  /** Runs a store call; a failure becomes a 503, or `undefined` when failing open. */
  async function fromStore<T>(call: () => Promise<T>): Promise<T | undefined> {
    try {
      return await call();
    } catch (error) {
      config.onStoreError(error);
      if (config.failOpen) return undefined;
      throw storeUnavailableError(retryAfterSeconds(error), error);
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

  /**
   * Stores the outcome, retrying while the lock would still be ours, so that a short store
   * outage after the handler ran does not make the id runnable again. The response waits for
   * the first attempt: a repeat sent after the response then finds the outcome stored.
   */
  function settle(
    key: string,
    token: string,
    fingerprint: string,
    captured: CapturedResponse,
  ): Promise<void> {
    return persist(
      () =>
        isRetryableStatus(captured.status)
          ? store.release(key, token)
          : store.complete(key, { token, fingerprint, response: captured, ttlMs: config.ttlMs }),
      true,
    );
  }

  async function handle(req: IdempotentRequest, res: ServerResponse): Promise<'next' | 'done'> {
    const read = readRequestId(req, {
      names: config.idNames,
      query: config.query,
      maxLength: config.maxIdLength,
    });
    if (read.kind === 'absent') {
      if (config.required) throw requiredIdError(config.header);
      return 'next';
    }
    if (read.kind !== 'found') {
      throw read.kind === 'invalid'
        ? invalidIdError(read.source, config.maxIdLength)
        : ambiguousIdError(read.source);
    }

    const target = read.source;
    // Awaited only when a callback answers a promise: an `await` of a plain value still costs
    // a turn of the microtask queue.
    const principal = config.principal(req);
    const key = scopedKey((isThenable(principal) ? await principal : principal) ?? '', read.id);
    const fingerprinted = config.fingerprint(req);
    const fingerprint = isThenable(fingerprinted) ? await fingerprinted : fingerprinted;
    const token = randomUUID();
    const lock = { token, fingerprint, lockTtlMs: config.lockTtlMs };
    // A failed acquire may still have taken the lock (Redis ran the script but answered after
    // `commandTimeoutMs`, or a replica got it before its primary died): give it back, retrying
    // until the store is back, or every retry would get 409 until `lockTtlMs` passes. The
    // release only removes a lock holding this attempt's token, whose handler never ran.
    const acquire = () =>
      store.acquire(key, lock).catch((error: unknown) => {
        void persist(() => store.release(key, token), false);
        throw error;
      });

    let result: AcquireResult | undefined = await fromStore(acquire);
    const deadline = Date.now() + config.waitTimeoutMs;
    let pollMs = 10;
    // Each turn either returns, throws, or sleeps; the wait is bounded by `waitTimeoutMs`.
    for (;;) {
      if (result === undefined) return 'next'; // store down, failing open
      if (result.state === 'acquired') {
        captureResponse(res, {
          maxBodyBytes: config.maxBodyBytes,
          keepHeaders: replayHeadersFor(req).keep,
          stripHeader: config.replayedHeader,
          onEnd: (captured) => {
            const stored = settle(key, token, fingerprint, captured);
            return storesBeforeReturning ? undefined : stored;
          },
        });
        return 'next';
      }
      if (result.fingerprint !== fingerprint) throw reusedIdError(target);
      if (result.state === 'completed') {
        if (result.response.body === null) throw notReplayableError(target, result.response.status);
        replay(res, result.response, replayHeadersFor(req).names, config);
        return 'done';
      }
      const remaining = deadline - Date.now();
      if (!config.waitForInFlight || remaining <= 0) {
        throw inProgressError(target, config.retryAfterSeconds);
      }
      await sleep(Math.min(pollMs, remaining));
      pollMs = Math.min(pollMs * 2, 200);
      result = await fromStore(async () => (await store.get(key)) ?? acquire());
    }
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
    handle(req as IdempotentRequest, res).then(
      (outcome) => {
        if (outcome === 'next') next();
      },
      (error: unknown) => next(error),
    );
  };
}
