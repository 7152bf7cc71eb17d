/**
 * What `contentNegotiation()` costs per request, measured in process: the two benchmark routes
 * (content-negotiation.bench.ts's 100-item page on the app, middleware-alone.bench.ts's 20-card
 * page on a router under `/v1`), each without the middleware, with it (default options) and with
 * the example's options (`jsonp`, `languages`). Each app gets an in-memory keep-alive connection
 * (in-process.ts): Node's HTTP server parses the request's bytes and writes the answer, as in a
 * load run, without the kernel's part or a load generator. CPU time per request
 * (process.cpuUsage) in alternating rounds, the heap collected before each round when run with
 * `--expose-gc`; the ratio of each round's baseline to candidate, median over the rounds, and the
 * ratio of the two variants' least rounds (another process on the machine only ever adds CPU
 * time, so the least round is the one it disturbed least).
 * A diagnostic, not a benchmark (run-all.ts skips it):
 *
 *   node --expose-gc --conditions=source --import tsx ablate-content-negotiation.ts [json|gzip|xml|…]
 *
 * `ABLATE_ROUNDS` (default 30) and `ABLATE_MS` (default 100) set the rounds and their length;
 * `ABLATE_ONLY` keeps the variants whose name contains it (and their baselines);
 * `ABLATE_SOURCES` adds copies of the package's source to compare with (see below);
 * `ABLATE_PROBES=1` adds floors: a layer that only calls `next()`, one that also sets a `WeakMap`
 * entry for the request, and one that wraps the response's `writeHead` (a closure and an own
 * property, as on-headers does).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { contentNegotiation } from '@resourceful/content-negotiation';
import express, { type RequestHandler } from 'express';
import { page } from './content-negotiation.bench.js';
import { median } from './harness.js';
import { connect, type Handler } from './in-process.js';
import { cardPage as cards } from './middleware-alone.bench.js';

/** content-negotiation.bench.ts's shape: the middleware and the route on the app. */
function pageApp(middleware?: RequestHandler): Handler {
  const app = express();
  if (middleware) app.use(middleware);
  app.get('/v1/vault/credit-cards', (_req, res) => {
    res.json(page);
  });
  return app as unknown as Handler;
}

/** middleware-alone.bench.ts's shape: the middleware on the app, the route on a router. */
function cardsApp(middleware?: RequestHandler): Handler {
  const app = express();
  app.disable('x-powered-by');
  if (middleware) app.use(middleware);
  const v1 = express.Router();
  v1.get('/vault/credit-cards', (_req, res) => {
    res.json(cards);
  });
  app.use('/v1', v1);
  return app as unknown as Handler;
}

const EXAMPLE_OPTIONS = { jsonp: true, languages: ['en', 'fr'] };
const HEADERS: Record<string, string> = {
  json: 'Accept: application/json\r\n',
  none: '',
  any: 'Accept: */*\r\n',
  browser: 'Accept: application/json, text/plain, */*\r\nAccept-Language: fr-CH, fr;q=0.9\r\n',
  gzip: 'Accept: application/json\r\nAccept-Encoding: gzip\r\n',
  identity: 'Accept: application/json\r\nAccept-Encoding: identity\r\n',
  xml: 'Accept: application/xml\r\n',
};
const mode = process.argv[2] ?? 'json';
const headers = HEADERS[mode];
if (headers === undefined) {
  throw new Error(`unknown mode ${mode}: ${Object.keys(HEADERS).join(', ')}`);
}
const request = `GET /v1/vault/credit-cards HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n${headers}\r\n`;

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
  readonly handler: Handler;
  /** The variant this one is compared with (its baseline). */
  readonly baseline?: string;
}

const PAGE_BARE = '100-item page, bare';
const CARDS_BARE = '20-card page, bare';
let variants: Variant[] = [
  { name: PAGE_BARE, handler: pageApp() },
  { name: CARDS_BARE, handler: cardsApp() },
];
if (process.env.ABLATE_PROBES === '1') {
  const passThrough: RequestHandler = function passThrough(_req, _res, next) {
    next();
  };
  const hooked: RequestHandler = function hooked(_req, res, next) {
    const writeHead = res.writeHead;
    res.writeHead = function (this: ServerResponse, ...args: unknown[]) {
      return Reflect.apply(writeHead, this, args) as ServerResponse;
    } as typeof res.writeHead;
    next();
  };
  const marks = new WeakMap<IncomingMessage, object>();
  const marked: RequestHandler = function marked(req, _res, next) {
    marks.set(req, EXAMPLE_OPTIONS);
    next();
  };
  variants.push(
    { name: '100-item page, next() only', handler: pageApp(passThrough), baseline: PAGE_BARE },
    { name: '20-card page, next() only', handler: cardsApp(passThrough), baseline: CARDS_BARE },
    { name: '20-card page, a WeakMap entry', handler: cardsApp(marked), baseline: CARDS_BARE },
    { name: '20-card page, a writeHead wrapper', handler: cardsApp(hooked), baseline: CARDS_BARE },
  );
}
for (const [label, factory] of sources) {
  variants.push(
    {
      name: `100-item page, contentNegotiation()${label}`,
      handler: pageApp(factory() as RequestHandler),
      baseline: PAGE_BARE,
    },
    {
      name: `20-card page, contentNegotiation()${label}`,
      handler: cardsApp(factory() as RequestHandler),
      baseline: CARDS_BARE,
    },
    {
      name: `20-card page, the example's options${label}`,
      handler: cardsApp(factory(EXAMPLE_OPTIONS) as RequestHandler),
      baseline: CARDS_BARE,
    },
  );
}
const only = process.env.ABLATE_ONLY;
if (only !== undefined) {
  const kept = variants.filter(({ name }) => name.includes(only));
  const baselines = new Set(kept.map(({ baseline }) => baseline));
  variants = variants.filter(({ name }) => name.includes(only) || baselines.has(name));
}

const clients = variants.map(({ handler }) => connect(handler, request));
const collect = (globalThis as { gc?: () => void }).gc;

/**
 * Instruction counting: `ABLATE_COUNT=<requests> ABLATE_VARIANT=<part of a name>` runs that one
 * variant that many times and nothing else, to be run under
 * `valgrind --tool=cachegrind --cache-sim=no node --predictable …` at two counts: the
 * difference in instructions over the difference in requests is the variant's cost per request,
 * a figure the machine's load does not move. `ABLATE_PROFILE=<part of a name>` does the same
 * for 10 s, for `--cpu-prof`.
 */
const COUNT = Number(process.env.ABLATE_COUNT ?? 0);
const PROFILED = process.env.ABLATE_PROFILE;
if (COUNT > 0 || PROFILED !== undefined) {
  const wanted = PROFILED ?? process.env.ABLATE_VARIANT ?? '';
  const index = variants.findIndex(({ name }) => name.includes(wanted));
  if (index === -1) throw new Error(`no variant named like ${wanted}`);
  const client = clients[index]!;
  const start = performance.now();
  let done = 0;
  // Bounded: COUNT requests, or 10 s of them when profiling.
  while (COUNT > 0 ? done < COUNT : performance.now() - start < 10_000) {
    await client.send();
    done++;
  }
  console.log(`${variants[index]!.name}: ${done} requests`);
  process.exit(0);
}

const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 30);
const MS = Number(process.env.ABLATE_MS ?? 100);
const WARM_UP = 3;
const costs = variants.map((): number[] => []);
const order = variants.map((_, index) => index);
for (let round = 0; round < ROUNDS + WARM_UP; round++) {
  for (const index of round % 2 === 0 ? order : [...order].reverse()) {
    const client = clients[index]!;
    collect?.();
    const before = process.cpuUsage();
    let requests = 0;
    const start = performance.now();
    // Bounded: MS milliseconds of requests per variant and round.
    while (performance.now() - start < MS) {
      for (let count = 0; count < 20; count++) await client.send();
      requests += 20;
    }
    const used = process.cpuUsage(before);
    if (round >= WARM_UP) costs[index]!.push((used.user + used.system) / requests);
  }
}

console.log(
  `mode ${mode}, ${ROUNDS} rounds of ${MS} ms per variant (after ${WARM_UP} warm-up)${collect ? ', GC before each' : ''}`,
);
console.log(
  '| variant | CPU µs per request (median) | CPU ratio baseline / variant (median of rounds, range) | ratio of the least rounds |',
);
console.log('|---|---|---|---|');
variants.forEach(({ name, baseline }, index) => {
  const mine = costs[index]!;
  let ratio = ' | ';
  if (baseline !== undefined) {
    const theirs = costs[variants.findIndex((variant) => variant.name === baseline)]!;
    const ratios = mine.map((cost, round) => theirs[round]! / cost);
    // A contended core only adds CPU time: the least round is the one least disturbed.
    const least = Math.min(...theirs) / Math.min(...mine);
    ratio = `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}) | ${least.toFixed(3)}`;
  }
  console.log(`| ${name} | ${median(mine).toFixed(1)} | ${ratio} |`);
});
