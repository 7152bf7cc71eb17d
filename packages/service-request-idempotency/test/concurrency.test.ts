import { describeEachExpress, expectErrorEnvelope, waitFor } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { memoryStore } from '../src/index.js';
import { countingStore, deferred, startApp } from './helpers.js';

describeEachExpress('concurrent repeats (memory store)', (express) => {
  it('runs the handler exactly once for 50 concurrent identical POSTs', async () => {
    const store = countingStore(memoryStore());
    const app = await startApp(express, { store });
    const gate = deferred();
    app.gate = gate.promise;
    const responses = Promise.all(
      Array.from({ length: 50 }, () =>
        request(app.url).post('/v1/things').set('Service-Request-Id', 'burst').send({ a: 1 }),
      ),
    );
    // The first request is held in its handler until all 50 have reached the store.
    await waitFor(() => store.acquired === 50, { what: '50 requests to reach the store' });
    gate.resolve();
    const results = await responses;
    expect(app.runs.things).toBe(1);
    expect(results.filter((res) => res.status === 201)).toHaveLength(1);
    const conflicts = results.filter((res) => res.status === 409);
    expect(conflicts).toHaveLength(49);
    for (const res of conflicts) {
      expectErrorEnvelope(res, 409, { code: 'CONFLICT', target: 'Service-Request-Id' });
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error.innererror).toEqual({ code: 'REQUEST_IN_PROGRESS' });
    }
  });

  it('answers 409 with Retry-After while the first is running, then replays', async () => {
    const app = await startApp(express);
    const gate = deferred();
    app.gate = gate.promise;
    const first = request(app.url).post('/v1/things').set('Service-Request-Id', 'slow').then();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const during = await request(app.url).post('/v1/things').set('Service-Request-Id', 'slow');
    expectErrorEnvelope(during, 409, { code: 'CONFLICT' });
    expect(during.headers['retry-after']).toBe('1');
    gate.resolve();
    expect((await first).status).toBe(201);
    const after = await request(app.url).post('/v1/things').set('Service-Request-Id', 'slow');
    expect(after.headers['idempotent-replayed']).toBe('true');
    expect(app.runs.things).toBe(1);
  });

  it('answers 422, not 409, for a different body while the first is running', async () => {
    const app = await startApp(express);
    const gate = deferred();
    app.gate = gate.promise;
    const first = request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', 'slow-2')
      .send({ a: 1 })
      .then();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const during = await request(app.url)
      .post('/v1/things')
      .set('Service-Request-Id', 'slow-2')
      .send({ a: 2 });
    expectErrorEnvelope(during, 422, { code: 'UNPROCESSABLE_ENTITY' });
    gate.resolve();
    await first;
  });

  describe('with waitForInFlight', () => {
    it('gives all 50 concurrent requests the one response', async () => {
      const store = countingStore(memoryStore());
      const app = await startApp(express, { store, waitForInFlight: true });
      const gate = deferred();
      app.gate = gate.promise;
      const responses = Promise.all(
        Array.from({ length: 50 }, () =>
          request(app.url).post('/v1/things').set('Service-Request-Id', 'wait').send({ a: 1 }),
        ),
      );
      await waitFor(() => store.acquired === 50, { what: '50 requests to reach the store' });
      gate.resolve();
      const results = await responses;
      expect(app.runs.things).toBe(1);
      for (const res of results) {
        expect(res.status).toBe(201);
        expect(res.body).toEqual({ id: 'T-1', a: 1 });
      }
      expect(results.filter((res) => res.headers['idempotent-replayed'] === 'true')).toHaveLength(
        49,
      );
    });

    it('runs the waiting request itself when the first one failed', async () => {
      const app = await startApp(express, { waitForInFlight: true });
      const gate = deferred();
      app.gate = gate.promise;
      const first = request(app.url).post('/v1/gated-flaky').set('Service-Request-Id', 'wf').then();
      await new Promise((resolve) => setTimeout(resolve, 50));
      const second = request(app.url)
        .post('/v1/gated-flaky')
        .set('Service-Request-Id', 'wf')
        .then();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(app.runs['gated-flaky']).toBe(1);
      gate.resolve();
      expect((await first).status).toBe(500);
      const res = await second;
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(app.runs['gated-flaky']).toBe(2);
    });

    it('answers 409 when the first runs longer than waitTimeoutMs', async () => {
      const app = await startApp(express, { waitForInFlight: true, waitTimeoutMs: 50 });
      const gate = deferred();
      app.gate = gate.promise;
      const first = request(app.url).post('/v1/things').set('Service-Request-Id', 'long').then();
      await new Promise((resolve) => setTimeout(resolve, 20));
      const during = await request(app.url).post('/v1/things').set('Service-Request-Id', 'long');
      expectErrorEnvelope(during, 409, { code: 'CONFLICT' });
      gate.resolve();
      await first;
    });
  });

  describe('identity scoping', () => {
    it('never replays one caller’s response to another using the same id', async () => {
      const app = await startApp(express);
      const alice = await request(app.url)
        .post('/v1/things')
        .set('Authorization', 'Bearer alice')
        .set('Service-Request-Id', 'same')
        .send({ owner: 'alice' });
      const bob = await request(app.url)
        .post('/v1/things')
        .set('Authorization', 'Bearer bob')
        .set('Service-Request-Id', 'same')
        .send({ owner: 'alice' });
      expect(alice.body.id).toBe('T-1');
      expect(bob.body.id).toBe('T-2');
      expect(bob.headers['idempotent-replayed']).toBeUndefined();
      const aliceAgain = await request(app.url)
        .post('/v1/things')
        .set('Authorization', 'Bearer alice')
        .set('Service-Request-Id', 'same')
        .send({ owner: 'alice' });
      expect(aliceAgain.body.id).toBe('T-1');
    });

    it('scopes by a custom principal', async () => {
      const app = await startApp(express, {
        principal: (req) => String(req.headers['x-tenant'] ?? ''),
      });
      await request(app.url)
        .post('/v1/things')
        .set('X-Tenant', 't1')
        .set('Service-Request-Id', 'x');
      const other = await request(app.url)
        .post('/v1/things')
        .set('X-Tenant', 't2')
        .set('Service-Request-Id', 'x');
      const again = await request(app.url)
        .post('/v1/things')
        .set('X-Tenant', 't1')
        .set('Authorization', 'Bearer changed')
        .set('Service-Request-Id', 'x');
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(app.runs.things).toBe(2);
    });

    it('keeps apart a principal and id that would run together (the memory store keys them unhashed)', async () => {
      const app = await startApp(express, {
        principal: (req) => String(req.headers['x-tenant'] ?? ''),
      });
      const first = await request(app.url)
        .post('/v1/things')
        .set('X-Tenant', 'a')
        .set('Service-Request-Id', 'bc');
      const other = await request(app.url)
        .post('/v1/things')
        .set('X-Tenant', 'ab')
        .set('Service-Request-Id', 'c');
      expect(first.status).toBe(201);
      expect(other.status).toBe(201);
      expect(other.headers['idempotent-replayed']).toBeUndefined();
      expect(app.runs.things).toBe(2);
    });

    it('keeps an anonymous caller apart from every principal (the memory store keys anonymous ids by the id alone)', async () => {
      const app = await startApp(express, {
        principal: (req) => String(req.headers['x-tenant'] ?? ''),
      });
      const anonymous = await request(app.url).post('/v1/things').set('Service-Request-Id', 'x');
      // Neither a principal spelled like the id nor another one may find the anonymous entry.
      const sameText = await request(app.url)
        .post('/v1/things')
        .set('X-Tenant', 'x')
        .set('Service-Request-Id', 'x');
      const tenant = await request(app.url)
        .post('/v1/things')
        .set('X-Tenant', 't1')
        .set('Service-Request-Id', 'x');
      const anonymousAgain = await request(app.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'x');
      expect([anonymous.status, sameText.status, tenant.status]).toEqual([201, 201, 201]);
      expect(sameText.headers['idempotent-replayed']).toBeUndefined();
      expect(tenant.headers['idempotent-replayed']).toBeUndefined();
      expect(anonymousAgain.headers['idempotent-replayed']).toBe('true');
      expect(anonymousAgain.body.id).toBe(anonymous.body.id);
      expect(app.runs.things).toBe(3);
    });

    it('routes a failing principal function to the error handler', async () => {
      const app = await startApp(express, {
        principal: async () => {
          throw new Error('auth service down');
        },
      });
      const res = await request(app.url).post('/v1/things').set('Service-Request-Id', 'p');
      expectErrorEnvelope(res, 500);
      expect(app.runs.things).toBeUndefined();
    });
  });
});
