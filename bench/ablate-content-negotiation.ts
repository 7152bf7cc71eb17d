/**
 * What `contentNegotiation()` costs per request, measured in process: the two benchmark routes
 * (content-negotiation.bench.ts's 100-item page on the app, middleware-alone.bench.ts's 20-card
 * page on a router under `/v1`), each without the middleware, with it (default options) and with
 * the example's options (`jsonp`, `languages`), called directly with a request and a response on
 * an unconnected socket in alternating rounds. CPU time per request (process.cpuUsage), the
 * ratio of each round's baseline to candidate, median over the rounds: no load generator and no
 * network, so far less noise than a load run, and a stricter ratio (the HTTP parsing and the
 * socket write both sides would share are left out). A diagnostic, not a benchmark (run-all.ts
 * skips it):
 *
 *   node --conditions=source --import tsx ablate-content-negotiation.ts [json|gzip|xml]
 *
 * `ABLATE_ROUNDS` (default 20) and `ABLATE_MS` (default 150) set the rounds and their length;
 * `ABLATE_SOURCES` adds copies of the package's source to compare with (see below).
 */
import { IncomingMessage, type RequestListener, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { contentNegotiation } from '@resourceful/content-negotiation';
import express, { type RequestHandler } from 'express';
import { page } from './content-negotiation.bench.js';
import { median } from './harness.js';
import { cardPage as cards } from './middleware-alone.bench.js';

/** content-negotiation.bench.ts's shape: the middleware and the route on the app. */
function pageApp(middleware?: RequestHandler): RequestListener {
  const app = express();
  if (middleware) app.use(middleware);
  app.get('/v1/vault/credit-cards', (_req, res) => {
    res.json(page);
  });
  return app as unknown as RequestListener;
}

/** middleware-alone.bench.ts's shape: the middleware on the app, the route on a router. */
function cardsApp(middleware?: RequestHandler): RequestListener {
  const app = express();
  app.disable('x-powered-by');
  if (middleware) app.use(middleware);
  const v1 = express.Router();
  v1.get('/vault/credit-cards', (_req, res) => {
    res.json(cards);
  });
  app.use('/v1', v1);
  return app as unknown as RequestListener;
}

const EXAMPLE_OPTIONS = { jsonp: true, languages: ['en', 'fr'] };
const HEADERS: Record<string, Record<string, string>> = {
  json: { accept: 'application/json' },
  gzip: { accept: 'application/json', 'accept-encoding': 'gzip' },
  xml: { accept: 'application/xml' },
};
const mode = process.argv[2] ?? 'json';
const headers = HEADERS[mode];
if (headers === undefined) throw new Error(`unknown mode ${mode}: json, gzip or xml`);

type Factory = typeof contentNegotiation;
/**
 * The package as it is, and other copies of its source to compare in the same run
 * (`ABLATE_SOURCES="before=../packages/content-negotiation/.before/index.ts"`): a change is
 * measured against the code it replaces in the same process and the same rounds.
 */
const sources: [string, Factory][] = [['', contentNegotiation]];
for (const entry of (process.env.ABLATE_SOURCES ?? '').split(',').filter(Boolean)) {
  const [name, path] = entry.split('=');
  const module = (await import(new URL(path!, import.meta.url).href)) as {
    contentNegotiation: Factory;
  };
  sources.push([` (${name})`, module.contentNegotiation]);
}

interface Variant {
  readonly name: string;
  readonly handler: RequestListener;
  /** The variant this one is compared with (its baseline). */
  readonly baseline?: string;
}

const variants: Variant[] = [
  { name: '100-item page, bare', handler: pageApp() },
  { name: '20-card page, bare', handler: cardsApp() },
];
for (const [label, factory] of sources) {
  variants.push(
    {
      name: `100-item page, contentNegotiation()${label}`,
      handler: pageApp(factory() as RequestHandler),
      baseline: '100-item page, bare',
    },
    {
      name: `20-card page, contentNegotiation()${label}`,
      handler: cardsApp(factory() as RequestHandler),
      baseline: '20-card page, bare',
    },
    {
      name: `20-card page, the example's options${label}`,
      handler: cardsApp(factory(EXAMPLE_OPTIONS) as RequestHandler),
      baseline: '20-card page, bare',
    },
  );
}

const socket = new Socket();
function once(handler: RequestListener): void {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = '/v1/vault/credit-cards';
  req.headers = { host: '127.0.0.1:3000', ...headers };
  const res = new ServerResponse(req);
  handler(req, res);
  if (res.statusCode !== 200) throw new Error(`answered ${res.statusCode}`);
}

/**
 * Instruction counting: `ABLATE_COUNT=<requests> ABLATE_VARIANT=<part of a name>` runs that one
 * variant that many times and nothing else, to be run under
 * `valgrind --tool=cachegrind --cache-sim=no node --single-threaded …` at two counts: the
 * difference in instructions over the difference in requests is the variant's cost per request,
 * a figure the machine's load does not move (CPU time on this shared machine moves by ±20 %).
 */
const COUNT = Number(process.env.ABLATE_COUNT ?? 0);
if (COUNT > 0) {
  const wanted = process.env.ABLATE_VARIANT ?? '';
  const variant = variants.find(({ name }) => name.includes(wanted));
  if (variant === undefined) throw new Error(`no variant named like ${wanted}`);
  for (let done = 0; done < COUNT; done += 20) {
    for (let index = 0; index < 20; index++) once(variant.handler);
    await new Promise((resolve) => setImmediate(resolve));
  }
  console.log(`${variant.name}: ${COUNT} requests`);
  process.exit(0);
}

const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 20);
const MS = Number(process.env.ABLATE_MS ?? 150);
const WARM_UP = 3;
const costs = new Map<string, number[]>(variants.map(({ name }) => [name, []]));
for (let round = 0; round < ROUNDS + WARM_UP; round++) {
  for (const { name, handler } of round % 2 === 0 ? variants : [...variants].reverse()) {
    const before = process.cpuUsage();
    let requests = 0;
    const start = performance.now();
    // Bounded: MS milliseconds of calls per variant and round, yielding so pending work settles.
    while (performance.now() - start < MS) {
      for (let index = 0; index < 20; index++) once(handler);
      requests += 20;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const used = process.cpuUsage(before);
    if (round >= WARM_UP) costs.get(name)!.push((used.user + used.system) / requests);
  }
}

console.log(`mode ${mode}, ${ROUNDS} rounds of ${MS} ms per variant (after ${WARM_UP} warm-up)`);
console.log(
  '| variant | CPU µs per request (median) | CPU ratio baseline / variant (median of rounds, range) |',
);
console.log('|---|---|---|');
for (const { name, baseline } of variants) {
  const mine = costs.get(name)!;
  let ratio = '';
  if (baseline !== undefined) {
    const theirs = costs.get(baseline)!;
    const ratios = mine.map((cost, round) => theirs[round]! / cost);
    ratio = `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`;
  }
  console.log(`| ${name} | ${median(mine).toFixed(1)} | ${ratio} |`);
}
