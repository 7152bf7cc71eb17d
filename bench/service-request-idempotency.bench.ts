/**
 * A create route with and without the idempotency middleware, on the memory store and on a
 * real redis-server (skipped when none is installed). Every request carries a fresh
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
import { findRedisServer, startRedisServer } from '@resourceful/test-support';
import express from 'express';
import { createClient } from 'redis';
import { type Comparison, compare, type LoadRequest, load } from './harness.js';

function createApp(store?: IdempotencyStore) {
  const app = express();
  app.use(express.json());
  if (store) app.use(serviceRequestIdempotency({ store }));
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
  setupRequest: (req) => ({
    ...req,
    headers: { ...req.headers, 'service-request-id': randomUUID() },
  }),
};

export async function run(): Promise<Comparison[]> {
  const results: Comparison[] = [];
  results.push(
    await compare(
      'service-request-idempotency: create with middleware (memory store) vs without',
      () => load(createApp(), request),
      // A fresh store per run, bounded so the run measures steady state, not growth.
      () => load(createApp(memoryStore({ maxEntries: 50_000 })), request),
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
  try {
    results.push(
      await compare(
        'service-request-idempotency: create with middleware (Redis store) vs without',
        () => load(createApp(), request),
        () => load(createApp(redisStore({ client, prefix: `bench:${randomUUID()}:` })), request),
      ),
    );
  } finally {
    client.destroy();
    await redis.close();
  }
  return results;
}
