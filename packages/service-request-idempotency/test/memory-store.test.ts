import { describe, expect, it } from 'vitest';
import { memoryStore, type StoredResponse } from '../src/index.js';
import { storeContract } from './store-contract.js';

describe('memoryStore', () => {
  storeContract(() => memoryStore());

  const lock = (token: string) => ({ fingerprint: 'fp', token, lockTtlMs: 60_000 });
  const response = (bytes: number): StoredResponse => ({
    status: 201,
    headers: {},
    body: Buffer.alloc(bytes),
  });

  async function completeOne(store: ReturnType<typeof memoryStore>, key: string, bytes = 10) {
    await store.acquire(key, lock(key));
    await store.complete(key, {
      token: key,
      fingerprint: 'fp',
      response: response(bytes),
      ttlMs: 60_000,
    });
  }

  // The middleware sends a response as soon as `complete` returns when the store is this one
  // (it does not wait for the promise): a repeat must then find the response stored.
  it('has stored a completion and released a lock by the time the call returns', async () => {
    const store = memoryStore();
    await store.acquire('k', lock('t'));
    const completing = store.complete('k', {
      token: 't',
      fingerprint: 'fp',
      response: response(4),
      ttlMs: 60_000,
    });
    expect(store.size).toBe(1);
    const stored = store.get('k');
    await completing;
    expect(await stored).toMatchObject({ state: 'completed', response: { status: 201 } });

    await store.acquire('other', lock('t2'));
    const releasing = store.release('other', 't2');
    const after = store.acquire('other', lock('t3'));
    await releasing;
    expect(await after).toEqual({ state: 'acquired' });
  });

  it('evicts the oldest responses beyond maxEntries', async () => {
    const store = memoryStore({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c', 'd', 'e']) await completeOne(store, key);
    expect(store.size).toBe(3);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('e')).toMatchObject({ state: 'completed' });
  });

  it('evicts the oldest responses beyond maxBytes', async () => {
    const store = memoryStore({ maxBytes: 5_000 });
    for (const key of ['a', 'b', 'c', 'd']) await completeOne(store, key, 2_000);
    expect(store.bytes).toBeLessThanOrEqual(5_000);
    expect(await store.get('a')).toBeUndefined();
    expect(await store.get('d')).toMatchObject({ state: 'completed' });
  });

  it('keeps a response larger than maxBytes as not replayable rather than dropping it', async () => {
    const store = memoryStore({ maxBytes: 1_000 });
    await completeOne(store, 'huge', 10_000);
    const entry = await store.get('huge');
    expect(entry?.state === 'completed' && entry.response.body).toBeNull();
  });

  it('never evicts in-flight locks: a store full of locks refuses another', async () => {
    const store = memoryStore({ maxEntries: 2 });
    await store.acquire('a', lock('a'));
    await store.acquire('b', lock('b'));
    await expect(store.acquire('c', lock('c'))).rejects.toThrow(/in-flight/);
    expect(await store.get('a')).toMatchObject({ state: 'in-flight' });
  });

  it('evicts expired entries first, by the injected clock', async () => {
    let time = 1_000;
    const store = memoryStore({ maxEntries: 2, now: () => time });
    await store.acquire('old', { fingerprint: 'fp', token: 'old', lockTtlMs: 10 });
    await completeOne(store, 'kept');
    time += 100;
    await store.acquire('new', lock('new'));
    expect(await store.get('old')).toBeUndefined();
    expect(await store.get('kept')).toMatchObject({ state: 'completed' });
  });

  it('when full, evicts an expired entry behind live ones before any live response', async () => {
    let time = 1_000;
    const store = memoryStore({ maxEntries: 12, now: () => time });
    const live = Array.from({ length: 10 }, (_, index) => `live-${index}`);
    for (const key of live) await completeOne(store, key);
    await store.acquire('short', { fingerprint: 'fp', token: 'short', lockTtlMs: 10 });
    await completeOne(store, 'last');
    time += 100;
    await store.acquire('new', lock('new'));
    expect(await store.get('short')).toBeUndefined();
    for (const key of [...live, 'last']) {
      expect(await store.get(key)).toMatchObject({ state: 'completed' });
    }
    // Nothing expired now: the next new entry evicts the oldest response.
    await store.acquire('newer', lock('newer'));
    expect(await store.get('live-0')).toBeUndefined();
    expect(await store.get('live-1')).toMatchObject({ state: 'completed' });
  });

  it('drops expired entries as new ones arrive, before the store is full', async () => {
    let time = 1_000;
    const store = memoryStore({ now: () => time });
    await store.acquire('short', { fingerprint: 'fp', token: 'short', lockTtlMs: 10 });
    await completeOne(store, 'kept');
    await store.acquire('new', lock('new'));
    expect(store.size).toBe(3);
    time += 100;
    await store.acquire('newer', lock('newer'));
    expect(store.size).toBe(3);
    expect(await store.get('kept')).toMatchObject({ state: 'completed' });
    // Expired later again, after a sweep found nothing to drop.
    await store.acquire('brief', { fingerprint: 'fp', token: 'brief', lockTtlMs: 10 });
    await store.acquire('another', lock('another'));
    expect(store.size).toBe(5);
    time += 100;
    await store.acquire('last', lock('last'));
    expect(store.size).toBe(5);
    expect(await store.get('brief')).toBeUndefined();
  });

  it('clear() empties it', async () => {
    const store = memoryStore();
    await completeOne(store, 'a');
    store.clear();
    expect(store.size).toBe(0);
    expect(store.bytes).toBe(0);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['a zero maxEntries', { maxEntries: 0 }, /"maxEntries" must be a positive integer/],
    ['a string maxBytes', { maxBytes: '64mb' }, /"maxBytes"/],
    ['a non-function clock', { now: 5 }, /"now" must be a function/],
    ['an unknown option', { ttl: 5 }, /unknown option "ttl"/],
  ])('refuses %s', (_title, options, message) => {
    expect(() => memoryStore(options as never)).toThrow(message);
  });
});
