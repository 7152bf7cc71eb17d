import { asyncHandler, errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope, listen } from '@resourceful/test-support';
import type { Request, Response } from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  type ConditionalWriteOptions,
  conditionalRequests,
  conditionalWrite,
  formatETag,
  KeyedLock,
  requestPath,
} from '../src/index.js';

interface Webhook {
  id: string;
  url: string;
  version: number;
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 2));

describeEachExpress('conditionalWrite', (express) => {
  let store: Map<string, Webhook>;
  let writes: number;

  beforeEach(() => {
    store = new Map([['WH-1', { id: 'WH-1', url: 'https://a.example', version: 1 }]]);
    writes = 0;
  });

  const etag = (hook: Webhook) => formatETag(hook.version);

  function app(
    options: Pick<ConditionalWriteOptions<Webhook, unknown>, 'ifMissing' | 'requireIfMatch'> = {},
    { missingAsNull = false } = {},
  ) {
    const app = express();
    app.use(express.json());
    app.use(conditionalRequests());
    app.get('/hooks/:id', (req: Request, res: Response) => {
      const hook = store.get(String(req.params.id));
      if (!hook) {
        res.status(404).end();
        return;
      }
      res.setHeader('ETag', etag(hook));
      res.json(hook);
    });
    app.put(
      '/hooks/:id',
      asyncHandler(async (req: Request, res: Response) => {
        const id = String(req.params.id);
        const saved = await conditionalWrite(req, {
          // The store is asynchronous: without the lock, racing writers would interleave here.
          load: async () => {
            await tick();
            const hook = store.get(id);
            return missingAsNull ? (hook ?? null) : hook;
          },
          etag,
          write: async (current) => {
            await tick();
            const next = { id, url: String(req.body.url), version: (current?.version ?? 0) + 1 };
            store.set(id, next);
            writes++;
            return { next, created: current === undefined };
          },
          ...options,
        });
        res.setHeader('ETag', etag(saved.next));
        res.status(saved.created ? 201 : 200).json(saved.next);
      }),
    );
    app.use(errorHandler());
    return app;
  }

  describe('with If-Match', () => {
    it('writes when the tag is current and answers the new tag', async () => {
      const res = await request(app()).put('/hooks/WH-1').set('If-Match', '"1"').send({ url: 'b' });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"2"');
      expect(store.get('WH-1')?.url).toBe('b');
    });

    it('answers 412 and leaves the resource unchanged when the tag is stale', async () => {
      const res = await request(app()).put('/hooks/WH-1').set('If-Match', '"0"').send({ url: 'b' });
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
      expect(res.headers.etag).toBeUndefined();
      expect(store.get('WH-1')?.url).toBe('https://a.example');
      expect(writes).toBe(0);
    });

    it('answers 412 when the resource is missing and may be created', async () => {
      const res = await request(app({ ifMissing: 'proceed' }))
        .put('/hooks/WH-9')
        .set('If-Match', '*')
        .send({ url: 'b' });
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED' });
      expect(store.has('WH-9')).toBe(false);
    });

    it('answers 404, not 412, when the resource is missing', async () => {
      const res = await request(app()).put('/hooks/WH-9').set('If-Match', '"1"').send({ url: 'b' });
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });

    it('answers 409, not 412, when a missing resource is a conflict', async () => {
      const res = await request(app({ ifMissing: 'conflict' }))
        .put('/hooks/WH-9')
        .set('If-Match', '"1"')
        .send({ url: 'b' });
      expectErrorEnvelope(res, 409, { code: 'CONFLICT' });
    });

    it('accepts the tag that a GET returned', async () => {
      const server = app();
      const read = await request(server).get('/hooks/WH-1');
      const res = await request(server)
        .put('/hooks/WH-1')
        .set('If-Match', String(read.headers.etag))
        .send({ url: 'b' });
      expect(res.status).toBe(200);
    });
  });

  // Prisma's findUnique, many drivers and JSON stores answer null for a missing record.
  describe('with a load that answers null for a missing resource', () => {
    it('answers 404 when the resource is missing', async () => {
      const res = await request(app({}, { missingAsNull: true }))
        .put('/hooks/WH-9')
        .set('If-Match', '"1"')
        .send({ url: 'b' });
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
      expect(writes).toBe(0);
    });

    it('answers 409 when a missing resource is a conflict', async () => {
      const res = await request(app({ ifMissing: 'conflict' }, { missingAsNull: true }))
        .put('/hooks/WH-9')
        .send({ url: 'b' });
      expectErrorEnvelope(res, 409, { code: 'CONFLICT' });
      expect(writes).toBe(0);
    });

    it('creates a missing resource with If-None-Match: *, handing write undefined', async () => {
      const res = await request(app({ ifMissing: 'proceed' }, { missingAsNull: true }))
        .put('/hooks/WH-2')
        .set('If-None-Match', '*')
        .send({ url: 'b' });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({ id: 'WH-2', url: 'b', version: 1 });
    });

    it('updates an existing resource as before', async () => {
      const res = await request(app({}, { missingAsNull: true }))
        .put('/hooks/WH-1')
        .set('If-Match', '"1"')
        .send({ url: 'b' });
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"2"');
    });
  });

  describe('with If-None-Match: *', () => {
    it('creates a missing resource', async () => {
      const res = await request(app({ ifMissing: 'proceed' }))
        .put('/hooks/WH-2')
        .set('If-None-Match', '*')
        .send({ url: 'b' });
      expect(res.status).toBe(201);
      expect(store.get('WH-2')?.url).toBe('b');
    });

    it('answers 412 when the resource exists', async () => {
      const res = await request(app())
        .put('/hooks/WH-1')
        .set('If-None-Match', '*')
        .send({ url: 'b' });
      expectErrorEnvelope(res, 412, { target: 'If-None-Match' });
      expect(writes).toBe(0);
    });
  });

  describe('with requireIfMatch', () => {
    it('answers 428 for an update without If-Match', async () => {
      const res = await request(app({ requireIfMatch: true }))
        .put('/hooks/WH-1')
        .send({ url: 'b' });
      expectErrorEnvelope(res, 428, { code: 'PRECONDITION_REQUIRED', target: 'If-Match' });
      expect(writes).toBe(0);
    });

    it('lets a create through without If-Match', async () => {
      const res = await request(app({ requireIfMatch: true, ifMissing: 'proceed' }))
        .put('/hooks/WH-3')
        .send({ url: 'b' });
      expect(res.status).toBe(201);
    });
  });

  it('answers 400 for a malformed If-Match and writes nothing', async () => {
    const res = await request(app()).put('/hooks/WH-1').set('If-Match', '1').send({ url: 'b' });
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'If-Match' });
    expect(writes).toBe(0);
  });

  describe('when writers race with the same If-Match', () => {
    it('lets exactly one win and answers 412 to the others', async () => {
      const server = await listen(app());
      try {
        const attempts = Array.from({ length: 8 }, (_, i) =>
          fetch(`${server.url}/hooks/WH-1`, {
            method: 'PUT',
            headers: { 'Content-Type': 'application/json', 'If-Match': '"1"' },
            body: JSON.stringify({ url: `https://racer-${i}.example` }),
          }),
        );
        const statuses = (await Promise.all(attempts)).map((res) => res.status).sort();
        expect(statuses).toEqual([200, 412, 412, 412, 412, 412, 412, 412]);
        expect(writes).toBe(1);
        expect(store.get('WH-1')?.version).toBe(2);
      } finally {
        await server.close();
      }
    });

    it('lets exactly one win when each racer spells the URL of the resource differently', async () => {
      const server = await listen(app());
      try {
        // Express routes every one of these to id WH-1: case-insensitive paths, a trailing
        // slash, percent-encoded parameters.
        const spellings = [
          '/hooks/WH-1',
          '/HOOKS/WH-1',
          '/hooks/WH-1/',
          '/hooks/WH%2D1',
          '/Hooks/%57H-1',
        ];
        const attempts = spellings.map((path, i) =>
          fetch(`${server.url}${path}`, {
            method: 'PUT',
            headers: { 'Content-Type': 'application/json', 'If-Match': '"1"' },
            body: JSON.stringify({ url: `https://racer-${i}.example` }),
          }),
        );
        const statuses = (await Promise.all(attempts)).map((res) => res.status).sort();
        expect(statuses).toEqual([200, 412, 412, 412, 412]);
        expect(writes).toBe(1);
      } finally {
        await server.close();
      }
    });
  });
});

describe('KeyedLock', () => {
  it('runs tasks of one key one at a time, in order', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    const task = (name: string) => async () => {
      events.push(`start ${name}`);
      await tick();
      events.push(`end ${name}`);
      return name;
    };
    const results = await Promise.all([lock.run('k', task('a')), lock.run('k', task('b'))]);
    expect(results).toEqual(['a', 'b']);
    expect(events).toEqual(['start a', 'end a', 'start b', 'end b']);
    expect(lock.size).toBe(0);
  });

  it('runs tasks of different keys side by side', async () => {
    const lock = new KeyedLock();
    const events: string[] = [];
    const task = (name: string) => async () => {
      events.push(`start ${name}`);
      await tick();
      events.push(`end ${name}`);
    };
    await Promise.all([lock.run('a', task('a')), lock.run('b', task('b'))]);
    expect(events.slice(0, 2)).toEqual(['start a', 'start b']);
  });

  it('releases the key when a task rejects', async () => {
    const lock = new KeyedLock();
    await expect(
      lock.run('k', () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    await expect(lock.run('k', () => 'next')).resolves.toBe('next');
    expect(lock.size).toBe(0);
  });
});

describe('requestPath', () => {
  const path = (url: string, originalUrl?: string) => {
    const req = { url } as Parameters<typeof requestPath>[0] & { originalUrl?: string };
    if (originalUrl !== undefined) req.originalUrl = originalUrl;
    return requestPath(req);
  };

  it('drops the query and the fragment', () => {
    expect(path('/hooks/1?x=1')).toBe('/hooks/1');
    expect(path('/hooks/1#top')).toBe('/hooks/1');
  });

  it('prefers the original URL, so a mounted router keys by the whole path', () => {
    expect(path('/1', '/v1/hooks/1')).toBe('/v1/hooks/1');
  });

  it.each([
    '/hooks/WH-1',
    '/HOOKS/wh-1',
    '/hooks/WH-1/',
    '/hooks//WH-1',
    '/hooks/WH%2D1',
    '/hooks/%57H-1?x=%2F',
    'http://api.example/hooks/WH-1',
  ])('gives %s the key of every spelling Express routes alike', (url) => {
    expect(path(url)).toBe('/hooks/wh-1');
  });

  it('keeps a malformed escape as it is', () => {
    expect(path('/hooks/%E0%A4%A')).toBe('/hooks/%e0%a4%a');
  });

  it('keys the root as /', () => {
    expect(path('')).toBe('/');
    expect(path('/?a=1')).toBe('/');
  });
});

// An application's own tag may hold "~" (it is not one of the middleware's representation tags):
// a client holding an older version must still lose.
describeEachExpress('conditionalWrite with a version tag that holds "~"', (express) => {
  function app() {
    const store = new Map([['WH-1', { id: 'WH-1', url: 'https://a.example', version: 1 }]]);
    const app = express();
    app.use(express.json());
    app.put(
      '/hooks/:id',
      asyncHandler(async (req: Request, res: Response) => {
        const id = String(req.params.id);
        await conditionalWrite(req, {
          load: () => store.get(id),
          etag: (hook) => `"rev~${hook.version}"`,
          write: (current) => {
            store.set(id, { id, url: String(req.body.url), version: (current?.version ?? 0) + 1 });
          },
        });
        res.status(204).end();
      }),
    );
    app.use(errorHandler());
    return app;
  }

  it('answers 412 to If-Match of the version before and 204 to the current one', async () => {
    const server = app();
    const first = await request(server)
      .put('/hooks/WH-1')
      .set('If-Match', '"rev~1"')
      .send({ url: 'https://b.example' });
    expect(first.status).toBe(204);
    const stale = await request(server)
      .put('/hooks/WH-1')
      .set('If-Match', '"rev~1"')
      .send({ url: 'https://c.example' });
    expectErrorEnvelope(stale, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
  });
});
