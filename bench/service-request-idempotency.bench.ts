/**
 * A create route with and without the idempotency middleware, on the memory store and on a
 * real redis-server (skipped when none is installed); then the store on a real Redis Cluster
 * (3 primaries, 3 replicas) against the store on one redis-server, and the cost of waiting for
 * a replica (`replicas: 1`, `WAIT`) on the cluster. Every request carries a fresh
 * Service-Request-Id, so each one takes the full path: lock, run, capture, store.
 */
import { randomUUID } from 'node:crypto';
import { errorHandler } from '@resourceful/error-envelope';
import {
  type IdempotencyStore,
  memoryStore,
  redisStore,
  serviceRequestIdempotency,
} from '@resourceful/service-request-idempotency';
import {
  findRedisCli,
  findRedisServer,
  startRedisCluster,
  startRedisServer,
} from '@resourceful/test-support';
import express from 'express';
import { createClient, createCluster } from 'redis';
import { type Comparison, compare, type LoadRequest, load } from './harness.js';

/** The create route; with `store`, behind `middleware({ store })`; or behind `layer`. */
export function createApp(
  store?: IdempotencyStore,
  middleware = serviceRequestIdempotency,
  layer?: express.RequestHandler,
): express.Express {
  const app = express();
  app.use(express.json());
  if (store) app.use(middleware({ store }));
  if (layer) app.use(layer);
  let next = 0;
  app.post('/v1/customers/customers', (req, res) => {
    const id = `CUS-${++next}`;
    res
      .status(201)
      .location(`/v1/customers/customers/${id}`)
      .json({
        id,
        ...(req.body as object),
        links: [{ rel: 'self', href: `/v1/customers/customers/${id}` }],
      });
  });
  app.use(errorHandler());
  return app;
}

const request: LoadRequest = {
  method: 'POST',
  path: '/v1/customers/customers',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ merchant_customer_id: 'M-1', merchant_id: 'MER-1', first_name: 'Ada' }),
  uniqueHeader: 'service-request-id',
};

export async function run(): Promise<Comparison[]> {
  const results: Comparison[] = [];
  results.push(
    await compare(
      'service-request-idempotency: create with middleware (memory store) vs without',
      () => load(createApp(), request),
      // A fresh store per run, bounded so the run measures steady state, not growth.
      () => load(createApp(memoryStore({ maxEntries: 50_000 })), request),
      { goal: { atLeast: 0.95, source: '#19' } },
    ),
  );

  if (findRedisServer() === undefined) {
    console.log('redis-server not installed: skipping the Redis store comparison');
    return results;
  }
  const redis = await startRedisServer();
  const client = createClient({ url: redis.url, disableOfflineQueue: true });
  client.on('error', () => undefined);
  await client.connect();
  const quiet = () => undefined;
  try {
    results.push(
      await compare(
        'service-request-idempotency: create with middleware (Redis store) vs without',
        () => load(createApp(), request),
        () =>
          load(
            createApp(redisStore({ client, prefix: `bench:${randomUUID()}:`, onWarning: quiet })),
            request,
          ),
        { goal: { atLeast: 0.85, source: '#19' } },
      ),
    );
    if (findRedisCli() === undefined) {
      console.log('redis-cli not installed: skipping the Redis Cluster comparisons');
      return results;
    }
    const cluster = await startRedisCluster();
    const clusterClient = createCluster({
      rootNodes: cluster.urls.map((url) => ({ url })),
      defaults: { disableOfflineQueue: true },
    });
    clusterClient.on('error', () => undefined);
    await clusterClient.connect();
    // Stores are made (and their epoch markers written) before the measured runs.
    const onCluster = (replicas: number) =>
      redisStore({
        cluster: clusterClient,
        prefix: `bench:${randomUUID()}:`,
        replicas,
        onWarning: quiet,
      });
    const single = redisStore({ client, prefix: `bench:${randomUUID()}:`, onWarning: quiet });
    const [clustered, waiting] = [onCluster(0), onCluster(1)];
    await Promise.all([single, clustered, waiting].map((store) => store.get('warm-up')));
    try {
      results.push(
        await compare(
          'service-request-idempotency: create, Redis Cluster store vs one redis-server',
          () => load(createApp(single), request),
          () => load(createApp(clustered), request),
        ),
      );
      results.push(
        await compare(
          'service-request-idempotency: create on the cluster, replicas: 1 (WAIT) vs none',
          () => load(createApp(clustered), request),
          () => load(createApp(waiting), request),
        ),
      );
    } finally {
      await clusterClient.close();
      await cluster.close();
    }
  } finally {
    client.destroy();
    await redis.close();
  }
  return results;
}
