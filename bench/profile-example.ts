/**
 * Loads the example's list GET (the full stack) for a while so a CPU profile can show where the
 * time goes; not a benchmark (run-all.ts skips it: no `.bench.ts`). The server is in this
 * thread, the load generator in a worker, so the main thread's profile is the server's:
 *
 *   node --conditions=source --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof profile-example.ts [gzip] [bare]
 *   node summarise-profile.mjs /tmp/prof/<the larger .cpuprofile>
 */
import { createServer } from 'node:http';
import { listen } from '@resourceful/test-support';
import { createApp } from '../examples/payments-api/src/app.js';
import { bareExpress, fillPage, PATH, serveExample } from './full-stack.bench.js';
import { loadUrl } from './harness.js';

const gzip = process.argv.includes('gzip');
// `bare`: profile the baseline instead (bare Express 5 answering the captured body).
const bare = process.argv.includes('bare');
const seconds = Number(process.env.PROFILE_SECONDS ?? 10);
const stack = await listen(serveExample(createApp()));
await fillPage(stack);
const body = await (await fetch(stack.url + PATH)).json();
const target = bare ? await listen(createServer(bareExpress(body, gzip))) : stack;
const headers: Record<string, string> = { accept: 'application/json' };
if (gzip) headers['accept-encoding'] = 'gzip';
const result = await loadUrl(target.url, { path: PATH, headers }, { duration: seconds });
console.log(result);
await stack.close();
if (target !== stack) await target.close();
