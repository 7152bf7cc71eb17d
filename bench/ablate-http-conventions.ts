/**
 * What each http-conventions middleware costs on http-conventions.bench.ts's GET among 30
 * routes, measured in process: the bare app, the app with all five, and the app with each one
 * alone, each called directly with a request and a response on an unconnected socket, in
 * alternating rounds, CPU time per request (process.cpuUsage; no load generator, no HTTP
 * parsing, no socket writes, so the ratios are lower than a load run's, where that work is the
 * same on both sides). A diagnostic, not a benchmark (run-all.ts skips it):
 *
 *   node --conditions=source --import tsx ablate-http-conventions.ts [variant-name-part …]
 *   ABLATE_PROFILE="all five" node --cpu-prof … ablate-http-conventions.ts   # one variant, 10 s
 */
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import {
  allowedMethods,
  limitUrlLength,
  queryHeaders,
  requestId,
  responseDate,
} from '@resourceful/http-conventions';
import express from 'express';
import { median } from './harness.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;
type Middleware = express.RequestHandler;

/** The 30 routes of http-conventions.bench.ts. */
function routes(app: express.Express): void {
  const v1 = express.Router();
  for (let index = 0; index < 15; index++) {
    v1.get(`/things-${index}`, (_req, res) => res.json({ items: [] }));
    v1.route(`/things-${index}/:id`)
      .get((req, res) => res.json({ id: req.params.id }))
      .delete((_req, res) => res.status(204).end());
  }
  app.use('/v1', v1);
}

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
  ['allowedMethods', () => allowedMethods({ help: 'https://api.example.com/docs' }) as Middleware],
  ['queryHeaders', () => queryHeaders() as Middleware],
];

const PATH = process.env.ABLATE_PATH ?? '/v1/things-14/T-1?Prefer=return%3Dminimal';

const all: [string, Handler][] = [
  ['bare (30 routes)', appWith([])],
  ['all five', appWith(parts.map(([, make]) => make()))],
  ...parts.map(([name, make]): [string, Handler] => [`${name} alone`, appWith([make()])]),
];

const socket = new Socket();
function once(handler: Handler): void {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = PATH;
  req.headers = { host: '127.0.0.1:3000', accept: 'application/json' };
  handler(req, new ServerResponse(req));
}

/** Calls `handler` for `ms` milliseconds (bounded), yielding so pending work settles. */
async function spin(handler: Handler, ms: number): Promise<{ cpu: number; requests: number }> {
  const before = process.cpuUsage();
  let requests = 0;
  const start = performance.now();
  while (performance.now() - start < ms) {
    for (let index = 0; index < 50; index++) once(handler);
    requests += 50;
    await new Promise((resolve) => setImmediate(resolve));
  }
  const used = process.cpuUsage(before);
  return { cpu: used.user + used.system, requests };
}

const profiled = process.env.ABLATE_PROFILE;
if (profiled !== undefined) {
  const variant = all.find(([name]) => name.includes(profiled));
  if (variant === undefined) throw new Error(`no variant named like ${profiled}`);
  const { cpu, requests } = await spin(variant[1], 10_000);
  console.log(`${variant[0]}: ${(cpu / requests).toFixed(2)} µs per request`);
} else {
  const wanted = process.argv.slice(2);
  const variants = all.filter(
    ([name], index) => index === 0 || wanted.length === 0 || wanted.some((w) => name.includes(w)),
  );
  const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 12);
  const samples = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  const ratios = new Map<string, number[]>(variants.map(([name]) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const costs = new Map<string, number>();
    for (const [name, handler] of round % 2 === 0 ? variants : [...variants].reverse()) {
      const { cpu, requests } = await spin(handler, 250);
      costs.set(name, cpu / requests);
    }
    // The first two rounds warm up (JIT, inline caches) and are discarded.
    if (round < 2) continue;
    const bare = costs.get(variants[0]![0])!;
    for (const [name, cost] of costs) {
      samples.get(name)!.push(cost);
      ratios.get(name)!.push(bare / cost);
    }
  }
  console.log('| variant | CPU µs per request (median) | bare / variant (median of rounds) |');
  console.log('|---|---|---|');
  for (const [name, values] of samples) {
    console.log(
      `| ${name} | ${median(values).toFixed(2)} | ${median(ratios.get(name)!).toFixed(3)} |`,
    );
  }
}
