/**
 * What each http-conventions feature costs on http-conventions.bench.ts's GET among 30 routes,
 * measured in process: the bare 30-route app against the same app with a variant, requests
 * sent as bytes through Node's HTTP server on an in-memory keep-alive connection
 * (in-process.ts: HTTP parsing and the response's writes included), alternating rounds, CPU
 * time per request (process.cpuUsage), the median of the per-round ratios and differences.
 *
 * Each pair runs in a child process of its own holding exactly those two apps: Express gives
 * every app its own request and response prototypes, so one process holding many apps makes
 * every property access on `req` and `res` polymorphic, a cost a server with one app does not
 * pay. Each feature is measured alone as `httpConventions()` with the other parts `false`, next
 * to `httpConventions()` with every part `false` (the layer alone) and an empty layer. A
 * diagnostic, not a benchmark (run-all.ts skips it); it loads the package as built unless run
 * with `--conditions=source`:
 *
 *   node --import tsx ablate-http-conventions.ts [variant-name-part …]
 *   ABLATE_BEFORE=<built index.js> node --import tsx ablate-http-conventions.ts httpConventions
 *       # each variant built from that build against the same variant from the current one
 *   ABLATE_BUILD=<built index.js> …   # the variants from that build (against bare)
 *   ABLATE_PROFILE="httpConventions()" node --cpu-prof --import tsx ablate-http-conventions.ts
 *       # one variant (or "bare") for ABLATE_SECONDS (10), to profile
 *   ABLATE_PROFILE="httpConventions()" ABLATE_COUNT=6000 valgrind --tool=cachegrind \
 *     --cache-sim=no --cachegrind-out-file=/dev/null node --predictable --expose-gc <bundle>
 *       # exactly ABLATE_COUNT requests to one variant and nothing else: counted at two counts,
 *       # the difference over the difference of the counts is one request's instructions (the
 *       # script bundled with esbuild first, so that no TypeScript loader runs in the process)
 *   ABLATE_PROFILE="httpConventions()" ABLATE_ALLOCATED=1 node --expose-gc --import tsx \
 *     ablate-http-conventions.ts       # bytes allocated per request by one variant (or "bare")
 *
 * ABLATE_ROUNDS (40), ABLATE_ROUND_MS (100) and ABLATE_PATH (the benchmark's) change the runs.
 * Run with `--expose-gc` (the figures in bench/README.md were), each round starts after a
 * scavenge, which took the noise of the bare app against itself from ±5 µs to ±1 µs.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { getHeapSpaceStatistics } from 'node:v8';
import * as current from '@resourceful/http-conventions';
import express from 'express';
import { median } from './harness.js';
import { routes } from './http-conventions.bench.js';
import { type Client, connect, cpuPerRequest, type Handler } from './in-process.js';

type Conventions = typeof current;
type Middleware = express.RequestHandler;

const HELP = 'https://api.example.com/docs';
const PARTS = [
  'requestId',
  'responseDate',
  'limitUrlLength',
  'allowedMethods',
  'queryHeaders',
] as const;
type Part = (typeof PARTS)[number];

function appWith(middleware: readonly Middleware[]): Handler {
  const app = express();
  for (const layer of middleware) app.use(layer);
  routes(app);
  return app as unknown as Handler;
}

/** `httpConventions()` with only `on` switched on. */
function only(m: Conventions, on: readonly Part[]): Middleware {
  const options: Record<string, unknown> = {};
  for (const part of PARTS) {
    if (!on.includes(part)) options[part] = false;
    else if (part === 'allowedMethods') options[part] = { help: HELP };
  }
  return m.httpConventions(options) as Middleware;
}

function eachOf(m: Conventions): Record<Part, () => Middleware> {
  return {
    requestId: () => m.requestId() as Middleware,
    responseDate: () => m.responseDate() as Middleware,
    limitUrlLength: () => m.limitUrlLength() as Middleware,
    allowedMethods: () => m.allowedMethods({ help: HELP }) as Middleware,
    queryHeaders: () => m.queryHeaders() as Middleware,
  };
}

const variants: [string, (m: Conventions) => Handler][] = [
  ['the bare app again (the noise)', () => appWith([])],
  ['httpConventions()', (m) => appWith([only(m, PARTS)])],
  ['the five mounted one by one', (m) => appWith(PARTS.map((part) => eachOf(m)[part]()))],
  [
    'an empty layer',
    () =>
      appWith([
        function passOn(_req, _res, next) {
          next();
        },
      ]),
  ],
  ['httpConventions() with every part off', (m) => appWith([only(m, [])])],
  ...PARTS.map((part): [string, (m: Conventions) => Handler] => [
    `httpConventions() with ${part} only`,
    (m) => appWith([only(m, [part])]),
  ]),
  ...PARTS.map((part): [string, (m: Conventions) => Handler] => [
    `httpConventions() without ${part}`,
    (m) =>
      appWith([
        only(
          m,
          PARTS.filter((other) => other !== part),
        ),
      ]),
  ]),
  ...PARTS.map((part): [string, (m: Conventions) => Handler] => [
    `${part}() alone`,
    (m) => appWith([eachOf(m)[part]()]),
  ]),
];

const PATH = process.env.ABLATE_PATH ?? '/v1/things-14/T-1?Prefer=return%3Dminimal';
const REQUEST = `GET ${PATH} HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nAccept: application/json\r\n\r\n`;

async function build(file: string | undefined): Promise<Conventions | undefined> {
  if (file === undefined) return undefined;
  return (await import(pathToFileURL(file).href)) as Conventions;
}

/** Bare (or the variant from ABLATE_BEFORE's build) vs the variant; prints one JSON line. */
async function pair(name: string): Promise<void> {
  const variant = variants.find(([candidate]) => candidate === name);
  if (variant === undefined) throw new Error(`no variant named ${name}`);
  const earlier = await build(process.env.ABLATE_BEFORE);
  const candidateBuild = (await build(process.env.ABLATE_BUILD)) ?? current;
  const baseline = earlier === undefined ? appWith([]) : variant[1](earlier);
  const rounds = Number(process.env.ABLATE_ROUNDS ?? 40);
  const roundMs = Number(process.env.ABLATE_ROUND_MS ?? 100);
  const [base, candidate] = await cpuPerRound(
    [connect(baseline, REQUEST), connect(variant[1](candidateBuild), REQUEST)],
    rounds,
    roundMs,
  );
  console.log(
    JSON.stringify({
      baseline: median(base!),
      candidate: median(candidate!),
      ratio: median(base!.map((value, round) => value / candidate![round]!)),
      difference: median(candidate!.map((value, round) => value - base![round]!)),
    }),
  );
}

const gc = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
/** A scavenge only: a full collection leaves sweeping to other threads, counted in the round. */
const collectGarbage = gc === undefined ? undefined : () => gc({ type: 'minor' });

/**
 * CPU µs per request of each client in alternating rounds (the first two discarded), as
 * in-process.ts's `cpuPerRequest`; run with `--expose-gc`, the heap is collected before each
 * side's round, outside the time measured, so a round pays for the garbage of its own requests
 * and not for the other side's.
 */
async function cpuPerRound(
  clients: readonly Client[],
  rounds: number,
  roundMs: number,
): Promise<number[][]> {
  const samples = clients.map((): number[] => []);
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    for (const index of order) {
      collectGarbage?.();
      const before = process.cpuUsage();
      let requests = 0;
      const start = performance.now();
      while (performance.now() - start < roundMs) {
        for (let count = 0; count < 20; count++) await clients[index]!.send();
        requests += 20;
      }
      const used = process.cpuUsage(before);
      if (round >= 2) samples[index]!.push((used.user + used.system) / requests);
    }
  }
  return samples;
}

/** A variant's whole name selects it alone; a part of names, every variant holding it. */
function selects(part: string, name: string): boolean {
  return variants.some(([other]) => other === part) ? name === part : name.includes(part);
}

const profiled = process.env.ABLATE_PROFILE;
const pairArgument = process.argv.indexOf('--pair');
if (profiled !== undefined) {
  const handler =
    profiled === 'bare'
      ? appWith([])
      : variants.find(([name]) => name.includes(profiled))?.[1](current);
  if (handler === undefined) throw new Error(`no variant named like ${profiled}`);
  const count = process.env.ABLATE_COUNT;
  if (process.env.ABLATE_ALLOCATED !== undefined) {
    console.log(`${profiled}: ${await allocatedPerRequest(connect(handler, REQUEST))}`);
    process.exit(0);
  }
  if (count !== undefined) {
    const client = connect(handler, REQUEST);
    // Bounded: exactly `count` requests.
    for (let sent = 0; sent < Number(count); sent++) await client.send();
    console.log(`${profiled}: ${count} requests`);
    process.exit(0);
  }
  const seconds = Number(process.env.ABLATE_SECONDS ?? 10);
  const [cost] = await cpuPerRequest([connect(handler, REQUEST)], seconds * 10 + 2, 100);
  console.log(`${profiled}: ${median(cost!).toFixed(2)} µs per request`);
} else if (pairArgument !== -1) {
  await pair(process.argv[pairArgument + 1]!);
} else {
  const wanted = process.argv.slice(2);
  const against = process.env.ABLATE_BEFORE === undefined ? 'bare' : 'before';
  console.log(`path ${PATH}; load average ${(await loadAverage()).trim()}`);
  console.log(
    `| variant | ${against} µs | with it µs | ${against} / with it | difference µs (medians of the rounds) |`,
  );
  console.log('|---|---|---|---|---|');
  for (const [name] of variants) {
    if (wanted.length > 0 && !wanted.some((part) => selects(part, name))) continue;
    const output = execFileSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--pair', name],
      { encoding: 'utf8', env: process.env },
    );
    const { baseline, candidate, ratio, difference } = JSON.parse(
      output.trim().split('\n').at(-1)!,
    );
    console.log(
      `| ${name} | ${baseline.toFixed(2)} | ${candidate.toFixed(2)} | ${ratio.toFixed(3)} | ${difference >= 0 ? '+' : ''}${difference.toFixed(2)} |`,
    );
  }
}

/**
 * Bytes allocated per request: the growth of V8's new space over 200 requests after a scavenge
 * (far less than the space holds, so no collection runs in between), after 3 000 requests of
 * warm-up; the median of 15 and their range. Needs `--expose-gc`.
 */
async function allocatedPerRequest(client: Client): Promise<string> {
  if (collectGarbage === undefined) throw new Error('ABLATE_ALLOCATED needs --expose-gc');
  const newSpace = () =>
    getHeapSpaceStatistics().find(({ space_name }) => space_name === 'new_space')!.space_used_size;
  // Bounded: 3 000 + 15 × 200 requests.
  for (let sent = 0; sent < 3000; sent++) await client.send();
  const samples: number[] = [];
  for (let round = 0; round < 15; round++) {
    collectGarbage();
    const before = newSpace();
    for (let sent = 0; sent < 200; sent++) await client.send();
    samples.push((newSpace() - before) / 200);
  }
  const bytes = (value: number) => Math.round(value).toString();
  return `${bytes(median(samples))} bytes allocated per request (${bytes(Math.min(...samples))}–${bytes(Math.max(...samples))})`;
}

async function loadAverage(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile('/proc/loadavg', 'utf8').catch(() => 'unknown');
}
