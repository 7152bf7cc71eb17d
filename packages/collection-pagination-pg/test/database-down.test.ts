import { paginate } from '@resourceful/collection-pagination';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  type ExpressModule,
  expectErrorEnvelope,
  hasPostgresServer,
  type PostgresServer,
  startPostgresServer,
} from '@resourceful/test-support';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgDataSource, type Queryable } from '../src/index.js';
import { type Card, columns, createCards } from './fixtures.js';

const PATH = '/v1/vault/credit-cards';

function failing(error: unknown): Queryable {
  return { query: () => Promise.reject(error) };
}

function withCode(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

function listApp(express: ExpressModule, pool: Queryable) {
  const app = express();
  app.get(
    PATH,
    paginate({
      source: pgDataSource<Card>({ pool, table: 'cards', key: 'id', columns }),
      filterable: ['state'],
    }),
  );
  app.use(errorHandler());
  return app;
}

describeEachExpress('when the database cannot be reached', (express) => {
  const app = (pool: Queryable) => listApp(express, pool);

  it.each([
    ['a refused connection', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['a reset connection', withCode('read ECONNRESET', 'ECONNRESET')],
    ['a server shutting down (57P01)', withCode('terminating connection', '57P01')],
    ['a server starting up (57P03)', withCode('the database system is starting up', '57P03')],
    ['too many connections (53300)', withCode('too many clients', '53300')],
    ['a connection exception (08006)', withCode('connection failure', '08006')],
    ['a connection lost under the query', withCode('Connection terminated unexpectedly')],
    ['the pool giving up', withCode('timeout exceeded when trying to connect')],
    [
      'a statement_timeout (57014)',
      withCode('canceling statement due to statement timeout', '57014'),
    ],
    ["node-postgres's query_timeout", withCode('Query read timeout')],
  ])('answers 503 with Retry-After for %s', async (_, error) => {
    const res = await request(app(failing(error))).get(PATH);
    expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body.error.innererror).toEqual({ code: 'DATABASE_UNAVAILABLE' });
    expect(JSON.stringify(res.body)).not.toContain('5432');
  });

  it.each([
    ['a syntax error (42601)', withCode('syntax error', '42601')],
    ['a missing table (42P01)', withCode('relation "cards" does not exist', '42P01')],
    ['an error without a code', new Error('boom')],
  ])('still answers 500 for %s', async (_, error) => {
    const res = await request(app(failing(error))).get(PATH);
    expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
  });
});

describe.skipIf(!hasPostgresServer())('when a query outlives statement_timeout', () => {
  let server: PostgresServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 2, statement_timeout: 50 });
    pool.on('error', () => {});
    await createCards(pool);
  });

  afterAll(async () => {
    await pool?.end().catch(() => {});
    await server?.close();
  });

  describeEachExpress('a list', (express) => {
    it('answers 503 with Retry-After while the table is locked, and 200 once it is free', async () => {
      const app = listApp(express, pool);
      const locker = new pg.Client({ connectionString: server.url });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query('LOCK TABLE cards IN ACCESS EXCLUSIVE MODE');
        const res = await request(app).get(`${PATH}?page_size=2`);
        expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(res.headers['retry-after']).toBe('1');
        expect(res.body.error.innererror).toEqual({ code: 'DATABASE_UNAVAILABLE' });
        await locker.query('ROLLBACK');
      } finally {
        await locker.end();
      }
      const after = await request(app).get(`${PATH}?page_size=2`);
      expect(after.status).toBe(200);
    });
  });
});

describe.skipIf(!hasPostgresServer())('when PostgreSQL stops under a running service', () => {
  // One server per Express version: each test stops its own.
  describeEachExpress('a list', (express) => {
    let server: PostgresServer;
    let pool: pg.Pool;

    beforeAll(async () => {
      server = await startPostgresServer();
      pool = new pg.Pool({ connectionString: server.url, max: 2, connectionTimeoutMillis: 5_000 });
      // Without a listener, an idle client's error (the server going away) ends the process.
      pool.on('error', () => {});
      await createCards(pool);
    });

    afterAll(async () => {
      await pool?.end().catch(() => {});
      await server?.close();
    });

    it('answers 200, then 503 with Retry-After once the server is gone, without hanging', async () => {
      const app = listApp(express, pool);
      const before = await request(app).get(`${PATH}?page_size=2`);
      expect(before.status).toBe(200);
      await server.close();
      // The first query may meet an idle connection the shutdown ended, the next a refused one.
      for (let attempt = 0; attempt < 3; attempt++) {
        const res = await request(app).get(`${PATH}?page_size=2`);
        expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(res.headers['retry-after']).toBe('1');
      }
    });
  });
});
