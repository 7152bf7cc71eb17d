/**
 * The marginal cost of each middleware inside the example's whole stack, measured in process:
 * the list GET of full-stack.bench.ts answered by the full app and by the same app with one
 * layer taken out of its router stack (and by bare Express 5 answering the captured body, and
 * by the stack with ten pass-through layers added: the price of an Express layer), each on an
 * in-memory keep-alive connection (in-process.ts), in alternating rounds, CPU time per request
 * (process.cpuUsage; no load generator, no network, so far less noise than a load run; the
 * kernel's part of the socket writes is not measured). A diagnostic, not a benchmark (run-all.ts
 * skips it):
 *
 *   node --conditions=source --import tsx ablate-example.ts [layer-name-part …]
 *
 * The example's variants are served as the example serves itself (its request and response
 * classes, message-classes.ts); bare Express both as usual and with the same classes.
 *
 * ABLATE_ROUNDS (10) and ABLATE_ROUND_MS (250) set the rounds; ABLATE_VARIANTS and ABLATE_BASE
 * are described where they are read.
 */
import { existsSync } from 'node:fs';
import { createServer, type ServerOptions } from 'node:http';
import { listen } from '@resourceful/test-support';
import express from 'express';
import { createApp } from '../examples/payments-api/src/app.js';
import { messageClassesFor } from '../examples/payments-api/src/message-classes.js';
import { bareExpress, fillPage, PATH, serveExample } from './full-stack.bench.js';
import { median } from './harness.js';
import { connect, cpuPerRequest, type Handler, pairedRatio } from './in-process.js';

const PASS_THROUGH = 10;

interface Layer {
  name: string;
  handle: unknown;
  /** True for a layer mounted at `/` (router 2). */
  slash: boolean;
}
type Stacked = { stack: Layer[] };

const APP_LAYERS = [
  'requestIdMiddleware',
  'responseDateMiddleware',
  'limitUrlLengthMiddleware',
  'allowedMethodsMiddleware',
  'queryHeadersMiddleware',
  'contentNegotiationMiddleware',
  'requireJsonBody',
  'jsonParser',
  'conditionalRequestsMiddleware',
];
const V1_LAYERS = ['preferHeaderMiddleware', 'serviceRequestIdempotencyMiddleware'];

/**
 * The example app, its page filled, then the named layers removed (from the app's stack and
 * from v1's).
 */
async function without(layers: readonly string[]): Promise<Handler> {
  const app = createApp();
  const running = await listen(createServer(app));
  await fillPage(running);
  await running.close();
  const stack = (app as unknown as { router: Stacked }).router.stack;
  const versions = stack.find((entry) => entry.name === 'versionedRouterMiddleware')!.handle as {
    [key: symbol]: { handler: Stacked }[];
  };
  const symbol = Object.getOwnPropertySymbols(versions)[0]!;
  const v1 = versions[symbol]![0]!.handler.stack;
  for (const list of [stack, v1]) {
    for (let index = list.length - 1; index >= 0; index--) {
      // Layers mounted at a path (the GraphQL endpoint's own body parser and idempotency) stay:
      // they are not on this request's path.
      if (layers.includes(list[index]!.name) && list[index]!.slash) {
        list.splice(index, 1);
      }
    }
  }
  return app as unknown as Handler;
}

const wanted = process.argv.slice(2);
const layers = [...APP_LAYERS, ...V1_LAYERS].filter(
  (name) => wanted.length === 0 || wanted.some((part) => name.includes(part)),
);
const full = createApp();
const server = await listen(serveExample(full));
await fillPage(server);
const body = await (await fetch(server.url + PATH)).json();
await server.close();

// Every variant of the example is served as the example serves itself (serveExample: requests and
// responses made with the app's prototypes), except the one named "on Node's classes".
const NODE_CLASSES: ServerOptions = {};
const bare = bareExpress(body, false);
const variants: [string, Handler, ServerOptions?][] = [
  ['full stack', full as unknown as Handler],
  ['bare Express 5, res.json of the captured body', bare as unknown as Handler, NODE_CLASSES],
  [
    "bare Express 5 served with its app's request and response classes",
    bareExpress(body, false) as unknown as Handler,
  ],
  ['the stack without every layer below', await without(layers)],
];
for (const layer of layers) variants.push([`without ${layer}`, await without([layer])]);
// The price of one Express layer in this stack: ten that only call next(), after the first.
{
  const padded = await without([]);
  const stack = (padded as unknown as { router: Stacked }).router.stack;
  const probe = express.Router();
  for (let index = 0; index < PASS_THROUGH; index++) {
    probe.use(function passThrough(_req: unknown, _res: unknown, next: () => void) {
      next();
    });
  }
  const layersOf = (probe as unknown as Stacked).stack;
  stack.splice(1, 0, ...layersOf);
  variants.push([`full stack + ${PASS_THROUGH} pass-through layers`, padded]);
}
// ABLATE_BASE=<another checkout of this repository, its node_modules linked>: its full stack
// too, so a change is measured against the code before it in the same process and run (served
// with the app's classes when that checkout has them, as its own server does).
const base = process.env.ABLATE_BASE;
if (base !== undefined) {
  const other = (await import(`${base}/examples/payments-api/src/app.ts`)) as {
    createApp: typeof createApp;
  };
  const app = other.createApp();
  const running = await listen(createServer(app));
  await fillPage(running);
  await running.close();
  const served = existsSync(`${base}/examples/payments-api/src/message-classes.ts`)
    ? undefined
    : NODE_CLASSES;
  variants.push([`full stack at ${base}`, app as unknown as Handler, served]);
}
{
  const onNodeClasses = await without([]);
  variants.push(["full stack on Node's classes", onNodeClasses, NODE_CLASSES]);
}
// ABLATE_VARIANTS=full: measure only the variants whose names contain one of the (comma-separated)
// parts, e.g. to profile the full stack alone with --cpu-prof.
const only = process.env.ABLATE_VARIANTS?.split(',');
if (only !== undefined) {
  for (let index = variants.length - 1; index >= 0; index--) {
    if (!only.some((part) => variants[index]![0].includes(part))) variants.splice(index, 1);
  }
}

const REQUEST = `GET ${PATH} HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nAccept: application/json\r\n\r\n`;

const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 10);
const ROUND_MS = Number(process.env.ABLATE_ROUND_MS ?? 250);
const measured = await cpuPerRequest(
  variants.map(([, handler, options]) =>
    connect(
      handler,
      REQUEST,
      options ?? messageClassesFor(handler as unknown as Parameters<typeof messageClassesFor>[0]),
    ),
  ),
  ROUNDS,
  ROUND_MS,
);
const samples = new Map(variants.map(([name], index) => [name, measured[index]!]));
const reference = samples.get('full stack') ?? samples.values().next().value!;
const fullCost = median(reference);
// Paired per round (both sides measured minutes apart at most, in the same load): the median of
// the rounds' ratios moves less than the ratio of the medians when the machine's load drifts.
console.log(
  '| variant | CPU µs per request (median) | saved against the full stack | CPU / full stack (median of the rounds) |',
);
console.log('|---|---|---|---|');
for (const [name, values] of samples) {
  const cost = median(values);
  const ratio = pairedRatio(values, reference);
  console.log(
    `| ${name} | ${cost.toFixed(1)} | ${((100 * (fullCost - cost)) / fullCost).toFixed(1)} % | ${ratio.toFixed(3)} |`,
  );
}
