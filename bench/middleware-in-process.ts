/**
 * The comparisons of middleware-alone.bench.ts (versioned router, prefer) and the HTTP one of
 * collection-pagination.bench.ts, measured in process: CPU time per request on an in-memory
 * keep-alive connection (in-process.ts), many short alternating rounds, the median of the
 * rounds' ratios. Far less noise than a load run on a shared machine; a diagnostic, not a
 * benchmark (run-all.ts skips it):
 *
 *   node --conditions=source --import tsx middleware-in-process.ts [name-part …]
 *
 * IN_PROCESS_ROUNDS (40) and IN_PROCESS_ROUND_MS (100) set the rounds.
 */
import { preferHeader } from '@resourceful/prefer-header';
import type { RequestHandler } from 'express';
import { byHand, withPackage } from './collection-pagination.bench.js';
import { median } from './harness.js';
import { connect, cpuPerRequest, type Handler, pairedRatio } from './in-process.js';
import { build } from './middleware-alone.bench.js';

const request = (target: string, headers = '') =>
  `GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:3000\r\n${headers}\r\n`;
const LIST = '/v1/vault/credit-cards';
const PAGE = `${LIST}?page=3&page_size=20`;

const cases: [string, Handler, Handler, string][] = [
  [
    'versioned-router: versionedRouter() vs app.use("/v1", router)',
    build({}) as unknown as Handler,
    build({ versioned: true }) as unknown as Handler,
    request(LIST),
  ],
  [
    'prefer-header: preferHeader() vs none (Prefer: return=representation)',
    build({}) as unknown as Handler,
    build({ router: preferHeader() as RequestHandler }) as unknown as Handler,
    request(LIST, 'Prefer: return=representation\r\n'),
  ],
  [
    'collection-pagination: paginate + memoryDataSource vs the same page by hand (page 3 of 20)',
    byHand() as unknown as Handler,
    withPackage() as unknown as Handler,
    request(PAGE),
  ],
];

const wanted = process.argv.slice(2);
const rounds = Number(process.env.IN_PROCESS_ROUNDS ?? 40);
const roundMs = Number(process.env.IN_PROCESS_ROUND_MS ?? 100);
console.log(
  '| comparison | baseline µs | candidate µs | CPU ratio baseline / candidate (median of the rounds) |',
);
console.log('|---|---|---|---|');
for (const [name, baseline, candidate, bytes] of cases) {
  if (wanted.length > 0 && !wanted.some((part) => name.includes(part))) continue;
  const [base, cand] = await cpuPerRequest(
    [connect(baseline, bytes), connect(candidate, bytes)],
    rounds,
    roundMs,
  );
  console.log(
    `| ${name} | ${median(base!).toFixed(1)} | ${median(cand!).toFixed(1)} | ${(1 / pairedRatio(cand!, base!)).toFixed(3)} |`,
  );
}
