import { randomUUID } from 'node:crypto';
import {
  hasRedisServer,
  type RedisClient,
  useRedisServer,
  waitFor,
} from '@resourceful/test-support';
import { createCluster } from 'redis';
import { describe, expect, it } from 'vitest';
import { type IdempotencyStore, redisStore, serviceRequestIdempotency } from '../src/index.js';

const quiet = () => undefined;

/** Stores starting on a busy machine (1024 markers each): room beyond the default 20 s. */
const STARTS_TIMEOUT_MS = 60_000;

/** Node's process warnings emitted while `work` runs, by name. */
async function warningsDuring(work: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const record = (warning: Error) => seen.push(`${warning.name}: ${warning.message}`);
  process.on('warning', record);
  try {
    await work();
    // Node emits process warnings on the next tick.
    await new Promise((resolve) => setImmediate(resolve));
  } finally {
    process.off('warning', record);
  }
  return seen;
}

/** The listeners `client` has for each of the events the store listens to. */
function listenerCounts(client: RedisClient): Record<string, number> {
  return Object.fromEntries(
    ['error', 'ready', 'connect'].map((event) => [event, client.listenerCount(event)]),
  );
}

describe.skipIf(!hasRedisServer())('many stores on one Redis client', () => {
  const redis = useRedisServer();
  const { clients } = redis;
  const connect = clients.connect;

  /** `count` stores (and middlewares over them) on `client`, each started. */
  async function stores(client: RedisClient, count: number): Promise<IdempotencyStore[]> {
    const made: IdempotencyStore[] = [];
    for (let index = 0; index < count; index++) {
      // Each store writes 1024 epoch markers when it starts: time enough on a busy machine.
      const store = redisStore({
        client,
        onWarning: quiet,
        prefix: `shared:${randomUUID()}:`,
        commandTimeoutMs: 20_000,
      });
      serviceRequestIdempotency({ store });
      made.push(store);
    }
    // Every store answers, so each has written its markers and checked the configuration.
    await Promise.all(made.map((store) => store.get('warm-up')));
    return made;
  }

  it(
    'shares one client between 12 stores without a MaxListenersExceededWarning',
    async () => {
      const client = await connect();
      const warnings = await warningsDuring(async () => {
        await stores(client, 12);
      });
      expect(warnings.filter((warning) => warning.includes('MaxListeners'))).toEqual([]);
    },
    STARTS_TIMEOUT_MS,
  );

  it(
    'leaves the client with no more listeners than one store adds, however many there are',
    async () => {
      const client = await connect();
      const before = listenerCounts(client);
      await stores(client, 1);
      const afterOne = listenerCounts(client);
      await stores(client, 12);
      expect(listenerCounts(client)).toEqual(afterOne);
      // Started stores need nothing from the client's events but the guard against an
      // unhandled 'error': one listener for every store on the client.
      const settled = { ...before, error: before.error! + 1 };
      await waitFor(() => JSON.stringify(listenerCounts(client)) === JSON.stringify(settled), {
        what: 'the stores to remove their ready listener',
        timeoutMs: 30_000,
      });
      expect(listenerCounts(client)).toEqual(settled);
    },
    STARTS_TIMEOUT_MS,
  );

  it(
    'starts a store made before its client connects once the client is ready',
    async () => {
      const client = clients.create();
      const prefix = `late:${randomUUID()}:`;
      const made = Array.from({ length: 12 }, (_, index) =>
        redisStore({
          client,
          onWarning: quiet,
          prefix: `${prefix}${index}:`,
          commandTimeoutMs: 20_000,
        }),
      );
      const warnings = await warningsDuring(async () => {
        await client.connect();
        // Each store wrote its 1024 epoch markers on 'ready', without being called.
        await waitFor(
          async () => {
            for (let index = 0; index < made.length; index++) {
              if ((await client.exists(`${prefix}${index}:{0}epoch`)) !== 1) return false;
            }
            return true;
          },
          { what: 'every store to write its markers', timeoutMs: 30_000 },
        );
      });
      expect(warnings.filter((warning) => warning.includes('MaxListeners'))).toEqual([]);
      await waitFor(() => client.listenerCount('ready') === 0, {
        what: 'no ready listener left',
        timeoutMs: 30_000,
      });
    },
    STARTS_TIMEOUT_MS,
  );

  it('shares one cluster client between 12 stores without a warning', async () => {
    // Not a real cluster: the store only listens to the client's events at construction.
    const cluster = createCluster({ rootNodes: [{ url: redis.server.url }] });
    cluster.on('error', () => undefined);
    const before = cluster.listenerCount('connect');
    const warnings = await warningsDuring(async () => {
      for (let index = 0; index < 12; index++) {
        redisStore({ cluster, onWarning: quiet, prefix: `cluster:${index}:` });
      }
    });
    expect(warnings.filter((warning) => warning.includes('MaxListeners'))).toEqual([]);
    expect(cluster.listenerCount('connect')).toBe(before + 1);
  });
});
