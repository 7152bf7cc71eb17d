/**
 * What `conditionalRequests()` costs on a `res.json` route, measured in process: the route of
 * middleware-alone.bench.ts (a 20-card page, about 9 KB) and a small webhook (about 400 bytes,
 * the body of json-patch-update.bench.ts), each answered by Express with its default weak ETag
 * (the baseline), with `conditionalRequests()` (the candidate), and by reference variants that
 * say where the difference goes. Each app gets an in-memory keep-alive connection
 * (in-process.ts: Node parses the request bytes and writes the answer, the kernel's part
 * excluded), requests one at a time, alternating rounds, CPU time per request
 * (process.cpuUsage), the median over the measured rounds
 * and the median of the per-round ratios baseline / variant, with the ratio of each variant's
 * least round (a contended core only adds CPU time). A diagnostic, not a benchmark (run-all.ts
 * skips it):
 *
 *   node --expose-gc --import tsx ablate-conditional-requests.ts [variant-name-part …]
 *
 * Without `--conditions=source` it measures the package as built (run its build first), as
 * run-all.ts does; with it, the sources through tsx. `ABLATE_ROUNDS` (default 12, the first 2
 * discarded) and `ABLATE_MS` (default 200 per variant and round) bound the run; `ABLATE_BLOCK`
 * (default 20) is the number of requests sent between two clock readings. Short rounds
 * (`ABLATE_MS=1 ABLATE_BLOCK=10 ABLATE_ROUNDS=3000`) interleave the variants finely, so that
 * every one of them meets the same moments of a shared machine's load: then read the column of
 * all rounds' CPU over all their requests rather than the per-round ratios.
 * `ABLATE_PROFILE=1` runs only the named variants, without their baselines (for
 * `node --cpu-prof`). `ABLATE_COMPARE=<path of another copy's dist/index.js or src/index.ts>`
 * adds that copy's `conditionalRequests()` as a variant (a change measured against the code
 * before it in one run); several paths, comma-separated, add one variant each.
 * `ABLATE_HEADERS` adds request header lines (e.g. `If-None-Match: "x"`).
 */
import { conditionalRequests } from '@resourceful/conditional-requests';
import express, { type Express, type RequestHandler } from 'express';
import { median } from './harness.js';
import { connect, type Handler } from './in-process.js';
import { cardPage as page } from './middleware-alone.bench.js';

/** The webhook of json-patch-update.bench.ts. */
const hook = {
  id: 'WH-1',
  url: 'https://a.example/hook',
  event_types: Array.from({ length: 10 }, (_, i) => ({ name: `EVENT.${i}` })),
  create_time: new Date().toISOString(),
  update_time: new Date().toISOString(),
};

function passThrough(): RequestHandler {
  return function passThroughMiddleware(_req, _res, next) {
    next();
  };
}

/**
 * The floor of any middleware that wraps res.json, res.send and res.end per response: a layer
 * that makes them own properties of the response (the same functions, so nothing else changes).
 */
function threeOwnMethods(): RequestHandler {
  return function threeOwnMethodsMiddleware(_req, res, next) {
    const own = res as unknown as Record<'json' | 'send' | 'end', unknown>;
    own.json = res.json;
    own.send = res.send;
    own.end = res.end;
    next();
  };
}

function build(body: unknown, options: { layer?: RequestHandler; etag?: boolean }): Express {
  const app = express();
  app.disable('x-powered-by');
  if (options.etag === false) app.disable('etag');
  if (options.layer) app.use(options.layer);
  const v1 = express.Router();
  v1.get('/resource', (_req, res) => {
    res.json(body);
  });
  app.use('/v1', v1);
  return app;
}

/** `ABLATE_COMPARE`: other copies of the package, comma-separated, each measured as a variant. */
const comparedPaths = (process.env.ABLATE_COMPARE ?? '').split(',').filter((path) => path !== '');
const compared: [string, typeof conditionalRequests][] = [];
for (const path of comparedPaths) {
  const module = (await import(path)) as { conditionalRequests: typeof conditionalRequests };
  compared.push([path, module.conditionalRequests]);
}

const variants: [string, Handler][] = [];
for (const [label, body] of [
  ['20-card page', page],
  ['small webhook', hook],
] as const) {
  variants.push(
    [`${label}: Express weak ETag (baseline)`, build(body, {}) as unknown as Handler],
    [
      `${label}: conditionalRequests() strong ETag`,
      build(body, { layer: conditionalRequests() as RequestHandler }) as unknown as Handler,
    ],
    ...compared.map(([path, make], index): [string, Handler] => [
      `${label}: conditionalRequests() of ABLATE_COMPARE${index === 0 ? '' : ` #${index + 1}`} (${path})`,
      build(body, { layer: make() as RequestHandler }) as unknown as Handler,
    ]),
    [`${label}: no ETag at all`, build(body, { etag: false }) as unknown as Handler],
    [
      `${label}: an empty layer + Express weak ETag`,
      build(body, { layer: passThrough() }) as unknown as Handler,
    ],
    [
      `${label}: a layer making res.json/send/end own properties + Express weak ETag`,
      build(body, { layer: threeOwnMethods() }) as unknown as Handler,
    ],
  );
}

const wanted = process.argv.slice(2);
const chosen = variants.filter(
  ([name]) =>
    wanted.length === 0 ||
    (process.env.ABLATE_PROFILE !== '1' && name.includes('(baseline)')) ||
    wanted.some((part) => name.includes(part)),
);

const extra = (process.env.ABLATE_HEADERS ?? '')
  .split('\n')
  .filter((line) => line.length > 0)
  .map((line) => `${line}\r\n`)
  .join('');
const request = `GET /v1/resource HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nAccept: application/json\r\n${extra}\r\n`;

const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 12);
const MS = Number(process.env.ABLATE_MS ?? 200);
const END_WITH_GC = process.env.ABLATE_GC === '1';
const clients = chosen.map(([, handler]) => connect(handler, request));
const BLOCK = Number(process.env.ABLATE_BLOCK ?? 20);
const measured = clients.map((): number[] => []);
/** CPU µs and requests of each variant over all measured rounds. */
const totals = clients.map(() => ({ cpu: 0, requests: 0 }));
const order = clients.map((_, index) => index);
for (let round = 0; round < ROUNDS; round++) {
  // Every variant goes first in turn, so that none always follows the same one.
  const turn = round % order.length;
  for (const index of [...order.slice(turn), ...order.slice(0, turn)]) {
    const client = clients[index]!;
    const before = process.cpuUsage();
    let requests = 0;
    const start = performance.now();
    // Bounded: MS milliseconds of requests per variant and round.
    while (performance.now() - start < MS) {
      for (let count = 0; count < BLOCK; count++) await client.send();
      requests += BLOCK;
    }
    // ABLATE_GC=1 (with --expose-gc) ends each round with a full collection, counted in it: a
    // variant pays for the old-generation garbage it made (hidden classes of its own per
    // response), not whichever variant runs when the collector gets to it. It also adds the
    // marking of the whole heap to every round, which dilutes the ratios.
    if (END_WITH_GC) globalThis.gc?.();
    const used = process.cpuUsage(before);
    if (round >= 2) {
      measured[index]!.push((used.user + used.system) / requests);
      totals[index]!.cpu += used.user + used.system;
      totals[index]!.requests += requests;
    }
  }
}
const samples = new Map<string, number[]>(chosen.map(([name], index) => [name, measured[index]!]));
const overall = new Map<string, number>(
  chosen.map(([name], index) => [name, totals[index]!.cpu / totals[index]!.requests]),
);

/** The first ABLATE_COMPARE copy: the column "ABLATE_COMPARE / variant" is against it. */
const COMPARED = `: conditionalRequests() of ABLATE_COMPARE (${comparedPaths[0]})`;
console.log(
  `| variant | CPU µs per request: median, least | baseline / variant: median of rounds (spread); least / least | baseline / variant: all rounds' CPU over all their requests |${compared.length > 0 ? ' ABLATE_COMPARE / variant |' : ''}`,
);
console.log(`|---|---|---|---|${compared.length > 0 ? '---|' : ''}`);
/** The median of the per-round ratios of `base` over `values`, and their spread. */
function ratio(base: readonly number[] | undefined, values: readonly number[]): string {
  if (base === undefined) return '';
  const ratios = values.map((value, index) => base[index]! / value);
  const least = Math.min(...base) / Math.min(...values);
  return `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)}); ${least.toFixed(3)}`;
}
for (const [name, values] of samples) {
  const label = name.slice(0, name.indexOf(':'));
  const baseline = samples.get(`${label}: Express weak ETag (baseline)`);
  const against = compared.length > 0 ? ` ${ratio(samples.get(label + COMPARED), values)} |` : '';
  const cost = `${median(values).toFixed(1)}, ${Math.min(...values).toFixed(1)}`;
  const all = (overall.get(`${label}: Express weak ETag (baseline)`)! / overall.get(name)!).toFixed(
    3,
  );
  console.log(`| ${name} | ${cost} | ${ratio(baseline, values)} | ${all} |${against}`);
}
