/**
 * @module node-redis clients for tests, made as an app instance makes one: no offline queue (a
 * command sent while the connection is down fails at once instead of waiting for it), and an
 * `error` listener, since node-redis emits every connection failure as `error` and an emitter
 * without a listener throws it, which would end the test process when a test stops Redis.
 */
import { createClient } from 'redis';

/** The client `createClient` of `redis` returns. */
export type RedisClient = ReturnType<typeof createClient>;

export interface RedisClientOptions {
  /**
   * Reconnect after 20 ms, 40 ms, … up to 200 ms between attempts, instead of node-redis's
   * default back-off (up to 2 s plus jitter): a test that restarts Redis sees the client back
   * within a fraction of a second. @default false
   */
  readonly quickReconnect?: boolean;
}

/** Delay before reconnect attempt `retries + 1` with `quickReconnect`. */
function quickReconnectDelay(retries: number): number {
  return Math.min(20 * (retries + 1), 200);
}

/** A client of `url`, not yet connected (call `connect()`; the stores wait for `ready`). */
export function redisClient(url: string, options: RedisClientOptions = {}): RedisClient {
  const client = createClient({
    url,
    disableOfflineQueue: true,
    ...(options.quickReconnect === true
      ? { socket: { reconnectStrategy: quickReconnectDelay } }
      : {}),
  });
  client.on('error', () => undefined);
  return client;
}

/** A client of `url`, connected: resolves once it is ready for commands. */
export async function connectedRedisClient(
  url: string,
  options: RedisClientOptions = {},
): Promise<RedisClient> {
  const client = redisClient(url, options);
  await client.connect();
  return client;
}

/** The clients a suite made, destroyed together in its `afterAll`. */
export interface RedisClients {
  /** A connected client (`connectedRedisClient`), destroyed by `destroyAll()`. */
  connect(): Promise<RedisClient>;
  /** A client not yet connected (`redisClient`), destroyed by `destroyAll()`. */
  create(): RedisClient;
  /** Every client made so far and not yet destroyed. */
  all(): readonly RedisClient[];
  /** Destroys every client made so far (their sockets closed, pending commands failed). */
  destroyAll(): void;
}

/**
 * Clients of the Redis at `url()` (read when a client is made: a suite's server starts in its
 * `beforeAll`), each with `options`, kept for one `destroyAll()` at the end of the suite.
 */
export function redisClients(url: () => string, options: RedisClientOptions = {}): RedisClients {
  const made: RedisClient[] = [];
  return {
    async connect() {
      const client = await connectedRedisClient(url(), options);
      made.push(client);
      return client;
    },
    create() {
      const client = redisClient(url(), options);
      made.push(client);
      return client;
    },
    all() {
      return made;
    },
    destroyAll() {
      for (const client of made.splice(0)) client.destroy();
    },
  };
}
