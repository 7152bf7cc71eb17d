/**
 * Runs every `*.bench.ts` in this folder (or those named on the command line) one after another
 * and prints each comparison. A benchmark module exports `run(): Promise<Comparison[]>`.
 */
import { readdirSync } from 'node:fs';
import type { Comparison } from './harness.js';

const wanted = process.argv.slice(2);
const files = readdirSync(new URL('.', import.meta.url))
  .filter((file) => file.endsWith('.bench.ts'))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.includes(name)))
  .sort();

const results: Comparison[] = [];
for (const file of files) {
  console.log(`\n# ${file}`);
  const module = (await import(`./${file}`)) as { run: () => Promise<Comparison[]> };
  results.push(...(await module.run()));
}
console.log('\n# summary (candidate / baseline throughput)');
for (const { name, ratio } of results) console.log(`${ratio.toFixed(3)}  ${name}`);
