import {
  type CollectionEnvelope,
  type PaginateOptions,
  paginate,
} from '@resourceful/collection-pagination';
import { type ErrorReport, errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  hasPostgresServer,
  type PostgresServer,
  startPostgresServer,
} from '@resourceful/test-support';
import pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pgDataSource, type Queryable } from '../src/index.js';
import { type Card, cards, columns, createCards } from './fixtures.js';

const SECRET = 'a-secret-of-at-least-thirty-two-characters';

type Body = CollectionEnvelope<Card>;

function rels(body: Body): Record<string, string> {
  return Object.fromEntries(body.links.map((link) => [link.rel, link.href]));
}

function pathOf(href: string): string {
  const url = new URL(href);
  return url.pathname + url.search;
}

describe.skipIf(!hasPostgresServer())('paginate over PostgreSQL', () => {
  let server: PostgresServer;
  let pool: pg.Pool;
  // Every statement the data source sent, to check which queries a request costs.
  const statements: string[] = [];
  const recording: Queryable = {
    query: (text, values) => {
      statements.push(text);
      return pool.query(text, values);
    },
  };

  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    pool.on('error', () => {});
    await createCards(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await server?.close();
  });

  const options = (): PaginateOptions<Card> => ({
    source: pgDataSource<Card>({
      pool: recording,
      table: 'cards',
      key: 'id',
      columns,
      maxOffset: 1000,
    }),
    sortable: ['create_time', 'last_name'],
    filterable: ['payer_id', 'state', 'expire_year'],
    timeSelectable: ['create_time'],
    totals: 'on-request',
    continuation: { secrets: [SECRET] },
    summary: ({ id }) => ({ id }),
  });

  describeEachExpress('a list', (express) => {
    function app() {
      const app = express();
      app.get('/v1/vault/credit-cards', paginate(options()));
      app.use(errorHandler());
      return app;
    }

    it('pages across two instances with one secret, visiting every card once under ties', async () => {
      const instances = [app(), app()];
      for (const sort of ['sort_by=last_name', 'sort_by=create_time&sort_order=desc']) {
        const seen: string[] = [];
        let path: string | undefined = `/v1/vault/credit-cards?${sort}&page_size=7`;
        for (let hop = 0; path !== undefined && hop < 50; hop++) {
          const res = await request(instances[hop % 2]!).get(path);
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          seen.push(...(res.body as Body).items.map((item) => item.id));
          const next = rels(res.body as Body).next;
          path = next === undefined ? undefined : pathOf(next);
        }
        expect(seen).toHaveLength(cards.length);
        expect(new Set(seen).size).toBe(cards.length);
      }
    });

    it('skips the count query unless total_required=true', async () => {
      statements.length = 0;
      await request(app()).get('/v1/vault/credit-cards?state=ok');
      expect(statements.some((text) => text.includes('count('))).toBe(false);
      await request(app()).get('/v1/vault/credit-cards?state=ok&total_required=true');
      expect(statements.filter((text) => text.includes('count('))).toHaveLength(1);
    });

    it('answers a SQL-looking filter value with an empty page; the table stays', async () => {
      const res = await request(app()).get(
        `/v1/vault/credit-cards?state=${encodeURIComponent("x'; DROP TABLE cards; --")}`,
      );
      expect(res.status).toBe(200);
      expect((res.body as Body).items).toEqual([]);
      const { rows } = await pool.query('SELECT count(*)::int AS n FROM cards');
      expect(rows[0].n).toBe(cards.length);
    });

    it('answers 400 naming the filter for a value its column cannot hold', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?expire_year=2026%27%20OR%201=1');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'expire_year' });
    });

    it('answers 400 naming the parameter for a huge offset, an unknown sort, a forged token, sending no SQL', async () => {
      statements.length = 0;
      const deep = await request(app()).get('/v1/vault/credit-cards?offset=5000&limit=5');
      expectErrorEnvelope(deep, 400, { code: 'INVALID_REQUEST', target: 'offset' });
      const huge = await request(app()).get('/v1/vault/credit-cards?offset=99999999999999999999');
      expectErrorEnvelope(huge, 400, { code: 'INVALID_REQUEST', target: 'offset' });
      const sort = await request(app()).get('/v1/vault/credit-cards?sort_by=number;DROP');
      expectErrorEnvelope(sort, 400, { code: 'INVALID_REQUEST', target: 'sort_by' });
      const forged = await request(app()).get(
        `/v1/vault/credit-cards?page_token=${encodeURIComponent("v1.eyJ9.x'--")}`,
      );
      expectErrorEnvelope(forged, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      // Refused before the data source ran a statement: nothing the client wrote reached SQL.
      expect(statements).toEqual([]);
    });

    it('answers 500 for a declared property the source does not map, naming it in the log only', async () => {
      const reports: ErrorReport[] = [];
      const misconfigured = express();
      misconfigured.get(
        '/v1/vault/credit-cards',
        paginate({ ...options(), filterable: ['payer_id', 'nickname'] }),
      );
      misconfigured.use(errorHandler({ onError: (report) => reports.push(report) }));
      statements.length = 0;
      const res = await request(misconfigured).get('/v1/vault/credit-cards?nickname=x');
      expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
      expect(res.text).not.toContain('nickname');
      expect(statements).toEqual([]);
      expect(reports).toHaveLength(1);
      expect(reports[0]?.cause).toMatchObject({
        code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
        option: 'columns',
        message: expect.stringContaining('"nickname"'),
      });
      // A request that names only mapped properties is served.
      expect((await request(misconfigured).get('/v1/vault/credit-cards?payer_id=x')).status).toBe(
        200,
      );
    });
  });
});
