import { randomUUID } from 'node:crypto';
import {
  describeEachExpress,
  expectErrorEnvelope,
  hasRedisServer,
  type RedisClient,
  useRedisServer,
  waitFor,
} from '@resourceful/test-support';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { redisStore, type ServiceRequestIdempotencyOptions } from '../src/index.js';
import { countingStore, deferred, startApp } from './helpers.js';
import { lockRenewalScenarios } from './lock-renewal-scenarios.js';
import { storeContract } from './store-contract.js';

const available = hasRedisServer();

/** The test servers run without persistence on purpose; the warning is tested on its own. */
const quiet = () => undefined;

describe.skipIf(!available)('redisStore against a real redis-server', () => {
  /** Clients as an app instance would make one: no offline queue, quick reconnects. */
  const redis = useRedisServer({ quickReconnect: true });
  const connect = redis.clients.connect;

  describe('store contract', () => {
    let client: RedisClient;
    beforeAll(async () => {
      client = await connect();
    });
    storeContract(() =>
      redisStore({ client, onWarning: quiet, prefix: `contract:${randomUUID()}:` }),
    );

    it('writes entries under the prefix and a hash tag, each with a TTL', async () => {
      const prefix = `ttl:${randomUUID()}:`;
      const store = redisStore({ client, onWarning: quiet, prefix });
      await store.acquire('k', { fingerprint: 'f', token: 't', lockTtlMs: 30_000 });
      const keys = await client.keys(`${prefix}*`);
      const entries = keys.filter((key) => !key.endsWith('}epoch'));
      expect(entries).toHaveLength(1);
      expect(entries[0]).toMatch(/^ttl:[0-9a-f-]+:\{\d{1,4}\}:k$/);
      const ttl = await client.pTTL(entries[0]!);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(30_000);
    });

    it('keeps entries named "epoch" and "fence" apart from the markers', async () => {
      const store = redisStore({ client, prefix: `names:${randomUUID()}:`, onWarning: quiet });
      for (const key of ['epoch', 'fence']) {
        const lock = { fingerprint: 'f', token: key, lockTtlMs: 30_000 };
        expect(await store.acquire(key, lock)).toEqual({ state: 'acquired' });
        await store.release(key, key);
        expect(await store.acquire(key, lock)).toEqual({ state: 'acquired' });
      }
    });

    it('writes one epoch marker per bucket on first use, without a TTL', async () => {
      const prefix = `epoch:${randomUUID()}:`;
      const store = redisStore({ client, onWarning: quiet, prefix });
      await store.get('k');
      const markers = await client.keys(`${prefix}*epoch`);
      expect(markers).toHaveLength(1024);
      expect(await client.pTTL(markers[0]!)).toBe(-1);
    });

    it('reloads its scripts after SCRIPT FLUSH', async () => {
      const store = redisStore({ client, onWarning: quiet, prefix: `flush:${randomUUID()}:` });
      await store.get('a');
      await client.scriptFlush();
      expect(await store.acquire('a', { fingerprint: 'f', token: 't', lockTtlMs: 1000 })).toEqual({
        state: 'acquired',
      });
    });

    it('refuses a missing client at construction', () => {
      expect(() => redisStore({} as never)).toThrow(/pass exactly one of "client"/);
      expect(() => redisStore({ client: {} } as never)).toThrow(/"client" must be a Redis client/);
      expect(() => redisStore({ client, cluster: client } as never)).toThrow(/exactly one/);
      expect(() => redisStore({ client, prefix: '{x}' })).toThrow(/hash tag/);
      expect(() => redisStore({ client, replicas: 1, replicasTimeoutMs: 1000 })).toThrow(
        /"replicasTimeoutMs" \(1000\) must be less than "commandTimeoutMs" \(1000\)/,
      );
      expect(() => redisStore({ client, dataLossWindowMs: -1 })).toThrow(/dataLossWindowMs/);
      expect(() => redisStore(null as never)).toThrow(/options must be an object, got null/);
      expect(() => redisStore({ client, commandTimeoutMs: 0 })).toThrow(/commandTimeoutMs/);
      expect(() => redisStore({ client, prefx: 'x' } as never)).toThrow(
        /unknown option "prefx"\. Did you mean "prefix"\?/,
      );
    });
  });

  describeEachExpress('lock renewal on Redis', (express) => {
    const prefixes = new WeakMap<object, string>();
    let client: RedisClient;
    beforeAll(async () => {
      client = await connect();
    });
    lockRenewalScenarios(express, {
      store() {
        const prefix = `renewal:${randomUUID()}:`;
        // No data-loss fence: `lose` removes this store's keys only, the entry with them.
        const store = redisStore({ client, onWarning: quiet, prefix, dataLossWindowMs: 0 });
        prefixes.set(store, prefix);
        return store;
      },
      async lose(store) {
        const keys = await client.keys(`${prefixes.get(store)}*`);
        if (keys.length > 0) await client.del(keys);
      },
    });
  });

  describeEachExpress('the middleware on Redis', (express) => {
    async function redisApp(options: ServiceRequestIdempotencyOptions = {}, prefix?: string) {
      const client = await connect();
      const store = redisStore({
        client,
        onWarning: quiet,
        prefix: prefix ?? `app:${randomUUID()}:`,
      });
      return { client, app: await startApp(express, { store, ...options }) };
    }

    it('runs the handler exactly once for 50 concurrent identical POSTs over two instances', async () => {
      const prefix = `burst:${randomUUID()}:`;
      const stores = [await connect(), await connect()].map((client) =>
        countingStore(redisStore({ client, onWarning: quiet, prefix })),
      );
      const [one, two] = await Promise.all(stores.map((store) => startApp(express, { store })));
      if (!one || !two) throw new Error('apps did not start');
      const gate = deferred();
      one.gate = gate.promise;
      two.gate = gate.promise;
      const responses = Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          request((i % 2 === 0 ? one : two).url)
            .post('/v1/things')
            .set('Service-Request-Id', 'burst')
            .send({ a: 1 }),
        ),
      );
      const acquired = () => stores.reduce((sum, store) => sum + store.acquired, 0);
      await waitFor(() => acquired() === 50, { what: '50 requests to reach Redis' });
      gate.resolve();
      const results = await responses;
      expect((one.runs.things ?? 0) + (two.runs.things ?? 0)).toBe(1);
      expect(results.filter((res) => res.status === 201)).toHaveLength(1);
      expect(results.filter((res) => res.status === 409)).toHaveLength(49);
      const replay = await request(two.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'burst')
        .send({ a: 1 });
      expect(replay.status).toBe(201);
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.body).toEqual(results.find((res) => res.status === 201)?.body);
    });

    it('replays a response stored by another instance, headers and all', async () => {
      const prefix = `shared:${randomUUID()}:`;
      const { app: one } = await redisApp({}, prefix);
      const { app: two } = await redisApp({}, prefix);
      const first = await request(one.url).post('/v1/write-head').set('Service-Request-Id', 'x');
      const second = await request(two.url).post('/v1/write-head').set('Service-Request-Id', 'x');
      expect(second.text).toBe(first.text);
      expect(second.headers.location).toBe('/w/1');
      expect(two.runs['write-head']).toBeUndefined();
    });

    it('answers 422 across instances for the same id with another body', async () => {
      const prefix = `reuse:${randomUUID()}:`;
      const { app: one } = await redisApp({}, prefix);
      const { app: two } = await redisApp({}, prefix);
      await request(one.url).post('/v1/things').set('Service-Request-Id', 'r').send({ a: 1 });
      const res = await request(two.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'r')
        .send({ a: 2 });
      expectErrorEnvelope(res, 422, { code: 'UNPROCESSABLE_ENTITY' });
    });

    it('answers 503 without running the handler when no replica acknowledges the lock (WAIT)', async () => {
      const client = await connect();
      const prefix = `wait:${randomUUID()}:`;
      const store = redisStore({
        client,
        prefix,
        replicas: 1,
        replicasTimeoutMs: 50,
        onWarning: quiet,
      });
      const app = await startApp(express, { store });
      for (let attempt = 0; attempt < 2; attempt++) {
        const res = await request(app.url).post('/v1/things').set('Service-Request-Id', 'w');
        expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(res.headers['retry-after']).toBe('1');
      }
      expect(app.runs.things).toBeUndefined();
      // The unacknowledged lock was given back: nothing is left in flight for the id.
      expect((await client.keys(`${prefix}*`)).filter((key) => !key.endsWith('epoch'))).toEqual([]);
    });

    it('frees the id after a 5xx so the retry runs', async () => {
      const { app } = await redisApp();
      expect((await request(app.url).post('/v1/flaky').set('Service-Request-Id', 'f')).status).toBe(
        500,
      );
      let retry = await request(app.url).post('/v1/flaky').set('Service-Request-Id', 'f');
      // The release is written after the 500 went out; a retry racing it sees the lock.
      if (retry.status === 409) {
        await waitFor(
          async () => {
            retry = await request(app.url).post('/v1/flaky').set('Service-Request-Id', 'f');
            return retry.status !== 409;
          },
          { what: 'the release' },
        );
      }
      expect(retry.status).toBe(201);
      expect(app.runs.flaky).toBe(2);
    });

    it('runs the request once the lock of a dead instance expired', async () => {
      const prefix = `dead:${randomUUID()}:`;
      const { app: dying } = await redisApp({ lockTtlMs: 300 }, prefix);
      const { app } = await redisApp({ lockTtlMs: 300 }, prefix);
      dying.gate = new Promise(() => undefined); // never answers: the process "died"
      const abandoned = await request(dying.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'dead')
        .timeout(100)
        .then(
          () => 'answered',
          () => 'aborted',
        );
      expect(abandoned).toBe('aborted');
      const during = await request(app.url).post('/v1/things').set('Service-Request-Id', 'dead');
      expectErrorEnvelope(during, 409, { code: 'CONFLICT' });
      let status = 0;
      await waitFor(
        async () => {
          status = (await request(app.url).post('/v1/things').set('Service-Request-Id', 'dead'))
            .status;
          return status !== 409;
        },
        { timeoutMs: 5_000, what: 'the lock to expire' },
      );
      expect(status).toBe(201);
      expect(app.runs.things).toBe(1);
    });
  });

  describeEachExpress('when Redis stops mid-run', (express) => {
    it('answers 503 without running the handler, creates no duplicate, and resumes', async () => {
      const client = await connect();
      const store = redisStore({
        client,
        onWarning: quiet,
        prefix: `outage:${randomUUID()}:`,
        commandTimeoutMs: 500,
      });
      const app = await startApp(express, { store, lockTtlMs: 15_000 });
      const post = (id: string) =>
        request(app.url).post('/v1/things').set('Service-Request-Id', id).send({ id });

      expect((await post('before')).status).toBe(201);
      // One request is inside the handler when Redis goes away.
      const gate = deferred();
      app.gate = gate.promise;
      const inFlight = post('in-flight').then();
      await waitFor(() => app.runs.things === 2, { what: 'the handler to start' });

      await redis.server.stop();
      await waitFor(() => !client.isReady, { what: 'the client to notice' });
      gate.resolve();
      expect((await inFlight).status).toBe(201);
      app.gate = undefined;

      for (const id of ['before', 'in-flight', 'during']) {
        const res = await post(id);
        expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(res.headers['retry-after']).toBe('1');
      }
      expect(app.runs.things).toBe(2);

      await redis.server.restart();
      await waitFor(() => client.isReady, { timeoutMs: 10_000, what: 'the client to reconnect' });

      // The completion of the in-flight request is written once Redis is back.
      await waitFor(async () => (await post('in-flight')).status !== 409, {
        timeoutMs: 10_000,
        what: 'the pending completion',
      });
      for (const id of ['before', 'in-flight']) {
        const res = await post(id);
        expect(res.status).toBe(201);
        expect(res.headers['idempotent-replayed']).toBe('true');
      }
      expect(app.runs.things).toBe(2);
      const during = await post('during');
      expect(during.status).toBe(201);
      expect(during.headers['idempotent-replayed']).toBeUndefined();
      expect(app.runs.things).toBe(3);
    });
  });
});
