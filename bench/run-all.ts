/**
 * Runs every `*.bench.ts` in this folder (or those named on the command line) one after another
 * and prints each comparison, then a summary table: every ratio with its spread over the rounds,
 * the goal its issue set and whether this run meets it. A benchmark module exports
 * `run(): Promise<Comparison[]>`. `BENCH_QUICK=1` for a smoke run (see harness.ts).
 */
import { readdirSync } from 'node:fs';
import { type Comparison, goalText, QUICK, ROUNDS, SECONDS, verdict } from './harness.js';

const wanted = process.argv.slice(2);
const files = readdirSync(new URL('.', import.meta.url))
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.includes(name)))
  .sort();

console.log(
  `${QUICK ? 'QUICK smoke run (figures mean nothing): ' : ''}${ROUNDS} measured round(s) of ${SECONDS} s per side, after a warm-up; Node ${process.version}`,
);
const results: Comparison[] = [];
for (const file of files) {
  console.log(`\n# ${file}`);
  const module = (await import(`./${file}`)) as { run: () => Promise<Comparison[]> };
  results.push(...(await module.run()).filter((comparison) => !comparison.skipped));
}

const cell = (value: number | undefined) => (value === undefined ? '' : value.toFixed(3));
console.log(
  '\n# summary (ratios are candidate / baseline throughput unless the name says otherwise)\n',
);
console.log(
  "| comparison | ratio | rounds' spread | p99 ratio | CPU-per-request ratio | goal | result |",
);
console.log('|---|---|---|---|---|---|---|');
for (const comparison of results) {
  const spread = comparison.spread
    ? `${cell(comparison.spread[0])}–${cell(comparison.spread[1])}`
    : '';
  console.log(
    `| ${comparison.name} | ${cell(comparison.ratio)} | ${spread} | ${cell(comparison.p99Ratio)} | ${cell(comparison.cpuRatio)} | ${goalText(comparison)} | ${verdict(comparison)} |`,
  );
}
const failed = results.filter((comparison) => verdict(comparison) === 'FAIL').length;
const goals = results.filter((comparison) => comparison.goal !== undefined).length;
console.log(`\n${goals - failed} of ${goals} goals met in this run.`);
