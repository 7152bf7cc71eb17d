import { asyncHandler, errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  type ExpressModule,
  expectErrorEnvelope,
  hasPostgresServer,
  listen,
  type PostgresServer,
  startPostgresServer,
} from '@resourceful/test-support';
import type { Request, Response } from 'express';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  conditionalRequests,
  conditionalWrite,
  etagFor,
  KeyedLock,
  StaleVersionError,
  type WriteCondition,
} from '../src/index.js';

interface Hook {
  id: string;
  url: string;
}

/**
 * A compare-and-set store: the row carries the tag of its document, and every write names the
 * tag it was checked against. The SQL applies the change only while the row still has it.
 */
class PgHooks {
  constructor(readonly pool: pg.Pool) {}

  async load(id: string): Promise<Hook | undefined> {
    const { rows } = await this.pool.query<{ doc: Hook }>('SELECT doc FROM hooks WHERE id = $1', [
      id,
    ]);
    return rows[0]?.doc;
  }

  async put(hook: Hook, condition: WriteCondition): Promise<void> {
    const { rowCount } = condition.exists
      ? await this.pool.query('UPDATE hooks SET doc = $3, etag = $4 WHERE id = $1 AND etag = $2', [
          hook.id,
          condition.etag,
          JSON.stringify(hook),
          etagFor(hook),
        ])
      : await this.pool.query(
          'INSERT INTO hooks (id, doc, etag) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING',
          [hook.id, JSON.stringify(hook), etagFor(hook)],
        );
    if (rowCount !== 1) throw new StaleVersionError();
  }

  async delete(id: string, condition: WriteCondition): Promise<void> {
    if (!condition.exists) return;
    const { rowCount } = await this.pool.query('DELETE FROM hooks WHERE id = $1 AND etag = $2', [
      id,
      condition.etag,
    ]);
    if (rowCount !== 1) throw new StaleVersionError();
  }
}

/** One instance of a service: its own pool, no lock shared with the other instance. */
function instance(express: ExpressModule, hooks: PgHooks) {
  const app = express();
  app.use(express.json());
  app.use(conditionalRequests());
  app.get(
    '/hooks/:id',
    asyncHandler(async (req: Request, res: Response) => {
      const hook = await hooks.load(String(req.params.id));
      if (hook === undefined) {
        res.status(404).end();
        return;
      }
      res.json(hook);
    }),
  );
  app.put(
    '/hooks/:id',
    asyncHandler(async (req: Request, res: Response) => {
      const id = String(req.params.id);
      const created = await conditionalWrite(req, {
        identity: id,
        compareAndSet: true,
        ifMissing: 'proceed',
        load: () => hooks.load(id),
        etag: etagFor,
        write: async (current, condition) => {
          await hooks.put({ id, url: String(req.body.url) }, condition);
          return current === undefined;
        },
      });
      res.status(created ? 201 : 204).end();
    }),
  );
  app.delete(
    '/hooks/:id',
    asyncHandler(async (req: Request, res: Response) => {
      const id = String(req.params.id);
      await conditionalWrite(req, {
        identity: id,
        compareAndSet: true,
        ifMissing: 'proceed',
        load: () => hooks.load(id),
        etag: etagFor,
        write: (_current, condition) => hooks.delete(id, condition),
      });
      res.status(204).end();
    }),
  );
  app.use(errorHandler());
  return app;
}

const statusCounts = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => {
    counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }, {});

describe.skipIf(!hasPostgresServer())('conditionalWrite with a compare-and-set store', () => {
  let server: PostgresServer;
  // Two pools: two processes' connections, as behind a load balancer.
  let pools: [pg.Pool, pg.Pool];

  beforeAll(async () => {
    server = await startPostgresServer();
    pools = [
      new pg.Pool({ connectionString: server.url, max: 10 }),
      new pg.Pool({ connectionString: server.url, max: 10 }),
    ];
    for (const pool of pools) pool.on('error', () => {});
    await pools[0].query(
      'CREATE TABLE hooks (id text PRIMARY KEY, doc json NOT NULL, etag text NOT NULL)',
    );
  });

  afterAll(async () => {
    for (const pool of pools ?? []) await pool.end();
    await server?.close();
  });

  const original: Hook = { id: 'WH-1', url: 'https://a.example' };

  beforeEach(async () => {
    await pools[0].query('TRUNCATE hooks');
    await pools[0].query('INSERT INTO hooks (id, doc, etag) VALUES ($1, $2, $3)', [
      original.id,
      JSON.stringify(original),
      etagFor(original),
    ]);
  });

  describeEachExpress('across two instances on one database', (express) => {
    async function race(
      method: 'PUT' | 'DELETE',
      path: string,
      headers: Record<string, string>,
      count = 20,
    ) {
      const servers = await Promise.all(
        pools.map((pool) => listen(instance(express, new PgHooks(pool)))),
      );
      try {
        // Connections opened first (fetch keeps them alive): the writes then arrive together and
        // their loads overlap, rather than one connection set-up apart.
        await Promise.all(
          Array.from({ length: count }, (_, i) => fetch(`${servers[i % 2]?.url}/hooks/WH-1`)),
        ).then((answers) => Promise.all(answers.map((res) => res.arrayBuffer())));
        const answers = await Promise.all(
          Array.from({ length: count }, async (_, i) => {
            const res = await fetch(`${servers[i % 2]?.url}${path}`, {
              method,
              headers: { 'Content-Type': 'application/json', ...headers },
              body: method === 'PUT' ? JSON.stringify({ url: `https://racer-${i}.example` }) : null,
            });
            return { racer: i, status: res.status, body: await res.text() };
          }),
        );
        return answers;
      } finally {
        await Promise.all(servers.map((s) => s.close()));
      }
    }

    it('lets exactly one of twenty PUTs with the same If-Match win; the row is the winner’s', async () => {
      const answers = await race('PUT', '/hooks/WH-1', { 'If-Match': etagFor(original) });
      expect(statusCounts(answers.map((a) => a.status))).toEqual({ 204: 1, 412: 19 });
      const winner = answers.find((a) => a.status === 204)?.racer;
      const stored = await new PgHooks(pools[1]).load('WH-1');
      expect(stored).toEqual({ id: 'WH-1', url: `https://racer-${winner}.example` });
      for (const loser of answers.filter((a) => a.status === 412)) {
        expect(JSON.parse(loser.body).error).toMatchObject({
          code: 'PRECONDITION_FAILED',
          target: 'If-Match',
        });
      }
    });

    it('lets exactly one of twenty DELETEs with the same If-Match win', async () => {
      const answers = await race('DELETE', '/hooks/WH-1', { 'If-Match': etagFor(original) });
      expect(statusCounts(answers.map((a) => a.status))).toEqual({ 204: 1, 412: 19 });
      expect(await new PgHooks(pools[0]).load('WH-1')).toBeUndefined();
    });

    it('creates once from twenty PUTs with If-None-Match: *', async () => {
      const answers = await race('PUT', '/hooks/WH-2', { 'If-None-Match': '*' });
      expect(statusCounts(answers.map((a) => a.status))).toEqual({ 201: 1, 412: 19 });
      const winner = answers.find((a) => a.status === 201)?.racer;
      expect(await new PgHooks(pools[0]).load('WH-2')).toEqual({
        id: 'WH-2',
        url: `https://racer-${winner}.example`,
      });
    });

    it('applies every unconditional PUT, one after the other, when they race', async () => {
      const answers = await race('PUT', '/hooks/WH-1', {}, 6);
      expect(statusCounts(answers.map((a) => a.status))).toEqual({ 204: 6 });
      const stored = await new PgHooks(pools[0]).load('WH-1');
      expect(answers.map((a) => `https://racer-${a.racer}.example`)).toContain(stored?.url);
    });

    it('answers 412 to a stale If-Match and changes no row', async () => {
      const app = instance(express, new PgHooks(pools[0]));
      const res = await request(app)
        .put('/hooks/WH-1')
        .set('If-Match', etagFor({ id: 'WH-1', url: 'https://old.example' }))
        .send({ url: 'https://b.example' });
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
      expect(await new PgHooks(pools[0]).load('WH-1')).toEqual(original);
    });
  });
});

describeEachExpress('conditionalWrite when the write keeps finding a newer version', (express) => {
  function app(options: { compareAndSet?: boolean; maxAttempts?: number }, onWrite: () => void) {
    const app = express();
    app.put(
      '/hooks/:id',
      asyncHandler(async (req: Request, res: Response) => {
        await conditionalWrite(req, {
          ...options,
          load: () => ({ id: 'WH-1' }),
          etag: etagFor,
          write: () => {
            onWrite();
            throw new StaleVersionError();
          },
        });
        res.status(204).end();
      }),
    );
    app.use(errorHandler());
    return app;
  }

  it('answers 409 WRITE_CONTENTION with Retry-After after maxAttempts attempts', async () => {
    let writes = 0;
    const res = await request(app({ compareAndSet: true, maxAttempts: 3 }, () => writes++)).put(
      '/hooks/WH-1',
    );
    expectErrorEnvelope(res, 409, { code: 'CONFLICT' });
    expect(res.body.error.innererror.code).toBe('WRITE_CONTENTION');
    expect(res.headers['retry-after']).toBe('1');
    expect(writes).toBe(3);
  });

  it('retries a StaleVersionError under the in-process lock too (ten attempts by default)', async () => {
    let writes = 0;
    const res = await request(app({}, () => writes++)).put('/hooks/WH-1');
    expect(res.status).toBe(409);
    expect(writes).toBe(10);
  });

  it('answers 412 on the second attempt once the stored version no longer matches If-Match', async () => {
    let version = 1;
    const server = express();
    server.put(
      '/hooks/:id',
      asyncHandler(async (req: Request, res: Response) => {
        await conditionalWrite(req, {
          compareAndSet: true,
          load: () => ({ id: 'WH-1', version }),
          etag: (hook) => `"${hook.version}"`,
          write: () => {
            // Another process wrote between our load and our compare-and-set.
            version = 2;
            throw new StaleVersionError();
          },
        });
        res.status(204).end();
      }),
    );
    server.use(errorHandler());
    const res = await request(server).put('/hooks/WH-1').set('If-Match', '"1"');
    expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
  });
});

describe('conditionalWrite and the in-process lock', () => {
  const req = { method: 'PUT', url: '/hooks/WH-1', headers: {} } as Parameters<
    typeof conditionalWrite
  >[0];

  /** How many writes of one resource were inside `write` at once, at most. */
  async function overlap(compareAndSet: boolean): Promise<number> {
    let inside = 0;
    let most = 0;
    const options = {
      compareAndSet,
      identity: 'WH-1',
      load: () => ({ id: 'WH-1' }),
      etag: etagFor,
      write: async () => {
        inside++;
        most = Math.max(most, inside);
        // A store's round trip: the other write runs meanwhile unless a lock holds it back.
        for (let tick = 0; tick < 5; tick++) await new Promise((resolve) => setImmediate(resolve));
        inside--;
      },
    };
    await Promise.all([conditionalWrite(req, options), conditionalWrite(req, options)]);
    return most;
  }

  it('takes none with compareAndSet: two writes of one resource run at once', async () => {
    expect(await overlap(true)).toBe(2);
  });

  it('holds the second write of a resource until the first is done without compareAndSet', async () => {
    expect(await overlap(false)).toBe(1);
  });
});

describe('conditionalWrite options', () => {
  const req = { method: 'PUT', url: '/hooks/1', headers: {} } as Parameters<
    typeof conditionalWrite
  >[0];
  const base = {
    load: () => undefined,
    etag: () => '"1"',
    write: () => 1,
    ifMissing: 'proceed' as const,
  };

  it.each([
    [{ compareAndSet: 'yes' }, 'compareAndSet'],
    [{ maxAttempts: 0 }, 'maxAttempts'],
    [{ maxAttempts: 1.5 }, 'maxAttempts'],
  ])('refuses %o naming %s', async (extra, option) => {
    await expect(conditionalWrite(req, { ...base, ...(extra as object) })).rejects.toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option,
    });
  });

  it('refuses a lock together with compareAndSet', async () => {
    await expect(
      conditionalWrite(req, { ...base, compareAndSet: true, lock: new KeyedLock() }),
    ).rejects.toMatchObject({ code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS', option: 'lock' });
  });

  it('accepts compareAndSet and maxAttempts', async () => {
    await expect(
      conditionalWrite(req, { ...base, compareAndSet: true, maxAttempts: 2 }),
    ).resolves.toBe(1);
  });
});
