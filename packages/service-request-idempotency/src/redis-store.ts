/**
 * @module The Redis store: locks and responses shared by every app instance. Lock, completion
 * and release each run as one Lua script on the server, so no two instances can both take an
 * id (no read-then-write race), and every key expires by TTL.
 */
import { createHash } from 'node:crypto';
import type {
  AcquireResult,
  Completion,
  IdempotencyStore,
  LockRequest,
  StoredResponse,
  StoreEntry,
} from './types.js';

/**
 * The few members of a Redis client this store uses. A node-redis v4/v5 client from
 * `createClient()` fits; so does anything with a `sendCommand(args)` that answers RESP2 replies
 * as strings, numbers, arrays and null.
 */
export interface RedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  /** When present and false, commands fail at once instead of waiting in an offline queue. */
  readonly isReady?: boolean;
  on?(event: 'error', listener: (error: Error) => void): unknown;
}

export interface RedisStoreOptions {
  /** A connected client, for instance `await createClient({ url }).connect()`. */
  client: RedisClientLike;
  /** Prefix of every key. @default 'resourceful:idempotency:' */
  prefix?: string;
  /**
   * Milliseconds a command may take before the store counts Redis as unreachable (the
   * middleware then answers 503 rather than letting the request hang). @default 1000
   */
  commandTimeoutMs?: number;
}

export const DEFAULT_REDIS_PREFIX = 'resourceful:idempotency:';

/** Error for a command that did not run: client not ready, or no answer in time. */
export class RedisStoreUnavailableError extends Error {
  override readonly name = 'RedisStoreUnavailableError';
}

// Hash fields: s state ('l' lock, 'c' completed), t token, f fingerprint, st status,
// h headers (JSON), b body (base64; absent when not stored).

/** ARGV: token, fingerprint, lock TTL ms, write ('1') or read only ('0'). */
const ACQUIRE = `
local k = KEYS[1]
local s = redis.call('HGET', k, 's')
if s == 'l' then
  return {'l', redis.call('HGET', k, 'f'), redis.call('PTTL', k)}
elseif s then
  local v = redis.call('HMGET', k, 'f', 'st', 'h', 'b')
  return {'c', v[1], v[2], v[3], v[4]}
end
if ARGV[4] ~= '1' then return {'n'} end
redis.call('DEL', k)
redis.call('HSET', k, 's', 'l', 't', ARGV[1], 'f', ARGV[2])
redis.call('PEXPIRE', k, ARGV[3])
return {'a'}
`;

/** ARGV: token, fingerprint, status, headers, has body ('1'/'0'), body, TTL ms. */
const COMPLETE = `
local k = KEYS[1]
local s = redis.call('HGET', k, 's')
if s and (s ~= 'l' or redis.call('HGET', k, 't') ~= ARGV[1]) then return 0 end
redis.call('DEL', k)
redis.call('HSET', k, 's', 'c', 'f', ARGV[2], 'st', ARGV[3], 'h', ARGV[4])
if ARGV[5] == '1' then redis.call('HSET', k, 'b', ARGV[6]) end
redis.call('PEXPIRE', k, ARGV[7])
return 1
`;

/** ARGV: token. */
const RELEASE = `
local k = KEYS[1]
if redis.call('HGET', k, 's') == 'l' and redis.call('HGET', k, 't') == ARGV[1] then
  return redis.call('DEL', k)
end
return 0
`;

interface Script {
  readonly source: string;
  readonly sha: string;
}

function script(source: string): Script {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

const SCRIPTS = { acquire: script(ACQUIRE), complete: script(COMPLETE), release: script(RELEASE) };

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new RedisStoreUnavailableError(`Redis did not answer within ${ms} ms`)),
      ms,
    );
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
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

function toEntry(reply: unknown): AcquireResult | undefined {
  if (!Array.isArray(reply)) throw new Error('Redis store: unexpected reply');
  const [state, fingerprint, third, headers, body] = reply as unknown[];
  if (state === 'a') return { state: 'acquired' };
  if (state === 'n') return undefined;
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

/** Clients that already have this package's 'error' listener (one per client, not per store). */
const guarded = new WeakSet<RedisClientLike>();

export function redisStore(options: RedisStoreOptions): IdempotencyStore {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('redisStore: pass an options object: redisStore({ client })');
  }
  const known = new Set(['client', 'prefix', 'commandTimeoutMs']);
  for (const name of Object.keys(options)) {
    if (!known.has(name)) {
      throw new TypeError(
        `redisStore: unknown option "${name}"; expected one of client, prefix, commandTimeoutMs`,
      );
    }
  }
  const { client } = options;
  if (typeof client !== 'object' || client === null || typeof client.sendCommand !== 'function') {
    throw new TypeError(
      'redisStore: "client" must be a Redis client with sendCommand(), e.g. createClient({ url }) from "redis"',
    );
  }
  const prefix = options.prefix ?? DEFAULT_REDIS_PREFIX;
  if (typeof prefix !== 'string') throw new TypeError('redisStore: "prefix" must be a string');
  const timeoutMs = options.commandTimeoutMs ?? 1000;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1) {
    throw new TypeError(
      `redisStore: "commandTimeoutMs" must be a positive integer, got ${String(timeoutMs)}`,
    );
  }
  // An EventEmitter's 'error' without a listener throws: without this, losing Redis would
  // crash the process instead of giving 503s. The failures surface per command anyway.
  if (!guarded.has(client)) {
    guarded.add(client);
    client.on?.('error', () => undefined);
  }

  async function run(scriptToRun: Script, key: string, args: readonly string[]) {
    if (client.isReady === false) {
      throw new RedisStoreUnavailableError('The Redis client is not connected');
    }
    const tail = ['1', prefix + key, ...args];
    try {
      return await withTimeout(
        client.sendCommand(['EVALSHA', scriptToRun.sha, ...tail]),
        timeoutMs,
      );
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return withTimeout(client.sendCommand(['EVAL', scriptToRun.source, ...tail]), timeoutMs);
    }
  }

  return {
    async acquire(key: string, lock: LockRequest): Promise<AcquireResult> {
      const reply = await run(SCRIPTS.acquire, key, [
        lock.token,
        lock.fingerprint,
        String(lock.lockTtlMs),
        '1',
      ]);
      return toEntry(reply) ?? { state: 'acquired' };
    },

    async complete(key: string, completion: Completion): Promise<void> {
      const { response } = completion;
      await run(SCRIPTS.complete, key, [
        completion.token,
        completion.fingerprint,
        String(response.status),
        JSON.stringify(response.headers),
        response.body === null ? '0' : '1',
        response.body === null ? '' : Buffer.from(response.body).toString('base64'),
        String(completion.ttlMs),
      ]);
    },

    async release(key: string, token: string): Promise<void> {
      await run(SCRIPTS.release, key, [token]);
    },

    async get(key: string): Promise<StoreEntry | undefined> {
      const entry = toEntry(await run(SCRIPTS.acquire, key, ['', '', '0', '0']));
      return entry?.state === 'acquired' ? undefined : entry;
    },
  };
}
