/**
 * @module Summarises a `.cpuprofile` (from `node --cpu-prof`): the share of samples that were
 * idle, in garbage collection and in each function (self time), and the total (inclusive) time
 * of the frames whose URL matches an optional filter. Usage:
 *   node summarise-profile.mjs <file.cpuprofile> [top=40] [filter]
 */
import { readFileSync } from 'node:fs';

const [file, topArg = '40', filter] = process.argv.slice(2);
const profile = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);
const counts = new Map();
for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
const total = profile.samples.length;
const short = (url) =>
  url.replace(/^.*\/(node_modules\/\.pnpm\/[^/]+\/node_modules\/|packages\/|examples\/)/, '');
const label = ({ callFrame: f }) =>
  `${f.functionName || '(anonymous)'} ${f.url ? `${short(f.url)}:${f.lineNumber + 1}` : ''}`;
const self = new Map();
const inclusive = new Map();
for (const [id, count] of counts) {
  const name = label(byId.get(id));
  self.set(name, (self.get(name) ?? 0) + count);
  const seen = new Set();
  for (let at = id; at !== undefined; at = parent.get(at)) {
    const key = label(byId.get(at));
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + count);
  }
}
const pct = (n) => `${((100 * n) / total).toFixed(1).padStart(5)} %`;
console.log(`${total} samples`);
console.log('\nself time');
for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(topArg)))
  console.log(`${pct(count)}  ${name}`);
// Self time by where the code lives: a workspace package, an npm package, Node, or native.
const bucketOf = ({ callFrame: f }) => {
  if (!f.url) return f.functionName.startsWith('(') ? f.functionName : '(native)';
  const pkg = /node_modules\/\.pnpm\/[^/]+\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(f.url);
  if (pkg) return `npm ${pkg[1]}`;
  const own = /\/(packages|examples)\/([^/]+)\//.exec(f.url);
  if (own) return `${own[1]}/${own[2]}`;
  return f.url.startsWith('node:') ? 'node internals' : f.url;
};
const buckets = new Map();
for (const [id, count] of counts) {
  const bucket = bucketOf(byId.get(id));
  buckets.set(bucket, (buckets.get(bucket) ?? 0) + count);
}
console.log('\nself time by where the code lives');
for (const [name, count] of [...buckets].sort((a, b) => b[1] - a[1]).slice(0, 25))
  console.log(`${pct(count)}  ${name}`);
if (filter) {
  console.log(`\ninclusive time, frames matching ${filter}`);
  for (const [name, count] of [...inclusive]
    .filter(([name]) => name.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, Number(topArg)))
    console.log(`${pct(count)}  ${name}`);
}
