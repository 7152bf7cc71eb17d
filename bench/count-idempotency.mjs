/**
 * Instructions per request of the variants of ablate-idempotency.ts, counted by valgrind
 * (`--tool=cachegrind --cache-sim=no`), not timed: the count is the same whatever else runs on
 * the machine, so a change of a few percent shows where CPU-time rounds on a shared machine
 * spread by ±30 %. Each variant answers `COUNT_FROM` and then `COUNT_TO` requests in two
 * processes (`node --predictable`: the compiler and the garbage collector on the main thread,
 * so their work is counted too); the difference of the two counts over the difference of the
 * requests is the cost of one warm request, start-up and warm-up left out. A diagnostic, not a
 * benchmark (run-all.ts skips it); instructions are not time (a cache miss counts one), so the
 * figures to report stay the CPU-time ratios. Needs valgrind, and the packages built:
 *
 *   node count-idempotency.mjs [variant …]     # default: without memory
 *   COUNT_FROM=4000 COUNT_TO=10000 ABLATE_OLD=<old dist/index.js> node count-idempotency.mjs without memory "memory (old)"
 *   COUNT_NODE=~/.cache/resourceful-node/24.21.0/bin/node node count-idempotency.mjs without memory
 *
 * `COUNT_NODE`: the node binary counted (default `node` on the PATH), for the other Node
 * versions CI runs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const from = Number(process.env.COUNT_FROM ?? 4000);
const to = Number(process.env.COUNT_TO ?? 10000);
const nodeBinary = process.env.COUNT_NODE ?? 'node';
const variants = process.argv.length > 2 ? process.argv.slice(2) : ['without', 'memory'];

// One bundle, so that the counted processes load no TypeScript loader (tsx starts a worker).
const work = mkdtempSync(join(tmpdir(), 'count-idempotency-'));
const bundle = join(work, 'ablate.mjs');
const esbuildDir = join(here, '..', 'node_modules', '.pnpm');
const esbuildPackage = readdirSync(esbuildDir).find((name) => /^esbuild@/.test(name));
if (esbuildPackage === undefined) throw new Error('esbuild not found: run pnpm install first');
const esbuild = createRequire(join(esbuildDir, esbuildPackage, 'node_modules', 'esbuild', '/'))(
  join(esbuildDir, esbuildPackage, 'node_modules', 'esbuild'),
);
await esbuild.build({
  entryPoints: [join(here, 'ablate-idempotency.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  outfile: bundle,
  logLevel: 'warning',
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
  },
});

function instructions(variant, requests) {
  const run = spawnSync(
    'valgrind',
    [
      '--tool=cachegrind',
      '--cache-sim=no',
      '--cachegrind-out-file=/dev/null',
      nodeBinary,
      '--predictable',
      '--expose-gc',
      bundle,
    ],
    {
      env: {
        ...process.env,
        PROFILE: variant,
        PROFILE_REQUESTS: String(requests),
        ABLATE_COMMAND_TIMEOUT_MS: '60000',
      },
      encoding: 'utf8',
      timeout: 300_000,
    },
  );
  const match = /I\s+refs:\s+([\d,]+)/.exec(run.stderr ?? '');
  if (run.status !== 0 || match === null || !run.stdout.includes(`${requests} requests`)) {
    throw new Error(`${variant} × ${requests} failed:\n${run.stdout}\n${run.stderr}`);
  }
  return Number(match[1].replaceAll(',', ''));
}

try {
  execFileSync('valgrind', ['--version']);
  const perRequest = new Map();
  for (const variant of variants) {
    const cost = (instructions(variant, to) - instructions(variant, from)) / (to - from);
    perRequest.set(variant, cost);
    console.log(`${variant}: ${Math.round(cost)} instructions per request`);
  }
  const base = perRequest.get(variants[0]);
  console.log(`\n| variant | instructions per request | ${variants[0]} / variant |`);
  console.log('|---|---|---|');
  for (const [variant, cost] of perRequest) {
    console.log(`| ${variant} | ${Math.round(cost)} | ${(base / cost).toFixed(3)} |`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
