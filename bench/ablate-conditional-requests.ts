/**
 * What `conditionalRequests()` costs on a `res.json` route, measured in process: the route of
 * middleware-alone.bench.ts (a 20-card page, about 9 KB) and of json-patch-update.bench.ts (one
 * small webhook, about 400 bytes), each answered by Express with its default weak ETag (the
 * baseline), with `conditionalRequests()` (the candidate), and by reference variants that say
 * where the difference goes. Requests are handed to the apps directly on an unconnected socket
 * (no load generator, no network: the socket writes are not measured), in alternating rounds;
 * CPU time per request (process.cpuUsage), median over the measured rounds, and the median of
 * the per-round ratios baseline / candidate. A diagnostic, not a benchmark (run-all.ts skips
 * it):
 *
 *   node --expose-gc --conditions=source --import tsx ablate-conditional-requests.ts [variant-name-part …]
 *
 * `ABLATE_ROUNDS` (default 12, the first 2 discarded) and `ABLATE_MS` (default 200 per variant
 * and round) bound the run. `ABLATE_PROFILE=1` runs only the named variants, without their
 * baselines (for `node --cpu-prof`). `ABLATE_COMPARE=<path of another copy's src/index.ts>` adds
 * that copy's `conditionalRequests()` as a variant (a change measured against the code before it
 * in one run).
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { conditionalRequests } from '@resourceful/conditional-requests';
import express, { type Express, type RequestHandler } from 'express';
import { median } from './harness.js';
import { cardPage as page } from './middleware-alone.bench.js';

/** The webhook of json-patch-update.bench.ts. */
const hook = {
  id: 'WH-1',
  url: 'https://a.example/hook',
  event_types: Array.from({ length: 10 }, (_, i) => ({ name: `EVENT.${i}` })),
  create_time: new Date().toISOString(),
  update_time: new Date().toISOString(),
};

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

function passThrough(): RequestHandler {
  return function passThroughMiddleware(_req, _res, next) {
    next();
  };
}

/**
 * The floor of any middleware that wraps res.json, res.send and res.end: a layer that makes
 * them own properties of the response (the same functions, so nothing else changes).
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

const compared = process.env.ABLATE_COMPARE
  ? (
      (await import(process.env.ABLATE_COMPARE)) as {
        conditionalRequests: typeof conditionalRequests;
      }
    ).conditionalRequests
  : undefined;

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
    ...(compared === undefined
      ? []
      : ([
          [
            `${label}: conditionalRequests() of ABLATE_COMPARE`,
            build(body, { layer: compared() as RequestHandler }) as unknown as Handler,
          ],
        ] as [string, Handler][])),
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

const socket = new Socket();
function once(handler: Handler): void {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = '/v1/resource';
  req.headers = { host: '127.0.0.1:3000', accept: 'application/json' };
  handler(req, new ServerResponse(req));
}

/** Hands `count` requests to `handler`, 50 at a time, letting pending work settle in between. */
async function serve(handler: Handler, count: number): Promise<void> {
  for (let done = 0; done < count; done += 50) {
    for (let index = 0; index < 50; index++) once(handler);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 12);
const MS = Number(process.env.ABLATE_MS ?? 200);
const samples = new Map<string, number[]>(chosen.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, handler] of round % 2 === 0 ? chosen : [...chosen].reverse()) {
    // With --expose-gc, each variant starts on a collected heap, so its round does not pay for
    // the garbage the previous variant left.
    globalThis.gc?.();
    const before = process.cpuUsage();
    let requests = 0;
    const start = performance.now();
    // Bounded: MS milliseconds of calls per variant and round, yielding so pending work settles.
    while (performance.now() - start < MS) {
      await serve(handler, 50);
      requests += 50;
    }
    const used = process.cpuUsage(before);
    if (round >= 2) samples.get(name)!.push((used.user + used.system) / requests);
  }
}

const COMPARED = ': conditionalRequests() of ABLATE_COMPARE';
// The least of a variant's rounds is the one other processes disturbed least (a contended core
// only ever adds CPU time): on a loaded machine its ratio moves less than the median's.
console.log(
  `| variant | CPU µs per request: median, least | baseline / variant: median of rounds (spread); least / least |${compared ? ' ABLATE_COMPARE / variant |' : ''}`,
);
console.log(`|---|---|---|${compared ? '---|' : ''}`);
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
  const against = compared ? ` ${ratio(samples.get(label + COMPARED), values)} |` : '';
  const cost = `${median(values).toFixed(1)}, ${Math.min(...values).toFixed(1)}`;
  console.log(`| ${name} | ${cost} | ${ratio(baseline, values)} |${against}`);
}
