/**
 * The PostgreSQL store's own behaviour: the migration runner, and what the service answers when
 * the database goes away.
 */
import {
  describeEachExpress,
  expectErrorEnvelope,
  freePort,
  hasPostgresServer,
  type PostgresServer,
  startPostgresServer,
} from '@resourceful/test-support';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appReady, createApp } from '../src/app.js';
import { migrate } from '../src/database/migrate.js';
import { MIGRATIONS } from '../src/database/migrations.js';

describe.skipIf(!hasPostgresServer())('the PostgreSQL store', () => {
  let server: PostgresServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => {});
  });

  afterAll(async () => {
    await pool?.end();
    await server?.close();
  });

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
      const next = [
        ...MIGRATIONS,
        { version: 3, name: 'third', sql: 'CREATE TABLE third (id int)' },
        { version: 2, name: 'second', sql: 'CREATE TABLE second (id int)' },
      ];
      expect(await migrate(pool, 'stepwise', next)).toEqual([2, 3]);
      const broken = [...next, { version: 4, name: 'broken', sql: 'CREATE TABLE fourth (' }];
      await expect(migrate(pool, 'stepwise', broken)).rejects.toThrow();
      const { rows } = await pool.query(
        "SELECT to_regclass('stepwise.fourth') AS fourth, max(version) AS latest FROM stepwise.schema_migrations",
      );
      expect(rows).toEqual([{ fourth: null, latest: 3 }]);
    });

    it('refuses a schema name it would have to quote', async () => {
      await expect(migrate(pool, 'public; DROP TABLE x')).rejects.toThrow(TypeError);
    });
  });

  describeEachExpress('when the database goes away', (express) => {
    it('answers 503 with Retry-After for the stores it holds, and serves the rest', async () => {
      const own = await startPostgresServer();
      const ownPool = new pg.Pool({ connectionString: own.url, max: 2 });
      ownPool.on('error', () => {});
      try {
        const app = createApp({ express, database: { pool: ownPool, schema: 'public' } });
        await appReady(app);
        expect((await request(app).get('/v1/customers/customers')).status).toBe(200);
        await own.close();
        const res = await request(app).get('/v1/customers/customers/CUST-SEED1');
        expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(res.headers['retry-after']).toBe('1');
        const list = await request(app).get('/v1/customers/customers');
        expectErrorEnvelope(list, 503, { code: 'SERVICE_UNAVAILABLE' });
        // Billing agreements are kept in memory: still served.
        expect((await request(app).get('/v1/payments/billing-agreements')).status).toBe(200);
      } finally {
        await ownPool.end();
        await own.close();
      }
    });

    it('answers 503 to every request when the database was never reachable', async () => {
      const closed = new pg.Pool({
        connectionString: `postgres://postgres@127.0.0.1:${await freePort()}/postgres`,
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
