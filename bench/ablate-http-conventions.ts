/**
 * What each http-conventions middleware costs on http-conventions.bench.ts's GET among 30
 * routes, measured in process: the app with a variant of the middleware against the same app
 * without it, each called directly with a request and a response on an unconnected socket, in
 * alternating rounds, CPU time per request (process.cpuUsage; no load generator, no HTTP
 * parsing, no socket writes, so the ratios are lower than a load run's, where that work is the
 * same on both sides).
 *
 * Each pair runs in a child process of its own holding exactly those two apps: Express gives
 * every app its own request and response prototypes, so one process holding many apps makes
 * every property access on `req` and `res` polymorphic, and adding a property to them (the
 * request id, the query-header records, the Date hook) megamorphic, a cost a server with one
 * app does not pay. A diagnostic, not a benchmark (run-all.ts skips it):
 *
 *   node --conditions=source --import tsx ablate-http-conventions.ts [variant-name-part …]
 *   ABLATE_PROFILE="all five" node --cpu-prof … ablate-http-conventions.ts   # one variant, 10 s
 */
import { execFileSync } from 'node:child_process';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import {
  allowedMethods,
  httpConventions,
  limitUrlLength,
  queryHeaders,
  requestId,
  responseDate,
} from '@resourceful/http-conventions';
import express from 'express';
import { median } from './harness.js';
import { routes } from './http-conventions.bench.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Middleware = express.RequestHandler;

const HELP = 'https://api.example.com/docs';

function appWith(middleware: readonly Middleware[]): Handler {
  const app = express();
  for (const layer of middleware) app.use(layer);
  routes(app);
  return app as unknown as Handler;
}

const parts: [string, () => Middleware][] = [
  ['requestId', () => requestId() as Middleware],
  ['responseDate', () => responseDate() as Middleware],
  ['limitUrlLength', () => limitUrlLength() as Middleware],
  ['allowedMethods', () => allowedMethods({ help: HELP }) as Middleware],
  ['queryHeaders', () => queryHeaders() as Middleware],
];

const variants: [string, () => Handler][] = [
  ['all five', () => appWith(parts.map(([, make]) => make()))],
  [
    'httpConventions (one layer)',
    () => appWith([httpConventions({ allowedMethods: { help: HELP } }) as Middleware]),
  ],
  ...parts.map(([name, make]): [string, () => Handler] => [
    `${name} alone`,
    () => appWith([make()]),
  ]),
];

const PATH = process.env.ABLATE_PATH ?? '/v1/things-14/T-1?Prefer=return%3Dminimal';

const socket = new Socket();
function once(handler: Handler): void {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = PATH;
  req.headers = { host: '127.0.0.1:3000', accept: 'application/json' };
  handler(req, new ServerResponse(req));
}

/** Calls `handler` for `ms` milliseconds (bounded), yielding so pending work settles. */
async function spin(handler: Handler, ms: number): Promise<number> {
  const before = process.cpuUsage();
  let requests = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let index = 0; index < 50; index++) once(handler);
    requests += 50;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / requests;
}

/** Bare vs one variant in alternating rounds; prints one JSON line. */
async function pair(name: string): Promise<void> {
  const variant = variants.find(([candidate]) => candidate === name);
  if (variant === undefined) throw new Error(`no variant named ${name}`);
  const sides: Handler[] = [appWith([]), variant[1]()];
  const rounds = Number(process.env.ABLATE_ROUNDS ?? 20);
  const bare: number[] = [];
  const candidate: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? [0, 1] : [1, 0];
    const costs: number[] = [];
    for (const side of order) costs[side] = await spin(sides[side]!, 250);
    // The first two rounds warm up (JIT, inline caches) and are discarded.
    if (round < 2) continue;
    bare.push(costs[0]!);
    candidate.push(costs[1]!);
    ratios.push(costs[0]! / costs[1]!);
  }
  console.log(
    JSON.stringify({ bare: median(bare), candidate: median(candidate), ratio: median(ratios) }),
  );
}

const profiled = process.env.ABLATE_PROFILE;
const pairArgument = process.argv.indexOf('--pair');
if (profiled !== undefined) {
  const variant = 'bare'.includes(profiled)
    ? (['bare', () => appWith([])] as const)
    : variants.find(([name]) => name.includes(profiled));
  if (variant === undefined) throw new Error(`no variant named like ${profiled}`);
  const handler = variant[1]();
  const cost = await spin(handler, 10_000);
  console.log(`${variant[0]}: ${cost.toFixed(2)} µs per request`);
} else if (pairArgument !== -1) {
  await pair(process.argv[pairArgument + 1]!);
} else {
  const wanted = process.argv.slice(2);
  console.log(`path ${PATH}`);
  console.log('| variant | bare µs per request | with it | bare / with it (median of rounds) |');
  console.log('|---|---|---|---|');
  for (const [name] of variants) {
    if (wanted.length > 0 && !wanted.some((part) => name.includes(part))) continue;
    const output = execFileSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), '--pair', name],
      { encoding: 'utf8', env: process.env },
    );
    const { bare, candidate, ratio } = JSON.parse(output.trim().split('\n').at(-1)!);
    console.log(`| ${name} | ${bare.toFixed(2)} | ${candidate.toFixed(2)} | ${ratio.toFixed(3)} |`);
  }
}
