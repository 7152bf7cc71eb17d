/**
 * Two measurements for @resourceful/collection-pagination:
 * 1. Parsing + envelope building against the same route returning the same page by hand.
 * 2. One page from an indexed data source over 1 000 vs 1 000 000 records: the middleware never
 *    loads the collection, so the time for a page must not grow with its size.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { type DataSource, memoryDataSource, paginate } from '@resourceful/collection-pagination';
import { errorHandler } from '@resourceful/error-envelope';
import { listen } from '@resourceful/test-support';
import express, { type Express, type Request, type Response } from 'express';
import { type Comparison, compare, load, report } from './harness.js';

interface Card {
  id: string;
  payer_id: string;
  state: string;
  create_time: string;
}

const START = Date.UTC(2024, 0, 1);

function card(index: number, time: number): Card {
  return {
    id: `CARD-${index}`,
    payer_id: `P-${index % 7}`,
    state: 'ok',
    create_time: new Date(time).toISOString(),
  };
}

const cards: Card[] = Array.from({ length: 1000 }, (_, index) => card(index, START + index * 1000));

/** The page the package answers, written by hand: what a route without the package would do. */
export function byHand(): Express {
  const app = express();
  // res.json would add a weak ETag the package does not compute; leave it out of the comparison.
  app.disable('etag');
  app.get('/v1/vault/credit-cards', (req: Request, res: Response) => {
    const page = Number(req.query.page ?? 1);
    const pageSize = Number(req.query.page_size ?? 10);
    const offset = (page - 1) * pageSize;
    const totalPages = Math.ceil(cards.length / pageSize);
    const base = `${req.protocol}://${req.get('host')}${req.path}`;
    const href = (p: number) => `${base}?page=${p}&page_size=${pageSize}`;
    const links = [
      { href: href(page), rel: 'self', method: 'GET' },
      { href: href(1), rel: 'first', method: 'GET' },
    ];
    if (page > 1) links.push({ href: href(page - 1), rel: 'previous', method: 'GET' });
    if (page < totalPages) links.push({ href: href(page + 1), rel: 'next', method: 'GET' });
    links.push({ href: href(totalPages), rel: 'last', method: 'GET' });
    res.json({
      items: cards.slice(offset, offset + pageSize),
      total_items: cards.length,
      total_pages: totalPages,
      links,
    });
  });
  return app;
}

export function withPackage(): Express {
  const app = express();
  app.get(
    '/v1/vault/credit-cards',
    paginate({
      source: memoryDataSource(cards),
      sortable: ['create_time'],
      filterable: ['payer_id', 'state'],
      timeSelectable: ['create_time'],
    }),
  );
  app.use(errorHandler());
  return app;
}

/**
 * A data source shaped like a database table with an index on create_time: a sorted column of
 * timestamps (8 bytes a record, so a million stay small), binary search for time bounds, rows
 * materialised only for the page asked for.
 */
function indexedSource(size: number): DataSource<Card> {
  const times = new Float64Array(size);
  for (let index = 0; index < size; index++) times[index] = START + index * 1000;
  const lowerBound = (time: number, inclusive: boolean) => {
    let low = 0;
    let high = size;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (inclusive ? times[mid]! < time : times[mid]! <= time) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  const range = (query: Parameters<DataSource<Card>['count']>[0]) => {
    let from = 0;
    let to = size;
    for (const condition of query.time) {
      const time = condition.value.getTime();
      if (condition.operator === 'gt') from = Math.max(from, lowerBound(time, false));
      else if (condition.operator === 'gte') from = Math.max(from, lowerBound(time, true));
      else to = Math.min(to, lowerBound(time, true));
    }
    return { from, to: Math.max(from, to) };
  };
  return {
    count(query) {
      const { from, to } = range(query);
      return to - from;
    },
    fetchPage(query) {
      const { from, to } = range(query);
      const descending = query.sort?.order === 'desc';
      const rows: Card[] = [];
      for (let n = query.offset; n < query.offset + query.limit && from + n < to; n++) {
        const index = descending ? to - 1 - n : from + n;
        rows.push(card(index, times[index]!));
      }
      return rows;
    },
  };
}

function indexedApp(size: number) {
  const app = express();
  app.get(
    '/v1/vault/credit-cards',
    paginate({
      source: indexedSource(size),
      sortable: ['create_time'],
      timeSelectable: ['create_time'],
    }),
  );
  app.use(errorHandler());
  return app;
}

type Handler = (req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void) => void;

function indexedMiddleware(size: number): Handler {
  return paginate({
    source: indexedSource(size),
    sortable: ['create_time'],
    timeSelectable: ['create_time'],
  });
}

/** `byHand` without Express: the least a route can do to answer the same page. */
function handPage(req: IncomingMessage, res: ServerResponse): void {
  const url = req.url ?? '/';
  const mark = url.indexOf('?');
  const path = mark === -1 ? url : url.slice(0, mark);
  const params = new URLSearchParams(mark === -1 ? '' : url.slice(mark + 1));
  const page = Number(params.get('page') ?? 1);
  const pageSize = Number(params.get('page_size') ?? 10);
  const offset = (page - 1) * pageSize;
  const totalPages = Math.ceil(cards.length / pageSize);
  const href = (p: number) => `http://${req.headers.host}${path}?page=${p}&page_size=${pageSize}`;
  const links = [
    { href: href(page), rel: 'self', method: 'GET' },
    { href: href(1), rel: 'first', method: 'GET' },
  ];
  if (page > 1) links.push({ href: href(page - 1), rel: 'previous', method: 'GET' });
  if (page < totalPages) links.push({ href: href(page + 1), rel: 'next', method: 'GET' });
  links.push({ href: href(totalPages), rel: 'last', method: 'GET' });
  const text = JSON.stringify({
    items: cards.slice(offset, offset + pageSize),
    total_items: cards.length,
    total_pages: totalPages,
    links,
  });
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}

/**
 * Pages per second through a handler alone, in process (no sockets, so far less noise than a
 * load run on a busy machine). Bounded by time.
 */
async function pagesPerSecond(handler: Handler, path: string, milliseconds: number) {
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const req = { url: path, method: 'GET', headers: { host: 'bench.local' }, socket: {} };
      const res = {
        statusCode: 200,
        req,
        setHeader() {},
        end() {
          if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
          else resolve();
        },
      };
      handler(req as unknown as IncomingMessage, res as unknown as ServerResponse, reject);
    });
  const start = performance.now();
  const deadline = start + milliseconds;
  let pages = 0;
  while (performance.now() < deadline) {
    await once();
    pages++;
  }
  return pages / ((performance.now() - start) / 1000);
}

/** Many short alternating rounds (B, C, C, B, …) so drift in the machine's load hits both. */
async function compareInProcess(
  name: string,
  path: string,
  baselineHandler: Handler,
  candidateHandler: Handler,
): Promise<Comparison> {
  await pagesPerSecond(baselineHandler, path, 300);
  await pagesPerSecond(candidateHandler, path, 300);
  const rounds = 12;
  let baseline = 0;
  let candidate = 0;
  for (let round = 0; round < rounds; round++) {
    const order =
      round % 2 === 0 ? [baselineHandler, candidateHandler] : [candidateHandler, baselineHandler];
    for (const handler of order) {
      const rate = await pagesPerSecond(handler, path, 400);
      if (handler === baselineHandler) baseline += rate;
      else candidate += rate;
    }
  }
  const comparison = {
    name,
    baseline: Math.round(baseline / rounds),
    candidate: Math.round(candidate / rounds),
    ratio: candidate / baseline,
  };
  report(comparison);
  return comparison;
}

/** Fails the run when the two routes do not answer the same body: the ratio would be meaningless. */
async function assertSameBody(a: express.Express, b: express.Express, path: string) {
  const [left, right] = await Promise.all([listen(a), listen(b)]);
  try {
    const [x, y] = await Promise.all([
      fetch(left.url + path).then((res) => res.json()),
      fetch(right.url + path).then((res) => res.json()),
    ]);
    const normalise = (body: unknown) => JSON.stringify(body).replace(/127\.0\.0\.1:\d+/g, 'HOST');
    if (normalise(x) !== normalise(y))
      throw new Error('collection-pagination bench: bodies differ');
  } finally {
    await Promise.all([left.close(), right.close()]);
  }
}

export async function run(): Promise<Comparison[]> {
  const pageRequest = { path: '/v1/vault/credit-cards?page=3&page_size=20' };
  const bare = byHand();
  const candidate = withPackage();
  await assertSameBody(bare, candidate, pageRequest.path);

  const small = indexedApp(1_000);
  const large = indexedApp(1_000_000);
  const indexedPath =
    '/v1/vault/credit-cards?page=40&page_size=20&sort_by=create_time&sort_order=desc' +
    '&create_time_after=2024-01-01T00:00:00Z';
  const packageHandler: Handler = paginate({
    source: memoryDataSource(cards),
    sortable: ['create_time'],
    filterable: ['payer_id', 'state'],
    timeSelectable: ['create_time'],
  });
  return [
    await compare(
      'collection-pagination: paginate + memoryDataSource vs the same page by hand, over HTTP (1 000 records, page 3 of 20)',
      () => load(bare, pageRequest),
      () => load(candidate, pageRequest),
      { goal: { atLeast: 0.97, source: '#19' } },
    ),
    await compareInProcess(
      'collection-pagination: paginate vs the same page by hand, in process without Express (worst case)',
      pageRequest.path,
      handPage,
      packageHandler,
    ),
    await compare(
      'collection-pagination: one page from an indexed data source over HTTP, 1 000 000 vs 1 000 records',
      () => load(small, { path: indexedPath }),
      () => load(large, { path: indexedPath }),
    ),
    await compareInProcess(
      'collection-pagination: one page from an indexed data source in process, 1 000 000 vs 1 000 records',
      indexedPath,
      indexedMiddleware(1_000),
      indexedMiddleware(1_000_000),
    ),
  ];
}
