/**
 * @module The Redis store: locks and responses shared by every app instance, on one Redis
 * endpoint or on a Redis Cluster. Lock, completion and release each run as one Lua script on
 * the node holding the id (see redis-scripts.ts), and every entry expires by TTL.
 *
 * Keys: `<prefix>{<bucket>}:<key>` for an entry, `<prefix>{<bucket>}epoch` and
 * `<prefix>{<bucket>}fence` for the loss detection of its bucket. The hash tag `{<bucket>}`
 * puts the three in one slot, so a script never crosses slots on a cluster; the 1024 buckets
 * (a hash of the key) spread ids over 1024 slots, hence over every primary.
 */
import { hash } from 'node:crypto';
import {
  assertKnownOptions,
  assertOptionsObject,
  functionOption,
  invalidOption,
  MAX_TIMER_MS,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import { checkRedisConfig } from './redis-config-check.js';
import {
  type Connection,
  clientConnection,
  clusterConnection,
  type RedisClientLike,
  type RedisClusterLike,
  RedisStoreUnavailableError,
} from './redis-connection.js';
import { SCRIPTS, type Script } from './redis-scripts.js';
import type {
  AcquireResult,
  Completion,
  IdempotencyStore,
  LockRequest,
  StoredResponse,
  StoreEntry,
} from './types.js';

export {
  type RedisClientLike,
  type RedisClusterLike,
  RedisStoreUnavailableError,
} from './redis-connection.js';

export interface RedisStoreOptions {
  /** A node-redis client for one endpoint: `createClient({ url })` (Sentinel: see the README). */
  client?: RedisClientLike;
  /** A node-redis Redis Cluster client: `createCluster({ rootNodes })`. Give `client` or `cluster`. */
  cluster?: RedisClusterLike;
  /** Prefix of every key. @default 'resourceful:idempotency:' */
  prefix?: string;
  /**
   * Milliseconds a command may take before the store counts Redis as unreachable (the
   * middleware then answers 503 rather than letting the request hang). @default 1000
   */
  commandTimeoutMs?: number;
  /**
   * Replicas that must acknowledge a lock (`WAIT numreplicas timeout`) before the handler runs,
   * and a completion before it counts as stored. A lock not acknowledged in time is given back
   * and the request answered 503 (fail closed). 0 does not wait. @default 0
   */
  replicas?: number;
  /** The `WAIT` timeout, in ms; less than `commandTimeoutMs`. @default 100 */
  replicasTimeoutMs?: number;
  /**
   * When the store finds that Redis lost what it stored (restarted empty, flushed, evicted), it
   * refuses every id for this long (503), on every app instance, rather than run a retry of a
   * request whose record was lost. 0 turns the detection off. @default 60000
   */
  dataLossWindowMs?: number;
  /**
   * Called once with a one-line warning when the Redis configuration cannot hold the
   * guarantee (no append-only persistence, or an eviction policy), or cannot be read.
   * @default console.warn
   */
  onWarning?: (message: string) => void;
}

export const DEFAULT_REDIS_PREFIX = 'resourceful:idempotency:';

/** Loss-detection buckets: each holds one epoch marker, and is one hash tag (one slot). */
const BUCKETS = 1024;

/** Most bucket tags kept between a lock and its completion (see `pendingTags`). */
const MAX_PENDING_TAGS = 10_000;

const OPTION_NAMES = [
  'client',
  'cluster',
  'prefix',
  'commandTimeoutMs',
  'replicas',
  'replicasTimeoutMs',
  'dataLossWindowMs',
  'onWarning',
] as const satisfies readonly (keyof RedisStoreOptions)[];

const FACTORY = 'redisStore';

function integer(
  name: string,
  value: unknown,
  fallback: number,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min || value > max) {
    invalidOption(
      FACTORY,
      name,
      max === Number.MAX_SAFE_INTEGER
        ? `an integer of at least ${min}`
        : `an integer from ${min} to ${max}`,
      value,
    );
  }
  return value;
}

function parseHeaders(text: unknown): Record<string, string | string[]> {
  if (typeof text !== 'string') return {};
  const parsed: unknown = JSON.parse(text);
  const headers: Record<string, string | string[]> = {};
  if (typeof parsed !== 'object' || parsed === null) return headers;
  for (const [name, value] of Object.entries(parsed)) {
    if (typeof value === 'string') headers[name] = value;
    else if (Array.isArray(value)) headers[name] = value.map(String);
  }
  return headers;
}

const ACQUIRED: AcquireResult = Object.freeze({ state: 'acquired' });

/** `detected`: called when this reply is the one that detected a data loss. */
function toEntry(
  reply: unknown,
  detected: (windowMs: number, endsAt: string) => void,
): AcquireResult | undefined {
  if (!Array.isArray(reply)) throw new Error('Redis store: unexpected reply');
  const [state, fingerprint, third, headers, body] = reply as unknown[];
  if (state === 'a') return ACQUIRED;
  if (state === 'n') return undefined;
  if (state === 'e') {
    const retryAfterMs = Math.max(0, Number(fingerprint));
    if (third === 'd') detected(retryAfterMs, String(headers));
    throw new RedisStoreUnavailableError(
      `Redis lost the stored ids (restarted empty, flushed or evicted); ids are refused for ${retryAfterMs} ms more`,
      { retryAfterMs },
    );
  }
  if (state === 'l') {
    return {
      state: 'in-flight',
      fingerprint: String(fingerprint),
      expiresInMs: Math.max(0, Number(third)),
    };
  }
  const response: StoredResponse = {
    status: Number(third),
    headers: parseHeaders(headers),
    body: typeof body === 'string' ? Buffer.from(body, 'base64') : null,
  };
  return { state: 'completed', fingerprint: String(fingerprint), response };
}

function ignore(): void {}

/** Clients that already have this package's 'error' listener (one per client, not per store). */
const guarded = new WeakSet<object>();

type Emitter = RedisClientLike | RedisClusterLike;

/** The stores of one client not started yet, and the one listener that starts them. */
interface Waiting {
  readonly starts: Set<() => void>;
  readonly listener: () => void;
}

/**
 * Per client (or cluster client), the stores waiting for it to connect. One listener per
 * client whatever the number of stores on it: a listener per store made the twelfth store on
 * a client trip Node's `MaxListenersExceededWarning` (the limit is 10), and kept every store
 * ever made on that client alive through its listener. Weak: a client dropped by the app
 * takes its entry along.
 */
const waitingOn = new WeakMap<object, Waiting>();

/**
 * Calls `start` whenever `emitter` emits `event`, until the returned function is called. When
 * the last store of a client stops waiting, the client's listener is removed (a client
 * without `off` keeps it, empty, and reuses it for the next store).
 */
function whenConnected(
  emitter: Emitter,
  event: 'ready' | 'connect',
  start: () => void,
): () => void {
  if (typeof emitter.on !== 'function') return ignore;
  let waiting = waitingOn.get(emitter);
  if (waiting === undefined) {
    const starts = new Set<() => void>();
    const listener = () => {
      // A copy: a store that starts at once leaves the set while it is walked.
      for (const each of [...starts]) each();
    };
    waiting = { starts, listener };
    waitingOn.set(emitter, waiting);
    (emitter.on as (event: string, listener: () => void) => unknown).call(emitter, event, listener);
  }
  const { starts, listener } = waiting;
  starts.add(start);
  return function stopWaiting() {
    if (!starts.delete(start) || starts.size > 0 || typeof emitter.off !== 'function') return;
    waitingOn.delete(emitter);
    (emitter.off as (event: string, listener: () => void) => unknown).call(
      emitter,
      event,
      listener,
    );
  };
}

export function redisStore(options: RedisStoreOptions): IdempotencyStore {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, OPTION_NAMES);
  const { client, cluster } = options;
  if ((client === undefined) === (cluster === undefined)) {
    throw optionError(
      client === undefined
        ? OPTION_ERROR_CODES.missingOption
        : OPTION_ERROR_CODES.conflictingOptions,
      FACTORY,
      'pass exactly one of "client" (createClient({ url }) from "redis") and "cluster" (createCluster({ rootNodes })).',
      'client',
    );
  }
  if (client !== undefined && typeof client?.sendCommand !== 'function') {
    invalidOption(
      FACTORY,
      'client',
      'a Redis client with sendCommand(), e.g. createClient({ url }) from "redis"',
      client,
    );
  }
  if (cluster !== undefined && typeof cluster?.sendCommand !== 'function') {
    invalidOption(
      FACTORY,
      'cluster',
      'a Redis Cluster client, e.g. createCluster({ rootNodes }) from "redis"',
      cluster,
    );
  }
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  if (typeof prefix !== 'string' || /[{}]/.test(prefix)) {
    invalidOption(
      FACTORY,
      'prefix',
      'a string without "{" or "}" (the store sets the hash tag)',
      prefix,
    );
  }
  // A Node timer waits at most MAX_TIMER_MS: a longer deadline would fire after 1 ms, again
  // and again, while a command is in flight.
  const timeoutMs = integer('commandTimeoutMs', options.commandTimeoutMs, 1000, 1, MAX_TIMER_MS);
  const replicas = integer('replicas', options.replicas, 0, 0);
  const replicasTimeoutMs = integer('replicasTimeoutMs', options.replicasTimeoutMs, 100, 1);
  if (replicas > 0 && replicasTimeoutMs >= timeoutMs) {
    throw optionError(
      OPTION_ERROR_CODES.conflictingOptions,
      FACTORY,
      `"replicasTimeoutMs" (${replicasTimeoutMs}) must be less than "commandTimeoutMs" (${timeoutMs}).`,
      'replicasTimeoutMs',
    );
  }
  const dataLossWindowMs = integer('dataLossWindowMs', options.dataLossWindowMs, 60_000, 0);
  const onWarning =
    functionOption(FACTORY, 'onWarning', options.onWarning, 'a function (message) => void') ??
    ((message: string) => console.warn(message));

  const emitter = (client ?? cluster) as RedisClientLike | RedisClusterLike;
  // An EventEmitter's 'error' without a listener throws: without this, losing Redis would
  // crash the process instead of giving 503s. The failures surface per command anyway.
  if (!guarded.has(emitter)) {
    guarded.add(emitter);
    emitter.on?.('error', () => undefined);
  }
  const connection: Connection =
    client !== undefined
      ? clientConnection(client, timeoutMs)
      : clusterConnection(cluster as RedisClusterLike, timeoutMs);

  const bucketTag = (bucket: number) => `${prefix}{${bucket}}`;
  function tagOf(key: string): string {
    return bucketTag(hash('sha256', key, 'buffer').readUInt16BE(0) % BUCKETS);
  }
  // The tags of the keys locked here and not yet completed or released: a create asks for its
  // key's tag twice (lock, completion), and the tag, a SHA-256, is a pure function of the key,
  // so the second time it is looked up, not hashed again. Bounded: emptied when it would grow
  // past `MAX_PENDING_TAGS` (keys of requests whose answer never ended).
  const pendingTags = new Map<string, string>();
  function keysOf(key: string, tag = tagOf(key)): [entry: string, epoch: string, fence: string] {
    // The ':' keeps an entry apart from the markers whatever the key ("epoch" included).
    return [`${tag}:${key}`, `${tag}epoch`, `${tag}fence`];
  }
  function entryOf(key: string): string {
    const tag = pendingTags.get(key);
    if (tag === undefined) return `${tagOf(key)}:${key}`;
    pendingTags.delete(key);
    return `${tag}:${key}`;
  }

  // Plain promise chains rather than async functions here: each async layer adds a promise and
  // turns of the microtask queue to every command.
  function send(key: string, args: string[]): Promise<unknown> {
    if (!connection.ready()) {
      return Promise.reject(new RedisStoreUnavailableError('The Redis client is not connected'));
    }
    let sent: Promise<unknown>;
    try {
      sent = connection.send(key, args);
    } catch (error) {
      connection.failed(error);
      return Promise.reject(error);
    }
    return sent.then(undefined, (error: unknown) => {
      connection.failed(error);
      throw error;
    });
  }

  function run(script: Script, keys: readonly string[], args: readonly string[]) {
    const command = ['EVALSHA', script.sha, String(keys.length), ...keys, ...args];
    const first = keys[0] as string;
    if (!connection.ready()) {
      return Promise.reject(new RedisStoreUnavailableError('The Redis client is not connected'));
    }
    let sent: Promise<unknown>;
    try {
      sent = connection.send(first, command);
    } catch (error) {
      connection.failed(error);
      return Promise.reject(error);
    }
    // One rejection handler for both cases (a promise fewer per command than `send`'s).
    return sent.then(undefined, (error: unknown) => {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) {
        connection.failed(error);
        throw error;
      }
      return send(first, ['EVAL', script.source, ...command.slice(2)]);
    });
  }

  /** `WAIT`: throws unless `replicas` replicas have every write so far on the key's node. */
  async function awaitReplicas(key: string): Promise<void> {
    if (replicas === 0) return;
    const acknowledged = Number(
      await send(key, ['WAIT', String(replicas), String(replicasTimeoutMs)]),
    );
    if (acknowledged < replicas) {
      throw new RedisStoreUnavailableError(
        `${acknowledged} of ${replicas} Redis replicas acknowledged within ${replicasTimeoutMs} ms`,
      );
    }
  }

  /**
   * On construction, or on first use while Redis was unreachable until then: write every bucket's epoch marker when it is absent, and check
   * the server's configuration once. Done once per store, never after a reconnect: a marker
   * that disappears later is the sign of a loss. Until it succeeds, every call retries it.
   */
  let started: Promise<void> | undefined;
  let initialized = false;
  function start(): Promise<void> {
    started ??= (async () => {
      const writes: Promise<unknown>[] = [];
      for (let bucket = 0; bucket < BUCKETS; bucket++) {
        const epoch = `${bucketTag(bucket)}epoch`;
        writes.push(send(epoch, ['SET', epoch, new Date().toISOString(), 'NX']));
      }
      await Promise.all(writes);
      const warning = await checkRedisConfig((args) => send(`${bucketTag(0)}epoch`, args));
      if (warning !== undefined) onWarning(warning);
      initialized = true;
      // Started for good: the client's connections are no longer this store's business.
      stopWaiting();
    })().catch((error: unknown) => {
      started = undefined;
      throw error;
    });
    return started;
  }

  // "On connect": at once when the client is connected, else when it connects (or on the
  // first call, whichever comes first). Never again once done.
  const initialize = () => {
    if (!initialized) start().catch(ignore);
  };
  const stopWaiting = whenConnected(
    emitter,
    client !== undefined ? 'ready' : 'connect',
    initialize,
  );
  initialize();

  /**
   * A loss was just detected (a bucket's epoch marker was missing): fence every other bucket
   * whose marker is missing too, until the same end, at once. Without this, each bucket would
   * raise a full window of its own when first touched, and with light traffic fresh ids would
   * keep meeting fresh fences long after the window. One script per bucket (a script touches one
   * slot; the cluster client sends each to its node), all at once, once per detection. Failures
   * are left alone: such a bucket raises its own fence when touched, as before.
   */
  let rearming = false;
  function rearm(windowMs: number, endsAt: string): void {
    if (rearming) return;
    rearming = true;
    const detectedAt = Date.now();
    const fences: Promise<unknown>[] = [];
    for (let bucket = 0; bucket < BUCKETS; bucket++) {
      if (Date.now() - detectedAt >= windowMs) break;
      const tag = bucketTag(bucket);
      fences.push(run(SCRIPTS.rearm, [`${tag}epoch`, `${tag}fence`], [endsAt]).catch(ignore));
    }
    void Promise.all(fences).then(() => {
      rearming = false;
    });
  }

  /** Runs the lock script (a lookup only without `lock`); answers its reply. */
  function lookup(keys: readonly string[], lock: LockRequest | undefined): Promise<unknown> {
    const args = [
      lock?.token ?? '',
      lock?.fingerprint ?? '',
      String(lock?.lockTtlMs ?? 0),
      lock === undefined ? '0' : '1',
      String(dataLossWindowMs),
    ];
    // Once started, not waited for again: a `then` of a settled promise still costs a turn.
    return initialized
      ? run(SCRIPTS.acquire, keys, args)
      : start().then(() => run(SCRIPTS.acquire, keys, args));
  }

  /** Gives back a lock that `WAIT` could not confirm, then fails with `error`. */
  async function giveBack(entry: string, token: string, error: unknown): Promise<never> {
    await run(SCRIPTS.release, [entry], [token]).catch(() => undefined);
    throw error;
  }

  // The methods are promise chains rather than async functions: each async layer adds a
  // promise and turns of the microtask queue to every request.
  return {
    acquire(key: string, lock: LockRequest): Promise<AcquireResult> {
      const tag = tagOf(key);
      const keys = keysOf(key, tag);
      return lookup(keys, lock).then((reply) => {
        const entry = toEntry(reply, rearm);
        if (entry !== undefined && entry.state !== 'acquired') return entry;
        if (pendingTags.size >= MAX_PENDING_TAGS) pendingTags.clear();
        pendingTags.set(key, tag);
        if (replicas === 0) return ACQUIRED;
        return awaitReplicas(keys[0]).then(
          () => ACQUIRED,
          (error: unknown) => giveBack(keys[0], lock.token, error),
        );
      });
    },

    complete(key: string, completion: Completion): Promise<void> {
      const { response } = completion;
      const entry = entryOf(key);
      const stored = run(
        SCRIPTS.complete,
        [entry],
        [
          completion.token,
          completion.fingerprint,
          String(response.status),
          JSON.stringify(response.headers),
          response.body === null ? '0' : '1',
          response.body === null
            ? ''
            : Buffer.from(
                response.body.buffer,
                response.body.byteOffset,
                response.body.byteLength,
              ).toString('base64'),
          String(completion.ttlMs),
        ],
      );
      return replicas === 0 ? stored.then(ignore) : stored.then(() => awaitReplicas(entry));
    },

    release(key: string, token: string): Promise<void> {
      return run(SCRIPTS.release, [entryOf(key)], [token]).then(ignore);
    },

    renew(key: string, token: string, lockTtlMs: number): Promise<boolean> {
      // Not `entryOf`: the tag stays cached for the completion.
      const entry = `${pendingTags.get(key) ?? tagOf(key)}:${key}`;
      return run(SCRIPTS.renew, [entry], [token, String(lockTtlMs)]).then(
        (renewed) => Number(renewed) === 1,
      );
    },

    get(key: string): Promise<StoreEntry | undefined> {
      return lookup(keysOf(key), undefined).then((reply) => {
        const entry = toEntry(reply, rearm);
        return entry?.state === 'acquired' ? undefined : entry;
      });
    },
  };
}
