import { randomUUID } from 'node:crypto';
import {
  describeEachExpress,
  expectErrorEnvelope,
  hasRedisCluster,
  useRedisCluster,
  waitFor,
} from '@resourceful/test-support';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { redisStore, scopedKey } from '../src/index.js';
import { type Cluster, connectCluster, keyTag } from './cluster-helpers.js';
import { countingStore, deferred, startApp } from './helpers.js';
import { lockRenewalScenarios } from './lock-renewal-scenarios.js';
import { storeContract } from './store-contract.js';

const available = hasRedisCluster();
const quiet = () => undefined;

describe.skipIf(!available)('redisStore on a real Redis Cluster (3 primaries, 3 replicas)', () => {
  const redis = useRedisCluster(connectCluster);
  const connect = redis.connect;

  describe('store contract', () => {
    let client: Cluster;
    beforeAll(async () => {
      client = await connect();
    });
    storeContract(() =>
      redisStore({ cluster: client, prefix: `contract:${randomUUID()}:`, onWarning: quiet }),
    );

    it('spreads the entries of many ids over every primary', async () => {
      const prefix = `spread:${randomUUID()}:`;
      const store = redisStore({ cluster: client, prefix, onWarning: quiet });
      for (let i = 0; i < 60; i++) {
        await store.acquire(scopedKey('', `id-${i}`), {
          fingerprint: 'f',
          token: 't',
          lockTtlMs: 30_000,
        });
      }
      const perPrimary: number[] = [];
      for (const port of await redis.cluster.primaries()) {
        const keys = (await redis.cluster.cli(port, '--raw', 'KEYS', `${prefix}*`))
          .split('\n')
          .filter((key) => key !== '' && !key.endsWith('epoch'));
        perPrimary.push(keys.length);
      }
      expect(perPrimary.reduce((sum, count) => sum + count, 0)).toBe(60);
      expect(perPrimary.filter((count) => count > 0).length).toBeGreaterThan(1);
    });

    it('follows ASK while a slot migrates and MOVED after it moved; refuses lookups mid-move', async () => {
      const prefix = `migrate:${randomUUID()}:`;
      const store = redisStore({ cluster: client, prefix, onWarning: quiet });
      const key = scopedKey('', 'migrating');
      const lock = { fingerprint: 'f', token: 'tok', lockTtlMs: 30_000 };
      expect(await store.acquire(key, lock)).toEqual({ state: 'acquired' });

      const slot = await redis.cluster.keySlot(`${keyTag(prefix, key)}epoch`);
      const source = await redis.cluster.primaryOf(slot);
      const target = (await redis.cluster.primaries()).find((port) => port !== source.port)!;
      const id = async (port: number) => (await redis.cluster.cli(port, 'CLUSTER', 'MYID')).trim();
      const [sourceId, targetId] = [await id(source.port), await id(target)];
      await redis.cluster.cli(target, 'CLUSTER', 'SETSLOT', String(slot), 'IMPORTING', sourceId);
      await redis.cluster.cli(
        source.port,
        'CLUSTER',
        'SETSLOT',
        String(slot),
        'MIGRATING',
        targetId,
      );
      const keys = (
        await redis.cluster.cli(
          source.port,
          '--raw',
          'CLUSTER',
          'GETKEYSINSLOT',
          String(slot),
          '1000',
        )
      )
        .split('\n')
        .filter((name) => name !== '');
      expect(keys.length).toBeGreaterThan(1);
      await redis.cluster.cli(
        source.port,
        'MIGRATE',
        '127.0.0.1',
        String(target),
        '',
        '0',
        '5000',
        'KEYS',
        ...keys,
      );

      // Mid-migration: the source has none of the keys, so it answers ASK; the client follows.
      await store.complete(key, {
        token: 'tok',
        fingerprint: 'f',
        response: { status: 201, headers: {}, body: Buffer.from('done') },
        ttlMs: 30_000,
      });
      // A lookup names three keys (entry, epoch marker, fence); while the slot is split Redis
      // refuses such a script with TRYAGAIN, so the middleware answers 503 until the move ends.
      await expect(store.get(key)).rejects.toThrow(/TRYAGAIN/);

      for (const port of await redis.cluster.primaries()) {
        await redis.cluster.cli(port, 'CLUSTER', 'SETSLOT', String(slot), 'NODE', targetId);
      }
      // The client still maps the slot to the source, which now answers MOVED.
      const entry = await store.get(key);
      expect(entry?.state === 'completed' && Buffer.from(entry.response.body!).toString()).toBe(
        'done',
      );
      expect((await redis.cluster.primaryOf(slot)).port).toBe(target);
    });
  });

  describeEachExpress('lock renewal on the cluster', (express) => {
    const prefixes = new WeakMap<object, string>();
    let client: Cluster;
    beforeAll(async () => {
      client = await connect();
    });
    lockRenewalScenarios(express, {
      store() {
        const prefix = `renewal:${randomUUID()}:`;
        const store = redisStore({
          cluster: client,
          onWarning: quiet,
          prefix,
          dataLossWindowMs: 0,
        });
        prefixes.set(store, prefix);
        return store;
      },
      async lose(store) {
        for (const port of await redis.cluster.primaries()) {
          const keys = await redis.cluster.cli(port, '--raw', 'KEYS', `${prefixes.get(store)}*`);
          for (const key of keys.split('\n').filter(Boolean)) await client.del(key);
        }
      },
    });
  });

  describeEachExpress('a primary that loses its data', (express) => {
    it('fences the buckets of that primary only, one window from the first detection', async () => {
      const prefix = `loss:${randomUUID()}:`;
      const windowMs = 2_000;
      const store = redisStore({
        cluster: await connect(),
        prefix,
        dataLossWindowMs: windowMs,
        onWarning: quiet,
      });
      const app = await startApp(express, { store });
      const post = (id: string) =>
        request(app.url).post('/v1/things').set('Service-Request-Id', id).send({ id });
      expect((await post('before')).status).toBe(201);
      const lost = (await redis.cluster.primaries())[0]!;
      const onLost: string[] = [];
      const elsewhere: string[] = [];
      const tags = new Set<string>();
      while (onLost.length < 3 || elsewhere.length < 2) {
        const id = randomUUID();
        const tag = keyTag(prefix, scopedKey('', id));
        if (tags.has(tag)) continue;
        tags.add(tag);
        const primary = await redis.cluster.primaryOf(await redis.cluster.keySlot(`${tag}epoch`));
        (primary.port === lost ? onLost : elsewhere).push(id);
      }
      const [detecting, fresh, after] = onLost as [string, string, string];
      await redis.cluster.cli(lost, 'FLUSHALL');

      const detection = await post(detecting);
      const detectedAt = Date.now();
      expectErrorEnvelope(detection, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(detection.headers['retry-after']).toBe('2');
      await waitFor(() => Date.now() - detectedAt > windowMs / 2, { what: 'half the window' });
      const refused = await post(fresh);
      expectErrorEnvelope(refused, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(refused.headers['retry-after']).toBe('1');
      for (const id of elsewhere) expect((await post(id)).status).toBe(201);
      await waitFor(() => Date.now() - detectedAt > windowMs + 100, { what: 'the window' });
      expect((await post(after)).status).toBe(201);
      expect(app.runs.things).toBe(2 + elsewhere.length);
    });
  });

  describeEachExpress('the middleware on the cluster', (express) => {
    it('runs the handler exactly once for 50 concurrent duplicates over two instances', async () => {
      const prefix = `burst:${randomUUID()}:`;
      const stores = [await connect(), await connect()].map((client) =>
        countingStore(redisStore({ cluster: client, prefix, onWarning: quiet })),
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
            .set('Service-Request-Id', 'cluster-burst')
            .send({ a: 1 }),
        ),
      );
      const acquired = () => stores.reduce((sum, store) => sum + store.acquired, 0);
      await waitFor(() => acquired() === 50, { what: '50 requests to reach the cluster' });
      gate.resolve();
      const results = await responses;
      expect((one.runs.things ?? 0) + (two.runs.things ?? 0)).toBe(1);
      expect(results.filter((res) => res.status === 201)).toHaveLength(1);
      expect(results.filter((res) => res.status === 409)).toHaveLength(49);
      const replay = await request(two.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'cluster-burst')
        .send({ a: 1 });
      expect(replay.headers['idempotent-replayed']).toBe('true');
    });

    it('waits for a replica to acknowledge the lock, and fails closed when too few can', async () => {
      // A replica still syncing (after the failover tests, or on a loaded CI machine) would
      // not acknowledge in time: wait on that state, and give the acknowledgement room.
      await redis.cluster.waitForReplicasInSync();
      const client = await connect();
      const prefix = `wait:${randomUUID()}:`;
      const acknowledged = await startApp(express, {
        store: redisStore({
          cluster: client,
          prefix,
          replicas: 1,
          replicasTimeoutMs: 1_500,
          commandTimeoutMs: 3_000,
          onWarning: quiet,
        }),
      });
      const created = await request(acknowledged.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'w-1');
      expect(created.status).toBe(201);
      // Each primary has one replica: two acknowledgements never come.
      const tooMany = await startApp(express, {
        store: redisStore({ cluster: client, prefix, replicas: 2, onWarning: quiet }),
      });
      const refused = await request(tooMany.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'w-2');
      expectErrorEnvelope(refused, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(tooMany.runs.things).toBeUndefined();
      const retried = await request(acknowledged.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'w-2');
      expect(retried.status).toBe(201);
    });
  });
});
