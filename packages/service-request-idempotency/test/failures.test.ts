import type { ServerResponse } from 'node:http';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  waitFor,
} from '@resourceful/test-support';
import type { Request, Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { type IdempotencyStore, memoryStore, serviceRequestIdempotency } from '../src/index.js';
import { retryAfterCut, slowCompletingStore, startApp } from './helpers.js';

/** A store whose every call fails, as when the database behind it is down. */
function brokenStore(): IdempotencyStore & { calls: number } {
  const fail = async (): Promise<never> => {
    store.calls++;
    throw new Error('ECONNREFUSED 127.0.0.1:6379');
  };
  const store = { calls: 0, acquire: fail, complete: fail, release: fail, get: fail };
  return store;
}

describeEachExpress('failed first attempts', (express) => {
  describe('when the handler throws', () => {
    it('answers 500 and leaves the id free for a retry', async () => {
      const app = await startApp(express);
      const first = await request(app.url).post('/v1/flaky').set('Service-Request-Id', 'f');
      expectErrorEnvelope(first, 500, { code: 'INTERNAL_SERVER_ERROR' });
      const retry = await request(app.url).post('/v1/flaky').set('Service-Request-Id', 'f');
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual({ n: 2 });
      const replay = await request(app.url).post('/v1/flaky').set('Service-Request-Id', 'f');
      expect(replay.body).toEqual({ n: 2 });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(app.runs.flaky).toBe(2);
    });

    it('leaves the id free after an async rejection too', async () => {
      const app = await startApp(express);
      const first = await request(app.url).post('/v1/flaky-async').set('Service-Request-Id', 'fa');
      expect(first.status).toBe(500);
      const retry = await request(app.url).post('/v1/flaky-async').set('Service-Request-Id', 'fa');
      expect(retry.status).toBe(201);
    });
  });

  describe('when the handler fails after it responded', () => {
    it('sends the response it wrote, not a 500 over it, and replays that response', async () => {
      const app = await startApp(express);
      const first = await request(app.url)
        .post('/v1/respond-then-throw')
        .set('Service-Request-Id', 'rt');
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ n: 1 });
      const repeat = await request(app.url)
        .post('/v1/respond-then-throw')
        .set('Service-Request-Id', 'rt');
      expect(repeat.status).toBe(201);
      expect(repeat.body).toEqual({ n: 1 });
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(app.runs['respond-then-throw']).toBe(1);
    });

    it('frees the id when the error handler cut a response already under way', async () => {
      // A lock that never expires by itself (the store's clock stands still): only the
      // middleware can free it. The lock renewer looks at it every sixth of lockTtlMs.
      const store = memoryStore({ now: () => 0 });
      const app = await startApp(express, { store, lockTtlMs: 600 });
      const retry = await retryAfterCut(app, 'sf', 3000);
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual({ n: 2 });
      expect(app.runs['stream-then-fail']).toBe(2);
    });

    it.each([
      ['at once', true],
      ['after the id was freed', false],
    ])('never stores the cut response, even when the handler ends it %s', async (_when, atOnce) => {
      const store = memoryStore({ now: () => 0 });
      const app = express();
      let cut: ServerResponse | undefined;
      let runs = 0;
      app.post(
        '/v1/things',
        serviceRequestIdempotency({ store, lockTtlMs: 600 }),
        (_req: Request, res: Response, next: (err?: unknown) => void) => {
          runs += 1;
          if (runs > 1) {
            res.status(201).json({ run: runs });
            return;
          }
          res.status(201).type('text').write('partial ');
          cut = res;
          next(new Error('failed mid-stream'));
          // A stream piped into the response that ends after all, say.
          if (atOnce) res.end('rest');
        },
      );
      app.use(errorHandler({ onError: () => undefined }));
      const server = await listen(app);
      try {
        const post = () => request(server.url).post('/v1/things').set('Service-Request-Id', 'late');
        await post().then(
          () => undefined,
          () => undefined,
        );
        await waitFor(() => store.size === 0, {
          timeoutMs: 3000,
          what: 'the lock to be given back',
        });
        if (!atOnce) cut?.end('rest');
        const retry = await post();
        expect(retry.status).toBe(201);
        expect(retry.body).toEqual({ run: 2 });
        expect(retry.headers['idempotent-replayed']).toBeUndefined();
      } finally {
        await server.close();
      }
    });

    it('keeps the status it stored when a later rejection changes res.statusCode (slow store)', async () => {
      const app = await startApp(express, { store: slowCompletingStore(memoryStore(), 30) });
      const first = await request(app.url)
        .post('/v1/respond-then-reject')
        .set('Service-Request-Id', 'rr');
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ n: 1 });
      const repeat = await request(app.url)
        .post('/v1/respond-then-reject')
        .set('Service-Request-Id', 'rr');
      expect(repeat.status).toBe(201);
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(app.runs['respond-then-reject']).toBe(1);
    });
  });

  it('does not store a 429, so the id can be retried', async () => {
    const app = await startApp(express);
    const first = await request(app.url).post('/v1/throttled').set('Service-Request-Id', 't');
    expect(first.status).toBe(429);
    const retry = await request(app.url).post('/v1/throttled').set('Service-Request-Id', 't');
    expect(retry.status).toBe(201);
    expect(app.runs.throttled).toBe(2);
  });

  it('does not store a 4xx that carries Retry-After, so the same id can be retried', async () => {
    const app = await startApp(express);
    const first = await request(app.url).post('/v1/contended').set('Service-Request-Id', 'c');
    expect(first.status).toBe(409);
    expect(first.headers['retry-after']).toBe('1');
    const retry = await request(app.url).post('/v1/contended').set('Service-Request-Id', 'c');
    expect(retry.status).toBe(201);
    const replay = await request(app.url).post('/v1/contended').set('Service-Request-Id', 'c');
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(app.runs.contended).toBe(2);
  });

  it('stores a 4xx without Retry-After after such a retry', async () => {
    const app = await startApp(express);
    await request(app.url).post('/v1/contended?refuse=yes').set('Service-Request-Id', 'r');
    const refused = await request(app.url)
      .post('/v1/contended?refuse=yes')
      .set('Service-Request-Id', 'r');
    expect(refused.status).toBe(412);
    const replay = await request(app.url)
      .post('/v1/contended?refuse=yes')
      .set('Service-Request-Id', 'r');
    expect(replay.status).toBe(412);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(app.runs.contended).toBe(2);
  });

  it('stores a 202 that carries Retry-After (a polling hint, not a refusal)', async () => {
    const app = await startApp(express);
    await request(app.url).post('/v1/accepted-later').set('Service-Request-Id', 'a');
    const replay = await request(app.url).post('/v1/accepted-later').set('Service-Request-Id', 'a');
    expect(replay.status).toBe(202);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(app.runs['accepted-later']).toBe(1);
  });

  describe('when the process dies mid-request (lock never released)', () => {
    it('answers 409 while the lock lives and runs the handler once it expired', async () => {
      // The store's clock, moved by hand: the lock expires when the test says, however slow
      // the machine is.
      let clock = Date.now();
      const store = memoryStore({ now: () => clock });
      const app = await startApp(express, { store, lockTtlMs: 60_000 });
      // Another process took the lock with the same fingerprint and died.
      const probe = await startApp(express, { store, lockTtlMs: 60_000 });
      probe.gate = new Promise(() => undefined);
      const abandoned = request(probe.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'dead')
        .timeout(100)
        .then(
          () => 'answered',
          () => 'aborted',
        );
      expect(await abandoned).toBe('aborted');

      const during = await request(app.url).post('/v1/things').set('Service-Request-Id', 'dead');
      expectErrorEnvelope(during, 409, { code: 'CONFLICT' });
      clock += 59_000;
      const stillHeld = await request(app.url).post('/v1/things').set('Service-Request-Id', 'dead');
      expectErrorEnvelope(stillHeld, 409, { code: 'CONFLICT' });
      clock += 1_001;
      const status = (await request(app.url).post('/v1/things').set('Service-Request-Id', 'dead'))
        .status;
      expect(status).toBe(201);
      expect(app.runs.things).toBe(1);
    });
  });

  describe('when the store cannot be reached', () => {
    it('answers 503 with Retry-After and does not run the handler', async () => {
      const store = brokenStore();
      const errors: unknown[] = [];
      const app = await startApp(express, { store, onStoreError: (e) => errors.push(e) });
      const res = await request(app.url).post('/v1/things').set('Service-Request-Id', 'down');
      expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe('1');
      expect(res.body.error.innererror).toEqual({ code: 'IDEMPOTENCY_STORE_UNAVAILABLE' });
      expect(res.text).not.toContain('ECONNREFUSED');
      expect(app.runs.things).toBeUndefined();
      expect(errors).toHaveLength(1);
    });

    it('gives back a lock that a failed acquire took anyway, so the retry runs at once', async () => {
      // Redis ran the lock script, but its answer came after commandTimeoutMs.
      const inner = memoryStore();
      const late: IdempotencyStore = {
        acquire: async (key, lock) => {
          await inner.acquire(key, lock);
          throw new Error('Redis did not answer within 1000 ms');
        },
        get: (key) => inner.get(key),
        complete: (key, completion) => inner.complete(key, completion),
        release: (key, token) => inner.release(key, token),
      };
      const first = await startApp(express, { store: late });
      const refused = await request(first.url).post('/v1/things').set('Service-Request-Id', 'slow');
      expectErrorEnvelope(refused, 503, { code: 'SERVICE_UNAVAILABLE' });
      const healthy = await startApp(express, { store: inner });
      await waitFor(() => inner.size === 0, {
        timeoutMs: 2_000,
        what: 'the lock to be given back',
      });
      const retry = await request(healthy.url).post('/v1/things').set('Service-Request-Id', 'slow');
      expect(retry.status).toBe(201);
      expect(healthy.runs.things).toBe(1);
      expect(first.runs.things).toBeUndefined();
    });

    it('sends the configured Retry-After', async () => {
      const app = await startApp(express, { store: brokenStore(), retryAfterSeconds: 7 });
      const res = await request(app.url).post('/v1/things').set('Service-Request-Id', 'down');
      expect(res.headers['retry-after']).toBe('7');
    });

    it('runs the handler unprotected with failOpen', async () => {
      const app = await startApp(express, { store: brokenStore(), failOpen: true });
      const res = await request(app.url).post('/v1/things').set('Service-Request-Id', 'open');
      expect(res.status).toBe(201);
      expect(app.runs.things).toBe(1);
    });

    it('does not touch the store for requests without an id', async () => {
      const store = brokenStore();
      const app = await startApp(express, { store });
      const res = await request(app.url).post('/v1/things');
      expect(res.status).toBe(201);
      expect(store.calls).toBe(0);
    });
  });
});
