/**
 * @module One Redis per suite: a `redis-server` (or a Redis Cluster) started in the suite's
 * `beforeAll`, and the clients the suite made destroyed before it is closed in its `afterAll`.
 * Call these inside a `describe` (`describe.skipIf(!hasRedisServer())`, so a skipped suite starts
 * nothing).
 */
import { afterAll, beforeAll } from 'vitest';
import { type RedisClientOptions, type RedisClients, redisClients } from './redis-client.js';
import { type RedisCluster, startRedisCluster } from './redis-cluster.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

/** What `useRedisServer` gives a suite. */
export interface RedisServerSuite {
  /** The suite's `redis-server`; read it in a hook or a test (it starts in `beforeAll`). */
  readonly server: RedisServer;
  /** Clients of `server`, made with the options given; destroyed in `afterAll`. */
  readonly clients: RedisClients;
}

/** What `useRedisCluster` gives a suite. */
export interface RedisClusterSuite<Client> {
  /** The suite's Redis Cluster; read it in a hook or a test (it starts in `beforeAll`). */
  readonly cluster: RedisCluster;
  /** A connected client of `cluster` (made by the suite's `connect`), destroyed in `afterAll`. */
  connect(): Promise<Client>;
}

/** Registers the hooks of one Redis for the suite; `started()` reads it outside them. */
function useStarted<Started extends { close(): Promise<void> }>(
  what: string,
  start: () => Promise<Started>,
  destroyClients: () => void,
  startTimeoutMs: number | undefined,
): () => Started {
  let started: Started | undefined;
  beforeAll(async () => {
    started = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    destroyClients();
    await started?.close();
  });
  return () => {
    if (started === undefined) {
      throw new Error(`the suite's ${what} starts in beforeAll: read it in a hook or a test`);
    }
    return started;
  };
}

/**
 * A `redis-server` for the enclosing suite: started in `beforeAll`, and closed in `afterAll`
 * after every client of `clients` (each made with `options`) is destroyed.
 */
export function useRedisServer(options: RedisClientOptions = {}): RedisServerSuite {
  const clients = redisClients(() => server().url, options);
  const server = useStarted(
    'redis-server',
    startRedisServer,
    () => clients.destroyAll(),
    undefined,
  );
  return {
    get server() {
      return server();
    },
    clients,
  };
}

/**
 * A Redis Cluster for the enclosing suite (`startRedisCluster`, given 60 s to start): started in
 * `beforeAll`, and closed in `afterAll` after every client made by the returned `connect()` (with
 * the suite's `connect`) is destroyed.
 */
export function useRedisCluster<Client extends { destroy(): void }>(
  connect: (cluster: RedisCluster) => Promise<Client>,
): RedisClusterSuite<Client> {
  const made: Client[] = [];
  const cluster = useStarted(
    'Redis Cluster',
    startRedisCluster,
    () => {
      for (const client of made.splice(0)) client.destroy();
    },
    60_000,
  );
  return {
    get cluster() {
      return cluster();
    },
    async connect() {
      const client = await connect(cluster());
      made.push(client);
      return client;
    },
  };
}
