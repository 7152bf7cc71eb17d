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
 *
 * The "prefer route" variants are middleware-alone.bench.ts's prefer-header comparison (its
 * route, `preferHeader()` on the version router, `Prefer: return=representation`), with an empty
 * router layer beside it: the floor of any middleware mounted there.
 * `ABLATE_COMPARE_PREFER=<path of another copy's dist/index.js>` adds that copy's `preferHeader()`
 * there (comma-separated, one variant each).
 *
 * Instructions per request, which the machine's load does not move: `ABLATE_INSTRUCTIONS=1`
 * bundles this file with esbuild (the `@resourceful/*` packages as built, or their sources with
 * `ABLATE_SOURCE=1`), and runs each named variant alone
 * under `valgrind --tool=cachegrind --cache-sim=no node --predictable` at `COUNT_FROM` (default
 * 1500) and `COUNT_TO` (default 4500) requests (`ABLATE_COUNT=<n>`: n requests to the one named
 * variant and nothing else); the difference over the difference of the requests is the cost of
 * one warm request (bench/findings/full-stack.md, the third pass). Needs valgrind:
 *
 *   ABLATE_INSTRUCTIONS=1 node --import tsx ablate-conditional-requests.ts "prefer route"
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { conditionalRequests } from '@resourceful/conditional-requests';
import { preferHeader } from '@resourceful/prefer-header';
import express, { type Express, type RequestHandler } from 'express';
import { median } from './harness.js';
import { connect, type Handler } from './in-process.js';
import { build as buildCardsApp, cardPage as page } from './middleware-alone.bench.js';

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

const extra = (process.env.ABLATE_HEADERS ?? '')
  .split('\n')
  .filter((line) => line.length > 0)
  .map((line) => `${line}\r\n`)
  .join('');
const RESOURCE_REQUEST = `GET /v1/resource HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nAccept: application/json\r\n${extra}\r\n`;
/** middleware-alone.bench.ts's prefer-header request. */
const PREFER_REQUEST = `GET /v1/vault/credit-cards HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nPrefer: return=representation\r\n${extra}\r\n`;

/** Name, app, the request's bytes. */
const variants: [string, Handler, string][] = [];
for (const [label, body] of [
  ['20-card page', page],
  ['small webhook', hook],
] as const) {
  const entries: [string, Express][] = [
    [`${label}: Express weak ETag (baseline)`, build(body, {})],
    [
      `${label}: conditionalRequests() strong ETag`,
      build(body, { layer: conditionalRequests() as RequestHandler }),
    ],
    ...compared.map(([path, make], index): [string, Express] => [
      `${label}: conditionalRequests() of ABLATE_COMPARE${index === 0 ? '' : ` #${index + 1}`} (${path})`,
      build(body, { layer: make() as RequestHandler }),
    ]),
    [`${label}: no ETag at all`, build(body, { etag: false })],
    [`${label}: an empty layer + Express weak ETag`, build(body, { layer: passThrough() })],
    [
      `${label}: a layer making res.json/send/end own properties + Express weak ETag`,
      build(body, { layer: threeOwnMethods() }),
    ],
  ];
  for (const [name, app] of entries) {
    variants.push([name, app as unknown as Handler, RESOURCE_REQUEST]);
  }
}
/** `ABLATE_COMPARE_PREFER`: other copies of prefer-header, comma-separated, one variant each. */
const comparedPreferPaths = (process.env.ABLATE_COMPARE_PREFER ?? '')
  .split(',')
  .filter((path) => path !== '');
const comparedPrefer: [string, typeof preferHeader][] = [];
for (const path of comparedPreferPaths) {
  const module = (await import(path)) as { preferHeader: typeof preferHeader };
  comparedPrefer.push([path, module.preferHeader]);
}
for (const [name, app] of [
  ...comparedPrefer.map(([path, make], index): [string, Express] => [
    `prefer route: preferHeader() of ABLATE_COMPARE_PREFER${index === 0 ? '' : ` #${index + 1}`} (${path})`,
    buildCardsApp({ router: make() as RequestHandler }),
  ]),
  ['prefer route: no middleware (baseline)', buildCardsApp({})],
  [
    'prefer route: preferHeader() on the router',
    buildCardsApp({ router: preferHeader() as RequestHandler }),
  ],
  ['prefer route: an empty layer on the router', buildCardsApp({ router: passThrough() })],
] as const) {
  variants.push([name, app as unknown as Handler, PREFER_REQUEST]);
}

const wanted = process.argv.slice(2);
const counting = process.env.ABLATE_COUNT !== undefined;
const instructions = process.env.ABLATE_INSTRUCTIONS === '1';
/** The part of a variant's name before the colon: its route. */
function labelOf(name: string): string {
  return name.slice(0, name.indexOf(':'));
}
const named = variants.filter(
  ([name]) => wanted.length === 0 || wanted.some((part) => name.includes(part)),
);
const namedLabels = new Set(named.map(([name]) => labelOf(name)));
// Each named variant's route baseline comes along, except for a profile or a count of one.
const chosen = variants.filter(
  (variant) =>
    named.includes(variant) ||
    (process.env.ABLATE_PROFILE !== '1' &&
      !counting &&
      variant[0].endsWith('(baseline)') &&
      namedLabels.has(labelOf(variant[0]))),
);

const here = dirname(fileURLToPath(import.meta.url));

/** What this file uses of esbuild (the workspace's copy, which bench/ does not declare). */
interface Esbuild {
  build(options: Record<string, unknown>): Promise<unknown>;
}

/** Instructions valgrind counts for `requests` requests to `variant` in the bundle, alone. */
function countInstructions(bundle: string, variant: string, requests: number): number {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      `--cachegrind-out-file=${process.env.ABLATE_CACHEGRIND_OUT === undefined ? '/dev/null' : `${process.env.ABLATE_CACHEGRIND_OUT}.${variant.replace(/[^A-Za-z0-9]+/g, '-')}.${requests}`}`,
      process.execPath,
      '--predictable',
      bundle,
      variant,
    ],
    {
      env: { ...process.env, ABLATE_INSTRUCTIONS: '', ABLATE_COUNT: String(requests) },
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  const match = /I\s+refs:\s+([\d,]+)/.exec(run.stderr ?? '');
  if (run.status !== 0 || match === null || !run.stdout.includes(`${requests} requests`)) {
    throw new Error(`${variant} × ${requests} failed:\n${run.stdout}\n${run.stderr}`);
  }
  return Number(match[1]!.replaceAll(',', ''));
}

if (instructions) {
  // One bundle, so that the counted processes load no TypeScript loader (tsx starts a worker).
  const work = mkdtempSync(join(tmpdir(), 'ablate-conditional-requests-'));
  const bundle = join(work, 'ablate.mjs');
  const pnpmDir = join(here, '..', 'node_modules', '.pnpm');
  const esbuildPackage = readdirSync(pnpmDir).find((name) => /^esbuild@/.test(name));
  if (esbuildPackage === undefined) throw new Error('esbuild not found: run pnpm install first');
  const esbuild = createRequire(join(pnpmDir, esbuildPackage, 'node_modules', 'esbuild', '/'))(
    join(pnpmDir, esbuildPackage, 'node_modules', 'esbuild'),
  ) as Esbuild;
  try {
    await esbuild.build({
      entryPoints: [fileURLToPath(import.meta.url)],
      bundle: true,
      platform: 'node',
      format: 'esm',
      outfile: bundle,
      logLevel: 'warning',
      conditions: process.env.ABLATE_SOURCE === '1' ? ['source'] : [],
      banner: {
        js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
      },
    });
    const from = Number(process.env.COUNT_FROM ?? 1500);
    const to = Number(process.env.COUNT_TO ?? 4500);
    console.log('| variant | instructions per request |');
    console.log('|---|---|');
    for (const [name] of chosen) {
      const cost =
        (countInstructions(bundle, name, to) - countInstructions(bundle, name, from)) / (to - from);
      console.log(`| ${name} | ${(cost / 1000).toFixed(1)}k |`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
} else if (counting) {
  if (chosen.length !== 1) {
    throw new Error(
      `ablate-conditional-requests: ABLATE_COUNT needs one variant, got ${chosen.length}`,
    );
  }
  const [, handler, request] = chosen[0]!;
  const client = connect(handler, request);
  const count = Number(process.env.ABLATE_COUNT);
  for (let sent = 0; sent < count; sent++) await client.send();
  console.log(`${count} requests`);
} else {
  await measureAll();
}

async function measureAll(): Promise<void> {
  const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 12);
  const MS = Number(process.env.ABLATE_MS ?? 200);
  const END_WITH_GC = process.env.ABLATE_GC === '1';
  const clients = chosen.map(([, handler, request]) => connect(handler, request));
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
  const samples = new Map<string, number[]>(
    chosen.map(([name], index) => [name, measured[index]!]),
  );
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
    const label = labelOf(name);
    const baselineName = chosen.find(
      ([other]) => labelOf(other) === label && other.endsWith('(baseline)'),
    )?.[0];
    const baseline = baselineName === undefined ? undefined : samples.get(baselineName);
    const against = compared.length > 0 ? ` ${ratio(samples.get(label + COMPARED), values)} |` : '';
    const cost = `${median(values).toFixed(1)}, ${Math.min(...values).toFixed(1)}`;
    const all = (overall.get(baselineName ?? name)! / overall.get(name)!).toFixed(3);
    console.log(`| ${name} | ${cost} | ${ratio(baseline, values)} | ${all} |${against}`);
  }
}
