/**
 * Paging at depth on PostgreSQL (@resourceful/collection-pagination-pg): a first page and a page
 * at depth 500 000 of a 1 000 000-row table, by offset and by continuation token, against a first
 * page of a 1 000-row table, all through `paginate()` in the same run. Needs Debian's
 * `postgresql` package (the server is started here, on a loopback port, and removed after).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type KeysetDataSource, paginate } from '@resourceful/collection-pagination';
import { pgDataSource } from '@resourceful/collection-pagination-pg';
import { findPostgresBinDir, startPostgresServer } from '@resourceful/test-support';
import pg from 'pg';
import type { Comparison } from './harness.js';
import { report } from './harness.js';

const LARGE = 1_000_000;
const SMALL = 1_000;
const DEPTH = 500_000;
const PAGE_SIZE = 20;
// Per measurement; every loop below is bounded by this and by a request count.
const MILLISECONDS = Number(process.env.BENCH_MS ?? 2_000);
const MAX_REQUESTS = 20_000;
const SECRET = 'bench-secret-of-at-least-thirty-two-characters';

interface Card {
  id: number;
  payer_id: string;
  create_time: Date;
}

async function createTable(pool: pg.Pool, name: string, rows: number): Promise<void> {
  await pool.query(`DROP TABLE IF EXISTS ${name}`);
  await pool.query(
    `CREATE TABLE ${name} (id integer PRIMARY KEY, payer_id text NOT NULL, create_time timestamptz NOT NULL)`,
  );
  // Ten rows a second: the sort has ties, so the key decides within each.
  await pool.query(
    `INSERT INTO ${name} SELECT i, 'P-' || (i % 7), timestamptz '2024-01-01' + (i / 10) * interval '1 second'
       FROM generate_series(1, $1) AS i`,
    [rows],
  );
  await pool.query(`CREATE INDEX ON ${name} (create_time, id)`);
  await pool.query(`ANALYZE ${name}`);
}

type Handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

function middleware(source: KeysetDataSource<Card>): Handler {
  return paginate({
    source,
    sortable: ['create_time'],
    defaultSort: { by: 'create_time' },
    totals: 'on-request',
    maxPageSize: PAGE_SIZE,
    defaultPageSize: PAGE_SIZE,
    continuation: { secrets: [SECRET] },
  });
}

/** Answers one request in process (no sockets), resolving with the body. */
function call(handler: Handler, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = { url: path, method: 'GET', headers: { host: 'bench.local' }, socket: {} };
    const res = {
      statusCode: 200,
      req,
      setHeader() {},
      end(text: string) {
        if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}: ${text}`));
        else resolve(text);
      },
    };
    handler(req as unknown as IncomingMessage, res as unknown as ServerResponse, reject);
  });
}

/** Mean milliseconds per page, requests one after another, bounded by time and count. */
async function msPerPage(handler: Handler, path: string): Promise<number> {
  await call(handler, path);
  const start = performance.now();
  let pages = 0;
  while (performance.now() - start < MILLISECONDS && pages < MAX_REQUESTS) {
    await call(handler, path);
    pages++;
  }
  return (performance.now() - start) / pages;
}

export async function run(): Promise<Comparison[]> {
  if (findPostgresBinDir() === undefined) {
    console.log('PostgreSQL is not installed (Debian: apt-get install postgresql); skipped.');
    return [];
  }
  const server = await startPostgresServer();
  const pool = new pg.Pool({ connectionString: server.url, max: 2 });
  pool.on('error', () => {});
  try {
    await createTable(pool, 'cards_small', SMALL);
    await createTable(pool, 'cards_large', LARGE);
    const source = (table: string) =>
      pgDataSource<Card>({
        pool,
        table,
        key: 'id',
        columns: { create_time: 'create_time' },
        maxOffset: LARGE,
      });
    const small = middleware(source('cards_small'));
    const large = middleware(source('cards_large'));

    // A continuation token at depth 500 000, as the middleware signs it: the `next` link of the
    // page that ends just before that depth (fetched once by offset to get there).
    const largeSource = source('cards_large');
    const seeking = middleware({
      ...largeSource,
      fetchAfter: (query, after) =>
        after === undefined
          ? largeSource.fetchPage({ ...query, offset: DEPTH - PAGE_SIZE })
          : largeSource.fetchAfter(query, after),
    });
    const seeded = JSON.parse(await call(seeking, '/v1/cards')) as {
      links: { rel: string; href: string }[];
    };
    const next = new URL(seeded.links.find((link) => link.rel === 'next')!.href);
    const tokenPath = `/v1/cards${next.search}`;

    const times = {
      smallFirst: [] as number[],
      largeFirst: [] as number[],
      largeOffset: [] as number[],
      largeToken: [] as number[],
    };
    // Alternated, after a warm-up inside msPerPage, so drift hits every case alike.
    for (let round = 0; round < 2; round++) {
      times.smallFirst.push(await msPerPage(small, '/v1/cards'));
      times.largeFirst.push(await msPerPage(large, '/v1/cards'));
      times.largeOffset.push(
        await msPerPage(large, `/v1/cards?offset=${DEPTH}&limit=${PAGE_SIZE}`),
      );
      times.largeToken.push(await msPerPage(large, tokenPath));
    }
    const mean = (values: number[]) =>
      values.reduce((sum, value) => sum + value, 0) / values.length;
    const ms = {
      smallFirst: mean(times.smallFirst),
      largeFirst: mean(times.largeFirst),
      largeOffset: mean(times.largeOffset),
      largeToken: mean(times.largeToken),
    };
    console.log(
      `ms per page: 1 000 rows first ${ms.smallFirst.toFixed(3)}, 1 000 000 rows first ${ms.largeFirst.toFixed(3)}, offset ${DEPTH} ${ms.largeOffset.toFixed(3)}, token at ${DEPTH} ${ms.largeToken.toFixed(3)}`,
    );
    // Throughput ratios (candidate / baseline), as every other benchmark reports them: a page
    // that takes 3x as long is a ratio of 0.333.
    const comparisons: Comparison[] = [
      ['first page, 1 000 000 vs 1 000 rows', ms.smallFirst, ms.largeFirst],
      [`page at ${DEPTH} by token vs first page, 1 000 000 rows`, ms.largeFirst, ms.largeToken],
      [`page at ${DEPTH} by offset vs first page, 1 000 000 rows`, ms.largeFirst, ms.largeOffset],
      [
        `page at ${DEPTH} by token (1 000 000 rows) vs first page (1 000 rows)`,
        ms.smallFirst,
        ms.largeToken,
      ],
    ].map(([name, baseline, candidate]) => ({
      name: `collection-pagination-pg: ${name}`,
      baseline: Math.round(1000 / (baseline as number)),
      candidate: Math.round(1000 / (candidate as number)),
      ratio: (baseline as number) / (candidate as number),
    }));
    for (const comparison of comparisons) report(comparison);
    return comparisons;
  } finally {
    await pool.end();
    await server.close();
  }
}
