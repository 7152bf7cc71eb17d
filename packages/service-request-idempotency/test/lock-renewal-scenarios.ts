/**
 * The lock renewal, run against each store: a handler that outlives `lockTtlMs` keeps its lock
 * (repeats get 409, the handler runs once), and a lock lost meanwhile never lets the first
 * run's answer replace the second's.
 */
import { randomUUID } from 'node:crypto';
import { type ExpressModule, expectErrorEnvelope, waitFor } from '@resourceful/test-support';
import request from 'supertest';
import { expect, it } from 'vitest';
import { type IdempotencyStore, LockLostError } from '../src/index.js';
import { deferred, retryAfterCut, startApp } from './helpers.js';

/** Small, so the scenario takes a second; the renewal runs every third of it. */
const LOCK_TTL_MS = 500;

/** Waits, polling, until `ms` have passed since `since`: the scenario needs that time to pass. */
function passed(since: number, ms: number, what: string): Promise<void> {
  return waitFor(() => Date.now() - since > ms, { what, intervalMs: 20 });
}

export interface RenewalSetup {
  /** A fresh store on the backend under test. */
  store(): IdempotencyStore;
  /** Makes the backend lose every entry of `store` (a flush, a restart empty). */
  lose(store: IdempotencyStore): Promise<void>;
}

export function lockRenewalScenarios(express: ExpressModule, setup: RenewalSetup): void {
  it('keeps the lock of a handler that outlives lockTtlMs: repeats get 409, it runs once', async () => {
    const app = await startApp(express, { store: setup.store(), lockTtlMs: LOCK_TTL_MS });
    const gate = deferred();
    app.gate = gate.promise;
    const id = randomUUID();
    const started = Date.now();
    const first = request(app.url).post('/v1/things').set('Service-Request-Id', id).send({ a: 1 });
    const firstDone = first.then();
    await waitFor(() => app.runs.things === 1, { what: 'the first handler to start' });
    await passed(started, 2 * LOCK_TTL_MS, 'two lock TTLs to pass');
    // Concurrent duplicates, long after the first lock would have expired without renewal.
    const repeats = await Promise.all(
      Array.from({ length: 5 }, () =>
        request(app.url).post('/v1/things').set('Service-Request-Id', id).send({ a: 1 }),
      ),
    );
    for (const repeat of repeats) {
      expectErrorEnvelope(repeat, 409, { code: 'CONFLICT', target: 'Service-Request-Id' });
      expect(repeat.body.error.innererror).toEqual({ code: 'REQUEST_IN_PROGRESS' });
    }
    gate.resolve();
    const answer = await firstDone;
    expect(answer.status).toBe(201);
    const replay = await request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', id)
      .send({ a: 1 });
    expect(replay.status).toBe(201);
    expect(replay.headers.location).toBe(answer.headers.location);
    expect(app.runs.things).toBe(1);
  });

  it('keeps the lock after the client gave up, until the handler ends', async () => {
    const app = await startApp(express, { store: setup.store(), lockTtlMs: LOCK_TTL_MS });
    const gate = deferred();
    app.gate = gate.promise;
    const id = randomUUID();
    const started = Date.now();
    const first = request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', id)
      .timeout(LOCK_TTL_MS / 2)
      .send({ a: 1 })
      .then(
        () => 'answered',
        () => 'timed out',
      );
    expect(await first).toBe('timed out');
    await passed(started, 2 * LOCK_TTL_MS, 'two lock TTLs to pass');
    const retry = await request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', id)
      .send({ a: 1 });
    expectErrorEnvelope(retry, 409, { code: 'CONFLICT' });
    gate.resolve();
    await waitFor(
      async () =>
        (await request(app.url).post('/v1/things').set('Service-Request-Id', id).send({ a: 1 }))
          .status === 201,
      { what: 'the first run to be stored' },
    );
    expect(app.runs.things).toBe(1);
  });

  it('gives back the lock of a response the error handler cut, so a retry runs', async () => {
    const app = await startApp(express, { store: setup.store(), lockTtlMs: LOCK_TTL_MS });
    // Without the release the lock would be renewed for 10 lock TTLs after the cut.
    const retry = await retryAfterCut(app, randomUUID(), 6 * LOCK_TTL_MS);
    expect(retry.status).toBe(201);
    expect(app.runs['stream-then-fail']).toBe(2);
  });

  it('reports a lock lost mid-run, and the first answer never replaces the second', async () => {
    const errors: unknown[] = [];
    const store = setup.store();
    const app = await startApp(express, {
      store,
      lockTtlMs: LOCK_TTL_MS,
      onStoreError: (error) => errors.push(error),
    });
    const firstGate = deferred();
    app.gate = firstGate.promise;
    const id = randomUUID();
    const first = request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', id)
      .send({ a: 1 })
      .then();
    await waitFor(() => app.runs.things === 1, { what: 'the first handler to start' });
    await setup.lose(store);
    await waitFor(() => errors.some((error) => error instanceof LockLostError), {
      what: 'the renewal to find the lock lost',
    });
    // The id is free again: a retry runs (the documented cost of a lost lock) and is stored.
    app.gate = undefined;
    const second = await request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', id)
      .send({ a: 1 });
    expect(second.status).toBe(201);
    expect(second.headers.location).toBe('/v1/things/T-2');
    firstGate.resolve();
    expect((await first).headers.location).toBe('/v1/things/T-1');
    const replay = await request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', id)
      .send({ a: 1 });
    expect(replay.status).toBe(201);
    expect(replay.headers.location).toBe('/v1/things/T-2');
  });
}
