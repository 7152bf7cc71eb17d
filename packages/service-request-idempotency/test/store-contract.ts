/**
 * The behaviour every IdempotencyStore must show, run against each store.
 */
import { randomUUID } from 'node:crypto';
import { waitFor } from '@resourceful/test-support';
import { describe, expect, it } from 'vitest';
import type { IdempotencyStore, StoredResponse } from '../src/index.js';

const response: StoredResponse = {
  status: 201,
  headers: { location: '/v1/things/1', link: ['<a>; rel=a', '<b>; rel=b'] },
  body: Buffer.from([0, 1, 2, 255]),
};

export function storeContract(makeStore: () => IdempotencyStore): void {
  const lock = (fingerprint = 'fp') => ({ fingerprint, token: randomUUID(), lockTtlMs: 5_000 });

  it('takes the lock once, then reports it in flight with its fingerprint', async () => {
    const store = makeStore();
    const key = randomUUID();
    expect(await store.acquire(key, lock())).toEqual({ state: 'acquired' });
    const again = await store.acquire(key, lock('other'));
    expect(again).toMatchObject({ state: 'in-flight', fingerprint: 'fp' });
    expect(again.state === 'in-flight' && again.expiresInMs).toBeGreaterThan(0);
  });

  it('gives the lock to exactly one of 50 concurrent acquirers', async () => {
    const store = makeStore();
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 50 }, () => store.acquire(key, lock())));
    expect(results.filter((result) => result.state === 'acquired')).toHaveLength(1);
  });

  it('stores a completion and answers it to later acquirers and get', async () => {
    const store = makeStore();
    const key = randomUUID();
    const first = lock();
    await store.acquire(key, first);
    await store.complete(key, { token: first.token, fingerprint: 'fp', response, ttlMs: 5_000 });
    const entry = await store.acquire(key, lock());
    expect(entry).toMatchObject({ state: 'completed', fingerprint: 'fp' });
    if (entry.state !== 'completed') throw new Error('not completed');
    expect(entry.response.status).toBe(201);
    expect(entry.response.headers).toEqual(response.headers);
    expect([...(entry.response.body ?? [])]).toEqual([0, 1, 2, 255]);
    expect(await store.get(key)).toMatchObject({ state: 'completed' });
  });

  it('keeps a completion without a body as not replayable', async () => {
    const store = makeStore();
    const key = randomUUID();
    const first = lock();
    await store.acquire(key, first);
    await store.complete(key, {
      token: first.token,
      fingerprint: 'fp',
      response: { ...response, body: null },
      ttlMs: 5_000,
    });
    const entry = await store.get(key);
    expect(entry?.state === 'completed' && entry.response.body).toBeNull();
  });

  it('releases only the lock of the same token', async () => {
    const store = makeStore();
    const key = randomUUID();
    const first = lock();
    await store.acquire(key, first);
    await store.release(key, 'another-token');
    expect(await store.get(key)).toMatchObject({ state: 'in-flight' });
    await store.release(key, first.token);
    expect(await store.get(key)).toBeUndefined();
    expect(await store.acquire(key, lock())).toEqual({ state: 'acquired' });
  });

  it('never lets a late completion overwrite another attempt', async () => {
    const store = makeStore();
    const key = randomUUID();
    const stale = { ...lock(), lockTtlMs: 50 };
    await store.acquire(key, stale);
    await waitFor(async () => (await store.get(key)) === undefined, { what: 'lock expiry' });
    const fresh = lock();
    expect(await store.acquire(key, fresh)).toEqual({ state: 'acquired' });
    await store.complete(key, { token: stale.token, fingerprint: 'fp', response, ttlMs: 5_000 });
    expect(await store.get(key)).toMatchObject({ state: 'in-flight' });
    await store.release(key, stale.token);
    expect(await store.get(key)).toMatchObject({ state: 'in-flight' });
  });

  it('stores a completion whose lock expired when nobody else took the id', async () => {
    const store = makeStore();
    const key = randomUUID();
    const slow = { ...lock(), lockTtlMs: 50 };
    await store.acquire(key, slow);
    await waitFor(async () => (await store.get(key)) === undefined, { what: 'lock expiry' });
    await store.complete(key, { token: slow.token, fingerprint: 'fp', response, ttlMs: 5_000 });
    expect(await store.get(key)).toMatchObject({ state: 'completed' });
  });

  it('forgets a completion after its ttl', async () => {
    const store = makeStore();
    const key = randomUUID();
    const first = lock();
    await store.acquire(key, first);
    await store.complete(key, { token: first.token, fingerprint: 'fp', response, ttlMs: 50 });
    await waitFor(async () => (await store.get(key)) === undefined, { what: 'retention expiry' });
    expect(await store.acquire(key, lock())).toEqual({ state: 'acquired' });
  });

  describe('renew', () => {
    // One store for these (keys apart): a Redis client takes a listener per store.
    let shared: IdempotencyStore | undefined;
    const renewStore = () => {
      shared ??= makeStore();
      return shared;
    };
    it('extends its own lock and answers true', async () => {
      const store = renewStore();
      const key = randomUUID();
      const mine = { fingerprint: 'fp', token: randomUUID(), lockTtlMs: 200 };
      await store.acquire(key, mine);
      expect(await store.renew!(key, mine.token, 30_000)).toBe(true);
      const entry = await store.get(key);
      expect(entry?.state === 'in-flight' && entry.expiresInMs).toBeGreaterThan(10_000);
    });

    it('answers false and changes nothing for another token, a response or nothing', async () => {
      const store = renewStore();
      const key = randomUUID();
      const mine = lock();
      await store.acquire(key, mine);
      expect(await store.renew!(key, 'someone-else', 30_000)).toBe(false);
      const entry = await store.get(key);
      expect(entry?.state === 'in-flight' && entry.expiresInMs).toBeLessThanOrEqual(5_000);
      await store.complete(key, { token: mine.token, fingerprint: 'fp', response, ttlMs: 5_000 });
      expect(await store.renew!(key, mine.token, 30_000)).toBe(false);
      expect(await store.get(key)).toMatchObject({ state: 'completed' });
      const absent = randomUUID();
      expect(await store.renew!(absent, mine.token, 30_000)).toBe(false);
      expect(await store.get(absent)).toBeUndefined();
    });

    it('never revives an expired lock', async () => {
      const store = renewStore();
      const key = randomUUID();
      const mine = { fingerprint: 'fp', token: randomUUID(), lockTtlMs: 20 };
      await store.acquire(key, mine);
      await waitFor(async () => (await store.get(key)) === undefined, {
        what: 'the lock to expire',
      });
      expect(await store.renew!(key, mine.token, 30_000)).toBe(false);
      expect(await store.get(key)).toBeUndefined();
    });
  });
}
