/**
 * A database that stops answering without closing its connections: every wait is bounded, each
 * timeout answers the same 503 as a refused connection, the pool recovers, the outage is logged
 * in one line, and shutdown during a stall still answers.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  describeEachExpress,
  expectErrorEnvelope,
  hasPostgresServer,
  type PostgresServer,
  startPostgresServer,
  waitFor,
} from '@resourceful/test-support';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appReady, createApp } from '../src/app.js';
import {
  boundedPool,
  DEFAULT_DATABASE_TIMEOUTS,
  databaseTimeoutsFromEnvironment,
  MAX_DATABASE_TIMEOUT_MS,
} from '../src/database/app-database.js';
import { countDatabaseRefusal, logDatabaseOutages } from '../src/database/database-outages.js';
import { startService } from './service-process.js';

const CUSTOMER = '/v1/customers/customers/CUST-SEED1';
const CAPTURE = '/v1/payments/captures/CAPTURE-SEED1';

/** SIGSTOP of the server and its backends (its children): connections stay open, nothing answers. */
function freeze(server: PostgresServer): () => void {
  const postmaster = Number(
    readFileSync(join(server.dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  process.kill(postmaster, 'SIGSTOP');
  const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter((pid) => pid !== '')
    .map(Number);
  for (const pid of children) process.kill(pid, 'SIGSTOP');
  return () => {
    for (const pid of children) process.kill(pid, 'SIGCONT');
    process.kill(postmaster, 'SIGCONT');
  };
}

/** A server of the describe's own (started before its tests), frozen and thawed by its tests. */
function frozenServer() {
  let server: PostgresServer | undefined;
  let thaw: (() => void) | undefined;
  beforeAll(async () => {
    server = await startPostgresServer();
  });
  afterAll(async () => {
    thaw?.();
    await server?.close();
  });
  const started = (): PostgresServer => {
    if (server === undefined) throw new Error('the server has not started');
    return server;
  };
  return {
    url: () => started().url,
    freeze: () => {
      thaw = freeze(started());
    },
    /** Thaws a frozen server; nothing otherwise. */
    thaw: () => {
      thaw?.();
      thaw = undefined;
    },
  };
}

describe('the database timeouts from the environment', () => {
  it('defaults to 2 s to connect and 5 s per query, both under half the lock TTL', () => {
    expect(databaseTimeoutsFromEnvironment({})).toEqual(DEFAULT_DATABASE_TIMEOUTS);
    expect(DEFAULT_DATABASE_TIMEOUTS).toEqual({ connectMs: 2_000, queryMs: 5_000 });
    expect(MAX_DATABASE_TIMEOUT_MS).toBeLessThanOrEqual(60_000 / 2);
  });

  it('takes DATABASE_CONNECT_TIMEOUT_MS and DATABASE_QUERY_TIMEOUT_MS', () => {
    expect(
      databaseTimeoutsFromEnvironment({
        DATABASE_CONNECT_TIMEOUT_MS: '750',
        DATABASE_QUERY_TIMEOUT_MS: '30000',
      }),
    ).toEqual({ connectMs: 750, queryMs: 30_000 });
  });

  it.each(['0', '-1', '1.5', '5s', '30001', '1e3', ' 100'])(
    'refuses %j, naming the variable',
    (value) => {
      expect(() => databaseTimeoutsFromEnvironment({ DATABASE_QUERY_TIMEOUT_MS: value })).toThrow(
        /DATABASE_QUERY_TIMEOUT_MS must be a whole number of milliseconds from 1 to 30000/,
      );
    },
  );
});

describe.skipIf(!hasPostgresServer())('a database that stops answering', () => {
  describeEachExpress('frozen (SIGSTOP)', (express) => {
    const db = frozenServer();

    it('answers 503 with Retry-After: 1 within its bounds, logs one line, and recovers', async () => {
      const pool = boundedPool(db.url(), { connectMs: 1_000, queryMs: 1_000 }, 2);
      const lines: string[] = [];
      const faults: unknown[] = [];
      logDatabaseOutages(pool, {
        log: (line) => lines.push(line),
        warn: (line) => lines.push(line),
        error: (error) => faults.push(error),
      });
      try {
        const app = createApp({
          express,
          database: { pool, schema: 'public' },
          onError: (report) => {
            if (!countDatabaseRefusal(report, pool)) faults.push(report.cause);
          },
        });
        await appReady(app);
        // Both connections of the pool open and idle: the stall meets queries on them first.
        await Promise.all([
          request(app).get(CUSTOMER),
          request(app).get('/v1/customers/customers'),
        ]);
        expect(pool.totalCount).toBe(2);

        db.freeze();
        // A read on an open connection (query timeout), three at once (more than the pool holds:
        // waiting for a connection, then connecting, time out too), a write in a transaction.
        const reads = await Promise.all([1, 2, 3].map(() => request(app).get(CUSTOMER)));
        for (const res of reads) {
          expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
          expect(res.headers['retry-after']).toBe('1');
        }
        const refund = await request(app)
          .post(`${CAPTURE}/refund`)
          .send({ amount: { total: '1.00', currency: 'USD' } });
        expectErrorEnvelope(refund, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(refund.headers['retry-after']).toBe('1');
        expect(lines.filter((line) => line.startsWith('database unreachable'))).toHaveLength(1);
        expect(faults).toEqual([]);

        db.thaw();
        // The connections that stalled were thrown away: every later request is answered.
        await waitFor(async () => (await request(app).get(CUSTOMER)).status === 200, {
          what: 'the database to answer again',
        });
        const after = await Promise.all([1, 2, 3, 4, 5].map(() => request(app).get(CUSTOMER)));
        expect(after.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
        await waitFor(
          async () => {
            await request(app).get(CUSTOMER);
            return lines.some((line) => line.startsWith('database reachable again'));
          },
          { intervalMs: 200, what: 'the recovery line' },
        );
        expect(lines).toHaveLength(2);
        // The four refusals above at least (the polling above may add some).
        const refused = Number(
          /; (\d+) request\(s\) refused with 503 meanwhile$/.exec(lines[1] ?? '')?.[1],
        );
        expect(refused).toBeGreaterThanOrEqual(4);
      } finally {
        db.thaw();
        await pool.end();
      }
    });
  });

  describe('a create applied after its 503', () => {
    const db = frozenServer();

    it('answers the retry with the same Service-Request-Id with the card the first attempt stored', async () => {
      const pool = boundedPool(db.url(), { connectMs: 1_000, queryMs: 1_000 }, 2);
      const payer = 'frozen-create-payer';
      const card = {
        number: '4111111111111111',
        type: 'visa',
        expire_month: '11',
        expire_year: '2030',
        first_name: 'Ada',
        last_name: 'Lovelace',
        payer_id: payer,
      };
      const stored = async () =>
        (await pool.query('SELECT id FROM public.cards WHERE payer_id = $1', [payer])).rows.map(
          (row: { id: string }) => row.id,
        );
      try {
        const app = createApp({ database: { pool, schema: 'public' } });
        await appReady(app);
        await request(app).get(CUSTOMER);

        db.freeze();
        const first = await request(app)
          .post('/v1/vault/credit-cards')
          .set('Service-Request-Id', 'frozen-create-1')
          .send(card);
        expectErrorEnvelope(first, 503, { code: 'SERVICE_UNAVAILABLE' });
        db.thaw();
        // The database applies the INSERT it had received: the card exists, unanswered.
        await waitFor(async () => (await stored().catch(() => [])).length === 1, {
          what: 'the frozen INSERT to be applied',
        });

        const retry = await request(app)
          .post('/v1/vault/credit-cards')
          .set('Service-Request-Id', 'frozen-create-1')
          .send(card);
        expect(retry.status).toBe(201);
        const ids = await stored();
        expect(ids).toHaveLength(1);
        expect(retry.body.id).toBe(ids[0]);
        expect(retry.headers.location).toMatch(new RegExp(`/v1/vault/credit-cards/${ids[0]}$`));
      } finally {
        db.thaw();
        await pool.end();
      }
    });
  });

  describeEachExpress('blocked on a lock', (express) => {
    let server: PostgresServer;
    let holder: pg.Client;

    beforeAll(async () => {
      server = await startPostgresServer();
    });

    afterAll(async () => {
      await server?.close();
    });

    it('cancels the statement at the query timeout (503) and keeps serving', async () => {
      const pool = boundedPool(server.url, { connectMs: 2_000, queryMs: 1_000 }, 2);
      try {
        const app = createApp({ express, database: { pool, schema: 'public' } });
        await appReady(app);
        holder = new pg.Client({ connectionString: server.url });
        await holder.connect();
        await holder.query('BEGIN; LOCK TABLE public.customers IN ACCESS EXCLUSIVE MODE');
        const res = await request(app).get(CUSTOMER);
        expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
        expect(res.headers['retry-after']).toBe('1');
        // Other tables are served meanwhile.
        expect((await request(app).get('/v1/payments/billing-agreements')).status).toBe(200);
        await holder.query('ROLLBACK');
        expect((await request(app).get(CUSTOMER)).status).toBe(200);
      } finally {
        await holder?.end();
        await pool.end();
      }
    });
  });

  describe('the service process', () => {
    it('answers the request waiting on the database with 503 when SIGTERM comes, then exits 0', async () => {
      const server = await startPostgresServer();
      const holder = new pg.Client({ connectionString: server.url });
      const service = await startService({
        DATABASE_URL: server.url,
        DATABASE_QUERY_TIMEOUT_MS: '2000',
      });
      try {
        await holder.connect();
        await holder.query('BEGIN; LOCK TABLE public.customers IN ACCESS EXCLUSIVE MODE');
        const answer = fetch(`${service.url}${CUSTOMER}`);
        await waitFor(
          async () => {
            const { rows } = await holder.query(
              "SELECT count(*)::int AS waiting FROM pg_stat_activity WHERE wait_event_type = 'Lock'",
            );
            return rows[0].waiting > 0;
          },
          { what: 'the request to wait on the lock' },
        );
        const exited = service.stop();
        const res = await answer;
        expect(res.status).toBe(503);
        expect(res.headers.get('retry-after')).toBe('1');
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
          'SERVICE_UNAVAILABLE',
        );
        expect(await exited).toBe(0);
        // One line for the outage, no stack trace.
        // (the server's statement_timeout or the client's query timeout, whichever fires first)
        expect(service.output()).toMatch(
          /\ndatabase unreachable \((canceling statement due to statement timeout|Query read timeout)\): requests that need it answer 503 until it is back\n/,
        );
        expect(service.output()).not.toMatch(/\n\s+at /);
      } finally {
        await service.stop();
        await holder.end().catch(() => undefined);
        await server.close();
      }
    });
  });
});
