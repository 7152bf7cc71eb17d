/**
 * Two instances of the example on one PostgreSQL, as behind a load balancer (one
 * PUBLIC_BASE_URL, one page-token secret): conditional writes hold across them, paging with
 * `next` links visits every record once whichever instance answers, and hostile list parameters
 * are refused without reaching the SQL.
 */
import { hasPostgresServer, type PostgresPool, startPostgresPool } from '@resourceful/test-support';
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './service-process.js';

const BASE = 'https://api.example.test';
const SECRET = 'a page-token secret of more than thirty-two characters';
const CUSTOMERS = '/v1/customers/customers';

const statusCounts = (statuses: readonly number[]) =>
  statuses.reduce<Record<number, number>>((counts, status) => {
    counts[status] = (counts[status] ?? 0) + 1;
    return counts;
  }, {});

describe.skipIf(!hasPostgresServer())('two example processes on one PostgreSQL', () => {
  let database: PostgresPool;
  let pool: pg.Pool;
  let instances: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await startPostgresPool({ max: 2 });
    pool = database.pool;
    const env = {
      DATABASE_URL: database.server.url,
      DATABASE_SCHEMA: 'public',
      // The PostgreSQL pass of the suites sets it for in-process apps; these share one schema.
      DATABASE_SCHEMA_PER_APP: 'false',
      PUBLIC_BASE_URL: BASE,
      PAGE_TOKEN_SECRETS: SECRET,
    };
    // Both start together: the migration runner's advisory lock makes the second wait.
    instances = await Promise.all([startService(env), startService(env)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await database?.close();
  });

  /** The request sent to instance `i % 2`. */
  const on = (i: number, path: string, init?: RequestInit) =>
    fetch(`${instances[i % 2]?.url}${path}`, init);

  async function read(i: number, path: string) {
    const res = await on(i, path);
    return { status: res.status, etag: res.headers.get('etag'), body: await res.text() };
  }

  /** Twenty requests sent together, split across both instances. */
  async function race(path: string, init: (i: number) => RequestInit, warm = path) {
    // Twenty connections opened first (fetch keeps them alive), so the writes below arrive
    // together rather than one connection set-up apart, and their loads overlap.
    await Promise.all(Array.from({ length: 20 }, (_, i) => read(i, warm)));
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await on(i, path, init(i));
        return { racer: i, status: res.status, body: await res.text() };
      }),
    );
    for (const loser of answers.filter((answer) => answer.status === 412)) {
      expect(JSON.parse(loser.body).error).toMatchObject({
        code: 'PRECONDITION_FAILED',
        target: 'If-Match',
      });
    }
    return answers;
  }

  describe('twenty writes with the same If-Match, split across both instances', () => {
    // A lost update needs two loads to overlap across the processes; one race of twenty shows
    // it most times, not every time (measured with the compare-and-set taken out of the store:
    // each of PATCH and PUT caught it in three runs of four). Three races each make a miss rare.
    const ROUNDS = 3;

    it('PATCH: one 204, nineteen 412, and both instances show the winner', async () => {
      const path = `${CUSTOMERS}/CUST-SEED1`;
      for (let round = 0; round < ROUNDS; round++) {
        const { etag } = await read(round, path);
        const answers = await race(path, (i) => ({
          method: 'PATCH',
          headers: { 'Content-Type': 'application/json-patch+json', 'If-Match': String(etag) },
          body: JSON.stringify([
            { op: 'replace', path: '/first_name', value: `Racer${round}-${i}` },
          ]),
        }));
        expect(statusCounts(answers.map((answer) => answer.status))).toEqual({
          204: 1,
          412: 19,
        });
        const winner = answers.find((answer) => answer.status === 204)?.racer;
        const [a, b] = [await read(0, path), await read(1, path)];
        expect(a.body).toBe(b.body);
        expect(a.etag).toBe(b.etag);
        expect(JSON.parse(a.body).first_name).toBe(`Racer${round}-${winner}`);
        const { rows } = await pool.query(
          "SELECT doc->>'first_name' AS name FROM customers WHERE id = $1",
          ['CUST-SEED1'],
        );
        expect(rows).toEqual([{ name: `Racer${round}-${winner}` }]);
      }
    });

    it('PUT: one 204, nineteen 412, and both instances show the winner', async () => {
      const path = `${CUSTOMERS}/CUST-SEED2`;
      for (let round = 0; round < ROUNDS; round++) {
        const { etag } = await read(round + 1, path);
        const answers = await race(path, (i) => ({
          method: 'PUT',
          headers: { 'Content-Type': 'application/json', 'If-Match': String(etag) },
          body: JSON.stringify({
            merchant_customer_id: 'merchant-cust-2',
            merchant_id: 'MERCHANT-1',
            first_name: `Putter${round}-${i}`,
          }),
        }));
        expect(statusCounts(answers.map((answer) => answer.status))).toEqual({
          204: 1,
          412: 19,
        });
        const winner = answers.find((answer) => answer.status === 204)?.racer;
        const [a, b] = [await read(0, path), await read(1, path)];
        expect(a.body).toBe(b.body);
        expect(JSON.parse(a.body)).toMatchObject({ first_name: `Putter${round}-${winner}` });
        // PUT replaces: the last name it did not send is gone.
        expect(JSON.parse(a.body).last_name).toBeUndefined();
      }
    });

    it('DELETE: one 204, nineteen 412, and the record is gone on both', async () => {
      const path = `${CUSTOMERS}/CUST-SEED3`;
      const { etag } = await read(0, path);
      const answers = await race(path, () => ({
        method: 'DELETE',
        headers: { 'If-Match': String(etag) },
      }));
      expect(statusCounts(answers.map((answer) => answer.status))).toEqual({ 204: 1, 412: 19 });
      expect((await read(0, path)).status).toBe(404);
      expect((await read(1, path)).status).toBe(404);
    });
  });

  describe('actions and refunds, split across both instances', () => {
    const AGREEMENT = '/v1/payments/billing-agreements/AGREEMENT-SEED01';

    it('suspend: one 200, nineteen 412, one history record on both', async () => {
      const { etag } = await read(0, AGREEMENT);
      const answers = await race(
        `${AGREEMENT}/suspend`,
        (i) => ({
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'If-Match': String(etag) },
          body: JSON.stringify({ note: `racer ${i}` }),
        }),
        AGREEMENT,
      );
      expect(statusCounts(answers.map((answer) => answer.status))).toEqual({ 200: 1, 412: 19 });
      const winner = answers.find((answer) => answer.status === 200)?.racer;
      const [a, b] = [await read(0, AGREEMENT), await read(1, AGREEMENT)];
      expect(a.body).toBe(b.body);
      expect(JSON.parse(a.body).state).toBe('SUSPENDED');
      const [historyA, historyB] = [
        await read(1, `${AGREEMENT}/history`),
        await read(0, `${AGREEMENT}/history`),
      ];
      expect(historyA.body).toBe(historyB.body);
      expect(JSON.parse(historyA.body).items).toMatchObject([
        {
          id: 'AGREEMENT-SEED01-H1',
          action: 'suspend',
          outcome: 'STATE_CHANGED',
          request: { note: `racer ${winner}` },
          state_before: 'ACTIVE',
          state_after: 'SUSPENDED',
        },
      ]);
      const { rows } = await pool.query(
        "SELECT n FROM action_history WHERE resource_id = 'AGREEMENT-SEED01'",
      );
      expect(rows).toEqual([{ n: 1 }]);
    });

    it('numbers the records of calls that change nothing without a gap or a repeat', async () => {
      const path = '/v1/payments/billing-agreements/AGREEMENT-SEED02';
      // ACTIVE: every re-activate changes nothing, so no version is compared; the history's
      // primary key keeps the numbers apart (a call that lost its number runs again; one that
      // lost more often than conditional-requests retries answers 409 WRITE_CONTENTION).
      const answers = await race(
        `${path}/re-activate`,
        () => ({ method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' }),
        path,
      );
      const recorded = answers.filter((answer) => answer.status === 204).length;
      expect(recorded).toBeGreaterThan(0);
      for (const answer of answers.filter((each) => each.status !== 204)) {
        expect(answer.status).toBe(409);
        expect(JSON.parse(answer.body).error.innererror.code).toBe('WRITE_CONTENTION');
      }
      const { rows } = await pool.query<{ n: number }>(
        "SELECT n FROM action_history WHERE resource_id = 'AGREEMENT-SEED02' ORDER BY n",
      );
      expect(rows.map((row) => row.n)).toEqual(Array.from({ length: recorded }, (_, i) => i + 1));
    });

    it('refunds of one capture never add up to more than the capture', async () => {
      // CAPTURE-SEED1 is 10.00 USD: at most three refunds of 3.00 fit.
      const path = '/v1/payments/captures/CAPTURE-SEED1';
      const answers = await race(
        `${path}/refund`,
        () => ({
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ amount: { total: '3.00', currency: 'USD' } }),
        }),
        path,
      );
      const created = answers.filter((answer) => answer.status === 201);
      expect(created.length).toBeGreaterThan(0);
      expect(created.length).toBeLessThanOrEqual(3);
      for (const refused of answers.filter((answer) => answer.status !== 201)) {
        // 422 once the capture cannot take another; 409 WRITE_CONTENTION when a call lost the
        // compare-and-set more times than conditional-requests retries.
        const error = JSON.parse(refused.body).error;
        if (refused.status === 422) {
          expect(['REFUND_EXCEEDS_CAPTURE', 'CAPTURE_FULLY_REFUNDED']).toContain(
            error.innererror.code,
          );
        } else {
          expect(refused.status).toBe(409);
          expect(error.innererror.code).toBe('WRITE_CONTENTION');
        }
      }
      const [a, b] = [await read(0, path), await read(1, path)];
      expect(a.body).toBe(b.body);
      const refunded = `${(created.length * 3).toFixed(2)}`;
      expect(JSON.parse(a.body).refunded_amount).toEqual({ total: refunded, currency: 'USD' });
      const { rows } = await pool.query<{ n: string }>(
        "SELECT count(*) AS n FROM refunds WHERE capture_id = 'CAPTURE-SEED1'",
      );
      expect(Number(rows[0]?.n)).toBe(created.length);
    });
  });

  describe('paging with next links that alternate between the instances', () => {
    const LAST_NAMES = ['Ng', 'Okafor', 'Smith'];
    let everyId: string[];

    beforeAll(async () => {
      // Forty-eight customers, sixteen per last name: a sort by last name is mostly ties.
      await Promise.all(
        Array.from({ length: 48 }, (_, i) =>
          on(i, CUSTOMERS, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              merchant_customer_id: `paging-${i}`,
              merchant_id: 'MERCHANT-PAGING',
              last_name: LAST_NAMES[i % 3],
            }),
          }).then((res) => expect(res.status).toBe(201)),
        ),
      );
      const { rows } = await pool.query<{ id: string }>('SELECT id FROM customers');
      everyId = rows.map((row) => row.id).sort();
    });

    async function walk(query: string) {
      const seen: string[] = [];
      let next: string | undefined = `${CUSTOMERS}?${query}`;
      let hop = 0;
      const tokens: string[] = [];
      while (next !== undefined && hop < 100) {
        const res = await on(hop, next);
        expect(res.status).toBe(200);
        const page = (await res.json()) as {
          items: { id: string }[];
          links: { rel: string; href: string }[];
        };
        seen.push(...page.items.map((item) => item.id));
        const href = page.links.find((link) => link.rel === 'next')?.href;
        if (href !== undefined) {
          expect(href.startsWith(`${BASE}${CUSTOMERS}?`)).toBe(true);
          tokens.push(new URL(href).searchParams.get('page_token') ?? '');
        }
        next = href?.slice(BASE.length);
        hop++;
      }
      return { seen, tokens };
    }

    it.each([
      'page_size=7',
      'page_size=5&sort_by=last_name',
      'page_size=6&sort_by=last_name&sort_order=desc',
      'page_size=4&merchant_id=MERCHANT-PAGING&sort_by=last_name',
    ])('visits every record exactly once: %s', async (query) => {
      const { seen, tokens } = await walk(query);
      expect(tokens.length).toBeGreaterThan(3);
      expect(tokens.every((token) => token.length > 0)).toBe(true);
      const expected = query.includes('merchant_id=')
        ? (
            await pool.query<{ id: string }>(
              "SELECT id FROM customers WHERE merchant_id = 'MERCHANT-PAGING'",
            )
          ).rows
            .map((row) => row.id)
            .sort()
        : everyId;
      expect(new Set(seen).size).toBe(seen.length);
      expect([...seen].sort()).toEqual(expected);
    });
  });

  describe('hostile list parameters', () => {
    beforeAll(async () => {
      await pool.query('CREATE TABLE canary (note text)');
    });

    /** The customers table and the canary are as they were: no statement of the client ran. */
    async function nothingExecuted(customersBefore: number) {
      const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM customers');
      expect(Number(rows[0]?.n)).toBe(customersBefore);
      const canary = await pool.query('SELECT * FROM canary');
      expect(canary.rows).toEqual([]);
    }

    async function customerCount() {
      const { rows } = await pool.query<{ n: string }>('SELECT count(*) AS n FROM customers');
      return Number(rows[0]?.n);
    }

    const envelope = async (res: Response) =>
      ((await res.json()) as { error: { code: string; target?: string } }).error;

    it.each([
      ["merchant_id=x' OR '1'='1", 0],
      ["merchant_id='; DROP TABLE canary; --", 0],
      ["last_name=x'); INSERT INTO canary VALUES ('pwned'); --", 0],
    ])('compares the filter %s as a value: an empty list, nothing run', async (query) => {
      const before = await customerCount();
      const res = await on(0, `${CUSTOMERS}?${encodeURI(query)}`);
      // last_name is not filterable: 400 naming it; merchant_id is, and matches nothing.
      if (query.startsWith('last_name')) {
        expect(res.status).toBe(400);
        expect((await envelope(res)).target).toBe('last_name');
      } else {
        expect(res.status).toBe(200);
        expect(((await res.json()) as { items: unknown[] }).items).toEqual([]);
      }
      await nothingExecuted(before);
    });

    it.each([
      ['create_time_after=2020-01-01%27%3B%20DROP%20TABLE%20canary%3B--', 'create_time_after'],
      ['sort_by=create_time%3B%20DROP%20TABLE%20canary', 'sort_by'],
      ['sort_by=doc', 'sort_by'],
      ['offset=500000', 'offset'],
      ['offset=99999999999999999999999', 'offset'],
      ['page_token=v1.forged.token', 'page_token'],
    ])('answers 400 naming the parameter for %s, nothing run', async (query, target) => {
      const before = await customerCount();
      const res = await on(1, `${CUSTOMERS}?${query}`);
      expect(res.status).toBe(400);
      expect(await envelope(res)).toMatchObject({ target });
      await nothingExecuted(before);
    });

    it('answers 400 naming page_token for a token altered by one character', async () => {
      const first = await on(0, `${CUSTOMERS}?page_size=2`);
      const href = ((await first.json()) as { links: { rel: string; href: string }[] }).links.find(
        (link) => link.rel === 'next',
      )?.href;
      const token = new URL(String(href)).searchParams.get('page_token') ?? '';
      const flipped = token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A');
      const res = await on(1, `${CUSTOMERS}?page_size=2&page_token=${encodeURIComponent(flipped)}`);
      expect(res.status).toBe(400);
      expect(await envelope(res)).toMatchObject({ target: 'page_token' });
    });
  });
});
