/**
 * Test apps: a create route that counts how often its handler really runs, behind the
 * middleware, built with whichever Express the suite runs under.
 */
import { asyncHandler, errorHandler } from '@resourceful/error-envelope';
import { type ExpressModule, listen, type RunningServer, waitFor } from '@resourceful/test-support';
import type { Request, Response } from 'express';
import request from 'supertest';
import { afterEach, expect } from 'vitest';
import {
  type IdempotencyStore,
  type ServiceRequestIdempotencyOptions,
  serviceRequestIdempotency,
} from '../src/index.js';

export interface TestApp {
  readonly server: RunningServer;
  readonly url: string;
  /** How many times a handler body ran, per route. */
  readonly runs: Record<string, number>;
  /** While set, /things handlers wait for it before answering. */
  gate: Promise<void> | undefined;
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

const servers: RunningServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

export async function startApp(
  express: ExpressModule,
  options: ServiceRequestIdempotencyOptions = {},
): Promise<TestApp> {
  const app = express();
  const runs: Record<string, number> = {};
  const state: { gate: Promise<void> | undefined } = { gate: undefined };
  const count = (route: string) => {
    runs[route] = (runs[route] ?? 0) + 1;
    return runs[route];
  };
  app.use(express.json({ limit: '4mb' }));
  app.use(serviceRequestIdempotency(options));

  app.post(
    '/v1/things',
    asyncHandler(async (req: Request, res: Response) => {
      const n = count('things');
      if (state.gate) await state.gate;
      const id = `T-${n}`;
      res
        .status(201)
        .location(`/v1/things/${id}`)
        .set('ETag', `"${id}"`)
        .set('Set-Cookie', 'session=abc')
        .set('X-RateLimit-Remaining', '9')
        .set('Cache-Control', 'no-store')
        .json({ id, ...(req.body as object) });
    }),
  );
  app.post('/v1/other', (_req: Request, res: Response) => {
    count('other');
    res.status(201).json({ other: true });
  });
  app.post('/v1/write-head', (_req: Request, res: Response) => {
    const n = count('write-head');
    res.writeHead(201, { 'Content-Type': 'text/plain; charset=utf-8', Location: `/w/${n}` });
    res.write('part-1 ');
    res.write(Buffer.from('part-2 '));
    res.end(`run ${n}`);
  });
  app.post('/v1/write-head-array', (_req: Request, res: Response) => {
    const n = count('write-head-array');
    res.writeHead(202, 'Accepted', [
      'Content-Type',
      'text/plain',
      'Link',
      `</jobs/${n}>; rel=self`,
    ]);
    res.end(`job ${n}`);
  });
  app.post('/v1/send', (_req: Request, res: Response) => {
    const n = count('send');
    res.status(200).type('text').send(`sent ${n}`);
  });
  app.post('/v1/binary', (_req: Request, res: Response) => {
    count('binary');
    res
      .status(201)
      .type('application/octet-stream')
      .send(Buffer.from([0, 255, 1, 254, 0x80]));
  });
  app.post('/v1/no-content', (_req: Request, res: Response) => {
    count('no-content');
    res.status(204).end();
  });
  app.post('/v1/invalid', (_req: Request, res: Response) => {
    count('invalid');
    res.status(400).json({ error: { code: 'VALIDATION_ERROR', message: 'bad' } });
  });
  app.post('/v1/throttled', (_req: Request, res: Response) => {
    const n = count('throttled');
    if (n === 1) {
      res.status(429).json({ error: { code: 'TOO_MANY_REQUESTS', message: 'slow down' } });
      return;
    }
    res.status(201).json({ n });
  });
  // A refusal that says "the same request may succeed later" (conditional-requests' 409
  // WRITE_CONTENTION), then, at the given run, a refusal that does not (412).
  app.post('/v1/contended', (req: Request, res: Response) => {
    const n = count('contended');
    if (n === 1) {
      res
        .set('Retry-After', '1')
        .status(409)
        .json({ error: { code: 'WRITE_CONTENTION', message: 'busy' } });
      return;
    }
    if (req.query.refuse === 'yes') {
      res.status(412).json({ error: { code: 'PRECONDITION_FAILED', message: 'changed' } });
      return;
    }
    res.status(201).json({ n });
  });
  app.post('/v1/accepted-later', (_req: Request, res: Response) => {
    const n = count('accepted-later');
    res.set('Retry-After', '5').status(202).json({ n });
  });
  app.post('/v1/flaky', (_req: Request, res: Response) => {
    const n = count('flaky');
    if (n === 1) throw new Error('database went away');
    res.status(201).json({ n });
  });
  app.post(
    '/v1/flaky-async',
    asyncHandler(async (_req: Request, res: Response) => {
      const n = count('flaky-async');
      await Promise.resolve();
      if (n === 1) throw new Error('async failure');
      res.status(201).json({ n });
    }),
  );
  app.post(
    '/v1/gated-flaky',
    asyncHandler(async (_req: Request, res: Response) => {
      const n = count('gated-flaky');
      if (state.gate) await state.gate;
      if (n === 1) throw new Error('failed after a while');
      res.status(201).json({ n });
    }),
  );
  app.post('/v1/respond-then-throw', (_req: Request, res: Response) => {
    const n = count('respond-then-throw');
    res.status(201).json({ n });
    throw new Error('failed after responding');
  });
  app.post(
    '/v1/respond-then-reject',
    asyncHandler(async (_req: Request, res: Response) => {
      const n = count('respond-then-reject');
      res.status(201).json({ n });
      await Promise.resolve();
      res.status(500);
      throw new Error('failed after responding');
    }),
  );
  // Fails after its head and a part of its body went out (first run only): the error handler
  // can only cut the connection.
  app.post(
    '/v1/stream-then-fail',
    (_req: Request, res: Response, next: (err?: unknown) => void) => {
      const n = count('stream-then-fail');
      if (n > 1) {
        res.status(201).json({ n });
        return;
      }
      res.status(201).type('text').write('partial ');
      next(new Error('failed mid-stream'));
    },
  );
  // Handlers that reuse the Buffer they wrote (a pool, a scratch buffer): the app may change
  // it once `write` or `end` returned.
  app.post('/v1/reused-buffer-end', (_req: Request, res: Response) => {
    const n = count('reused-buffer-end');
    const scratch = Buffer.from(`first ${n}`);
    res.status(201).type('text');
    res.end(scratch);
    scratch.fill('x');
  });
  app.post('/v1/reused-buffer-write', (_req: Request, res: Response) => {
    const n = count('reused-buffer-write');
    const scratch = Buffer.from(`part ${n};`);
    res.status(201).type('text');
    res.write(scratch);
    scratch.fill('x');
    res.end(scratch);
    scratch.fill('y');
  });
  app.post('/v1/large', (_req: Request, res: Response) => {
    const n = count('large');
    res.status(201).type('text').send(`${n}`.padEnd(4096, 'x'));
  });
  app.post('/v1/echo-headers', (req: Request, res: Response) => {
    count('echo-headers');
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && name.startsWith('idempotent')) res.setHeader(name, value);
    }
    res.status(201).json({ ok: true });
  });
  app.get('/v1/things', (_req: Request, res: Response) => {
    count('list');
    res.json({ items: [] });
  });
  app.use(errorHandler({ onError: () => undefined }));

  const server = await listen(app);
  servers.push(server);
  return {
    server,
    url: server.url,
    runs,
    get gate() {
      return state.gate;
    },
    set gate(value) {
      state.gate = value;
    },
  };
}

/** Wraps a store to count `acquire` calls, so a test can wait until every request got there. */
export function countingStore(inner: IdempotencyStore): IdempotencyStore & { acquired: number } {
  const counted = {
    acquired: 0,
    acquire: async (...args: Parameters<IdempotencyStore['acquire']>) => {
      try {
        return await inner.acquire(...args);
      } finally {
        counted.acquired++;
      }
    },
    complete: inner.complete.bind(inner),
    release: inner.release.bind(inner),
    get: inner.get.bind(inner),
  };
  return counted;
}

/** Wraps a store so that storing a completion takes `delayMs`, as a slow Redis would. */
export function slowCompletingStore(inner: IdempotencyStore, delayMs: number): IdempotencyStore {
  return {
    acquire: (key, lock) => inner.acquire(key, lock),
    get: (key) => inner.get(key),
    release: (key, token) => inner.release(key, token),
    complete: async (key, completion) => {
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      await inner.complete(key, completion);
    },
  };
}

/**
 * Posts to `/v1/stream-then-fail` with `id` (its first run fails mid-response, and the error
 * handler cuts the connection), then repeats while the id is refused as in flight (409), for at
 * most `timeoutMs`. @returns the first answer that is not a 409
 */
export async function retryAfterCut(
  app: TestApp,
  id: string,
  timeoutMs: number,
): Promise<request.Response> {
  const post = () => request(app.url).post('/v1/stream-then-fail').set('Service-Request-Id', id);
  const first = await post().then(
    () => 'answered',
    () => 'cut',
  );
  expect(first).toBe('cut');
  let retry: request.Response | undefined;
  await waitFor(
    async () => {
      retry = await post();
      return retry.status !== 409;
    },
    { timeoutMs, what: 'the id to be given back' },
  );
  return retry!;
}
