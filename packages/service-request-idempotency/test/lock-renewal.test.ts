import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { describeEachExpress, waitFor } from '@resourceful/test-support';
import request from 'supertest';
import { expect, it } from 'vitest';
import { type IdempotencyStore, type MemoryStore, memoryStore } from '../src/index.js';
import { deferred, startApp } from './helpers.js';
import { lockRenewalScenarios } from './lock-renewal-scenarios.js';

const FIXTURE = new URL('./fixtures/renewal-exit.ts', import.meta.url);

function timeout(ms: number): Promise<'timed out'> {
  return new Promise((resolve) => setTimeout(() => resolve('timed out'), ms).unref());
}

/** The memory store's methods as a third-party store written before `renew` would have them. */
function withoutRenew(inner: IdempotencyStore): IdempotencyStore {
  return {
    acquire: (key, lock) => inner.acquire(key, lock),
    complete: (key, completion) => inner.complete(key, completion),
    release: (key, token) => inner.release(key, token),
    get: (key) => inner.get(key),
  };
}

describeEachExpress('lock renewal (memory store)', (express) => {
  lockRenewalScenarios(express, {
    store: () => memoryStore(),
    lose: async (store) => (store as MemoryStore).clear(),
  });

  it('renews through the promise of a store that has renew (any store)', async () => {
    const inner = memoryStore();
    let renewals = 0;
    const store: IdempotencyStore = {
      ...withoutRenew(inner),
      renew: (key, token, ttl) => {
        renewals++;
        return inner.renew(key, token, ttl);
      },
    };
    const app = await startApp(express, { store, lockTtlMs: 300 });
    const gate = deferred();
    app.gate = gate.promise;
    const id = randomUUID();
    const first = request(app.url).post('/v1/things').set('Service-Request-Id', id).then();
    await waitFor(() => renewals >= 3, { what: 'three renewals' });
    expect((await request(app.url).post('/v1/things').set('Service-Request-Id', id)).status).toBe(
      409,
    );
    gate.resolve();
    expect((await first).status).toBe(201);
    expect(app.runs.things).toBe(1);
  });

  it('keeps the older contract with a store without renew: the lock lives lockTtlMs', async () => {
    const app = await startApp(express, { store: withoutRenew(memoryStore()), lockTtlMs: 100 });
    const gate = deferred();
    app.gate = gate.promise;
    const id = randomUUID();
    const first = request(app.url).post('/v1/things').set('Service-Request-Id', id).then();
    await waitFor(() => app.runs.things === 1, { what: 'the first handler to start' });
    app.gate = undefined;
    await waitFor(
      async () =>
        (await request(app.url).post('/v1/things').set('Service-Request-Id', id)).status !== 409,
      { what: 'the unrenewed lock to expire' },
    );
    gate.resolve();
    await first;
    expect(app.runs.things).toBe(2);
  });

  it('reports a failed renewal and tries again while the lock may still be held', async () => {
    const inner = memoryStore();
    const errors: unknown[] = [];
    let failures = 2;
    const store: IdempotencyStore = {
      ...withoutRenew(inner),
      renew: (key, token, ttl) =>
        failures-- > 0 ? Promise.reject(new Error('renew failed')) : inner.renew(key, token, ttl),
    };
    const app = await startApp(express, {
      store,
      // Long enough that two failed renewals, a tick apart, leave the third time on a busy machine.
      lockTtlMs: 3_000,
      onStoreError: (error) => errors.push(error),
    });
    const gate = deferred();
    app.gate = gate.promise;
    const id = randomUUID();
    const first = request(app.url).post('/v1/things').set('Service-Request-Id', id).then();
    await waitFor(() => failures < 0, { what: 'two failed renewals, then one that succeeded' });
    expect(errors.map((error) => (error as Error).message)).toEqual([
      'renew failed',
      'renew failed',
    ]);
    expect((await request(app.url).post('/v1/things').set('Service-Request-Id', id)).status).toBe(
      409,
    );
    gate.resolve();
    expect((await first).status).toBe(201);
    expect(app.runs.things).toBe(1);
  });

  it('stops renewing once the response ended: the process exits by itself', async () => {
    const child = spawn(
      process.execPath,
      ['--conditions=source', '--import', 'tsx', fileURLToPath(FIXTURE)],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    const code = await Promise.race([exited, timeout(30_000)]);
    if (code === 'timed out') child.kill();
    expect(code).toBe(0);
    // Answered after renewals: the timer ran, and stopped.
    const [status, renewals] = out.trim().split(' ').map(Number);
    expect(status).toBe(201);
    expect(renewals).toBeGreaterThanOrEqual(1);
  }, 40_000);
});
