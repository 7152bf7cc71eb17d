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
import { describe, expect, it } from 'vitest';
import { redisStore } from '../src/index.js';
import { startApp } from './helpers.js';

const available = hasRedisServer();
const quiet = () => undefined;

describe.skipIf(!available)('a Redis that loses what the store kept', () => {
  const redis = useRedisServer({ quickReconnect: true });
  const { clients } = redis;
  const connect = clients.connect;

  describeEachExpress('after redis-server restarts empty', (express) => {
    it('refuses the retry of a create for the window, on every instance, instead of running it twice', async () => {
      const prefix = `loss:${randomUUID()}:`;
      const windowMs = 1_500;
      const instance = async () =>
        startApp(express, {
          store: redisStore({
            client: await connect(),
            prefix,
            dataLossWindowMs: windowMs,
            onWarning: quiet,
          }),
        });
      const [one, two] = [await instance(), await instance()];
      if (!one || !two) throw new Error('apps did not start');
      const post = (url: string, id: string) =>
        request(url).post('/v1/things').set('Service-Request-Id', id).send({ id });

      expect((await post(one.url, 'created-before')).status).toBe(201);
      expect((await post(two.url, 'also-before')).status).toBe(201);
      await redis.server.restart({ empty: true });
      await waitFor(() => clients.all().every((client) => client.isReady), {
        what: 'the clients to reconnect',
      });

      const retry = await post(one.url, 'created-before');
      expectErrorEnvelope(retry, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(Number(retry.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(Number(retry.headers['retry-after'])).toBeLessThanOrEqual(2);
      expectErrorEnvelope(await post(two.url, 'created-before'), 503, {
        code: 'SERVICE_UNAVAILABLE',
      });
      expectErrorEnvelope(await post(two.url, 'a-new-id'), 503, { code: 'SERVICE_UNAVAILABLE' });
      expect((one.runs.things ?? 0) + (two.runs.things ?? 0)).toBe(2);

      // After the window the lost record cannot be known any more: the id runs again. The
      // window is for the retries of a client that saw the outage, not a day later.
      let status = 0;
      await waitFor(
        async () => {
          status = (await post(two.url, 'a-new-id')).status;
          return status !== 503;
        },
        { timeoutMs: 10_000, what: 'the window to end' },
      );
      expect(status).toBe(201);
      const replay = await post(one.url, 'a-new-id');
      expect(replay.headers['idempotent-replayed']).toBe('true');
    });
  });

  describeEachExpress('one window from the first detection, for every id', (express) => {
    const losses: [string, (admin: RedisClient) => Promise<void>][] = [
      ['redis-server restarted empty', () => redis.server.restart({ empty: true })],
      [
        'FLUSHALL',
        async (admin) => {
          await admin.flushAll();
        },
      ],
    ];
    for (const [loss, lose] of losses) {
      it(`after ${loss}: fresh ids are refused with the time left, then all accepted`, async () => {
        const windowMs = 2_000;
        const client = await connect();
        const app = await startApp(express, {
          store: redisStore({
            client,
            prefix: `window:${randomUUID()}:`,
            dataLossWindowMs: windowMs,
            onWarning: quiet,
          }),
        });
        const post = (id: string) =>
          request(app.url).post('/v1/things').set('Service-Request-Id', id).send({ id });
        expect((await post('before')).status).toBe(201);
        await lose(client);
        await waitFor(() => client.isReady, { what: 'the client to reconnect' });

        const detection = await post('before');
        const detectedAt = Date.now();
        expectErrorEnvelope(detection, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(detection.headers['retry-after']).toBe('2');
        // Half the window later, fresh ids (other buckets, almost surely: 1024 of them) are
        // refused for the half left, not for a window of their own.
        await waitFor(() => Date.now() - detectedAt > windowMs / 2, { what: 'half the window' });
        const fresh = Array.from({ length: 8 }, () => randomUUID());
        for (const id of fresh) {
          const refused = await post(id);
          expectErrorEnvelope(refused, 503, { code: 'SERVICE_UNAVAILABLE' });
          expect(refused.headers['retry-after']).toBe('1');
        }
        // Once the window from the detection has passed, every id runs, none meets a new fence.
        await waitFor(() => Date.now() - detectedAt > windowMs + 100, { what: 'the window' });
        const later = [...fresh, ...Array.from({ length: 8 }, () => randomUUID())];
        for (const id of later) expect((await post(id)).status).toBe(201);
        expect(app.runs.things).toBe(1 + later.length);
      });
    }
  });

  describe('when the store connects', () => {
    it('warns in one line, once, when Redis has no append-only persistence', async () => {
      const warnings: string[] = [];
      const store = redisStore({
        client: await connect(),
        prefix: `warn:${randomUUID()}:`,
        onWarning: (message) => warnings.push(message),
      });
      await store.get('a');
      await store.get('b');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).not.toContain('\n');
      expect(warnings[0]).toMatch(/appendonly is off/);
      expect(warnings[0]).not.toMatch(/maxmemory-policy is/);
    });

    it('warns about an eviction policy, and not when Redis persists and never evicts', async () => {
      const admin = await connect();
      const check = async () => {
        const warnings: string[] = [];
        const store = redisStore({
          client: admin,
          prefix: `config:${randomUUID()}:`,
          onWarning: (message) => warnings.push(message),
        });
        await store.get('a');
        return warnings;
      };
      try {
        await admin.configSet({ appendonly: 'yes', maxmemory: '512mb' });
        await admin.configSet('maxmemory-policy', 'volatile-lru');
        const evicting = await check();
        expect(evicting).toHaveLength(1);
        expect(evicting[0]).toMatch(/maxmemory-policy is volatile-lru/);
        expect(evicting[0]).not.toMatch(/appendonly is off/);
        await admin.configSet('maxmemory-policy', 'noeviction');
        expect(await check()).toEqual([]);
      } finally {
        await admin.configSet({ appendonly: 'no', maxmemory: '0' });
      }
    });
  });
});
