/**
 * The PostgreSQL store's own behaviour: the migration runner, and what the service answers when
 * the database goes away.
 */
import type { ErrorReport } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  hasPostgresServer,
  type PostgresPool,
  refusedPort,
  startPostgresPool,
  startPostgresServer,
} from '@resourceful/test-support';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appReady, createApp } from '../src/app.js';
import { boundedPool } from '../src/database/app-database.js';
import { migrate } from '../src/database/migrate.js';
import { MIGRATIONS } from '../src/database/migrations.js';
import { seed } from '../src/seed.js';
import { createStores } from '../src/stores.js';

const BASE = 'http://api.test';

describe.skipIf(!hasPostgresServer())('the PostgreSQL store', () => {
  let postgres: PostgresPool;
  let pool: pg.Pool;

  beforeAll(async () => {
    postgres = await startPostgresPool();
    pool = postgres.pool;
  });

  afterAll(() => postgres?.close());

  describe('migrations', () => {
    it('applies each version once, also when two instances start together', async () => {
      const runs = await Promise.all([migrate(pool, 'twins'), migrate(pool, 'twins')]);
      const versions = MIGRATIONS.map((migration) => migration.version);
      expect(runs).toContainEqual(versions);
      expect(runs).toContainEqual([]);
      expect(await migrate(pool, 'twins')).toEqual([]);
      const { rows } = await pool.query('SELECT version FROM twins.schema_migrations');
      expect(rows.map((row) => row.version)).toEqual(versions);
    });

    it('applies only the versions a schema lacks, in order, and nothing of a failed one', async () => {
      await migrate(pool, 'stepwise');
      // Versions after the example's own, listed out of order.
      const last = Math.max(...MIGRATIONS.map((migration) => migration.version));
      const next = [
        ...MIGRATIONS,
        { version: last + 2, name: 'third', sql: 'CREATE TABLE third (id int)' },
        { version: last + 1, name: 'second', sql: 'CREATE TABLE second (id int)' },
      ];
      expect(await migrate(pool, 'stepwise', next)).toEqual([last + 1, last + 2]);
      const broken = [...next, { version: last + 3, name: 'broken', sql: 'CREATE TABLE fourth (' }];
      await expect(migrate(pool, 'stepwise', broken)).rejects.toThrow();
      const { rows } = await pool.query(
        "SELECT to_regclass('stepwise.fourth') AS fourth, max(version) AS latest FROM stepwise.schema_migrations",
      );
      expect(rows).toEqual([{ fourth: null, latest: last + 2 }]);
    });

    it('refuses a schema name it would have to quote', async () => {
      await expect(migrate(pool, 'public; DROP TABLE x')).rejects.toThrow(TypeError);
    });
  });

  describe('the seed records', () => {
    const SEED_CARD = '/v1/vault/credit-cards/CARD-SEED1';
    const instance = (schema: string) =>
      createApp({ database: { pool, schema }, publicBaseUrl: BASE });

    it('stay deleted when a client deleted one and another instance starts', async () => {
      const first = instance('seeded_once');
      await appReady(first);
      expect((await request(first).delete(SEED_CARD)).status).toBe(204);
      const second = instance('seeded_once');
      await appReady(second);
      expect((await request(second).get(SEED_CARD)).status).toBe(404);
      expect((await request(first).get(SEED_CARD)).status).toBe(404);
    });

    it('are stored once by instances starting together', async () => {
      const apps = [instance('seeded_twins'), instance('seeded_twins')];
      await Promise.all(apps.map((app) => appReady(app)));
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM seeded_twins.cards');
      expect(rows).toEqual([{ n: 3 }]);
    });

    it('are not stored again in a schema seeded before the seed was recorded', async () => {
      // The schema as an instance of the previous version left it: the first two migrations,
      // the seed stored unrecorded, then a seed card deleted by a client.
      const database = { pool, schema: 'seeded_before' };
      await migrate(pool, database.schema, MIGRATIONS.slice(0, 2));
      await seed(createStores(database), new Date());
      await pool.query("DELETE FROM seeded_before.cards WHERE id = 'CARD-SEED1'");
      const upgraded = instance(database.schema);
      await appReady(upgraded);
      expect((await request(upgraded).get(SEED_CARD)).status).toBe(404);
    });
  });

  describeEachExpress('a refund and its capture', (express, version) => {
    const CAPTURE = '/v1/payments/captures/CAPTURE-SEED1';

    it('keeps neither when the refund row cannot be stored: one transaction', async () => {
      const schema = `refund_atomic_${version.major}`;
      const app = createApp({ express, database: { pool, schema }, publicBaseUrl: BASE });
      await appReady(app);
      const before = (await request(app).get(CAPTURE)).body;
      // A trigger refuses every refund row, after the capture's update in the same request.
      await pool.query(
        `CREATE FUNCTION "${schema}".refuse_refund() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'refused by the test'; END $$;
         CREATE TRIGGER refuse BEFORE INSERT ON "${schema}".refunds FOR EACH ROW EXECUTE FUNCTION "${schema}".refuse_refund();`,
      );
      const refused = await request(app)
        .post(`${CAPTURE}/refund`)
        .send({ amount: { total: '1.00', currency: 'USD' } });
      expectErrorEnvelope(refused, 500);
      const after = await request(app).get(CAPTURE);
      expect(after.body).toEqual(before);
      expect((await request(app).get(`${CAPTURE}/refunds`)).body.items).toEqual([]);

      await pool.query(`DROP TRIGGER refuse ON "${schema}".refunds`);
      const refunded = await request(app)
        .post(`${CAPTURE}/refund`)
        .send({ amount: { total: '1.00', currency: 'USD' } });
      expect(refunded.status).toBe(201);
      expect((await request(app).get(CAPTURE)).body.refunded_amount).not.toEqual(
        before.refunded_amount,
      );
      expect((await request(app).get(`${CAPTURE}/refunds`)).body.items).toHaveLength(1);
    });
  });

  describeEachExpress('GraphQL on a failing database', (express, version) => {
    interface GraphqlAnswer {
      data?: Record<string, unknown>;
      errors?: { message: string; path?: string[]; extensions?: Record<string, unknown> }[];
    }
    const graphql = async (app: ReturnType<typeof createApp>, source: string) =>
      (await request(app).post('/graphql').send({ query: source })).body as GraphqlAnswer;

    it('masks an internal error as REST does and reports it to onError', async () => {
      const schema = `graphql_masked_${version.major}`;
      const reports: ErrorReport[] = [];
      const app = createApp({
        express,
        database: { pool, schema },
        onError: (report) => reports.push(report),
      });
      await appReady(app);
      await pool.query(`ALTER TABLE "${schema}".payments RENAME TO payments_gone`);
      try {
        const body = await graphql(app, '{ payment(id: "PAY-SEED1") { id } }');
        expect(JSON.stringify(body)).not.toMatch(/relation|payments_gone|public/);
        expect(body.errors?.[0]).toMatchObject({
          path: ['payment'],
          extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 } },
        });
        const rest = await request(app).get('/v1/payments/payments/PAY-SEED1');
        expectErrorEnvelope(rest, 500, { code: 'INTERNAL_SERVER_ERROR' });
        expect(rest.body.error.message).toBe(body.errors?.[0]?.message);
        // Both reported alike: the fault with the database's own message as its cause.
        expect(reports.map((report) => [report.status, report.fault])).toEqual([
          [500, true],
          [500, true],
        ]);
        for (const report of reports) {
          expect((report.cause as Error).message).toMatch(/relation .*payments" does not exist/);
        }
      } finally {
        await pool.query(`ALTER TABLE "${schema}".payments_gone RENAME TO payments`);
      }
    });

    it('answers SERVICE_UNAVAILABLE with the retry hint at the field’s path when it is down', async () => {
      const own = await startPostgresServer();
      const ownPool = boundedPool(own.url, { connectMs: 1_000, queryMs: 1_000 }, 2);
      try {
        const app = createApp({ express, database: { pool: ownPool, schema: 'public' } });
        await appReady(app);
        expect(await graphql(app, '{ credit_card(id: "CARD-SEED1") { id } }')).toEqual({
          data: { credit_card: { id: 'CARD-SEED1' } },
        });
        await own.close();
        const body = await graphql(app, '{ credit_card(id: "CARD-SEED1") { id } }');
        // Null, as for none, but with its error: the client can tell the two apart.
        expect(body.data).toEqual({ credit_card: null });
        expect(body.errors).toMatchObject([
          {
            message: 'The database is unavailable; retry shortly.',
            path: ['credit_card'],
            extensions: {
              code: 'SERVICE_UNAVAILABLE',
              innererror: { code: 'DATABASE_UNAVAILABLE' },
              http: { status: 503, headers: { 'Retry-After': '1' } },
            },
          },
        ]);
      } finally {
        await ownPool.end();
        await own.close();
      }
    });
  });

  describeEachExpress('when the database goes away', (express) => {
    it('answers 503 with Retry-After for every stored resource, and serves what needs none', async () => {
      const own = await startPostgresPool({ max: 2 });
      try {
        const app = createApp({ express, database: { pool: own.pool, schema: 'public' } });
        await appReady(app);
        expect((await request(app).get('/v1/customers/customers')).status).toBe(200);
        await own.server.close();
        const res = await request(app).get('/v1/customers/customers/CUST-SEED1');
        expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(res.headers['retry-after']).toBe('1');
        const list = await request(app).get('/v1/customers/customers');
        expectErrorEnvelope(list, 503, { code: 'SERVICE_UNAVAILABLE' });
        // Agreements, their history and the refund summary are in the database too.
        for (const path of [
          '/v1/payments/billing-agreements',
          '/v1/payments/billing-agreements/AGREEMENT-SEED01/history',
          '/v1/payments/refund-summary?currency=USD',
        ]) {
          expectErrorEnvelope(await request(app).get(path), 503, { code: 'SERVICE_UNAVAILABLE' });
        }
        // A transient operation keeps nothing: still served.
        const evaluation = await request(app).post('/v1/risk/evaluate').send({ code: 'ok' });
        expect(evaluation.status).toBe(200);
      } finally {
        await own.close();
      }
    });

    it('answers 503 to every request when the database was never reachable', async () => {
      const closed = new pg.Pool({
        connectionString: `postgres://postgres@127.0.0.1:${await refusedPort()}/postgres`,
        connectionTimeoutMillis: 2_000,
      });
      closed.on('error', () => {});
      try {
        const app = createApp({ express, database: { pool: closed, schema: 'public' } });
        await expect(appReady(app)).rejects.toThrow();
        const res = await request(app).get('/v1/payments/billing-agreements');
        expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(res.headers['retry-after']).toBe('5');
      } finally {
        await closed.end();
      }
    });
  });
});
