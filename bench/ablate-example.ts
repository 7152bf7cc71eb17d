/**
 * The marginal cost of each middleware inside the example's whole stack, measured in process:
 * the list GET of full-stack.bench.ts answered by the full app and by the same app with one
 * layer taken out of its router stack (and by bare Express 5 answering the captured body), each
 * called directly with a request and a response on an unconnected socket, in alternating rounds,
 * CPU time per request (process.cpuUsage; no load generator, no network, so far less noise than
 * a load run; the socket writes are not measured). A diagnostic, not a benchmark (run-all.ts
 * skips it):
 *
 *   node --conditions=source --import tsx ablate-example.ts [layer-name-part …]
 */
import { createServer, IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { listen } from '@resourceful/test-support';
import { createApp } from '../examples/payments-api/src/app.js';
import { bareExpress, fillPage, PATH } from './full-stack.bench.js';
import { median } from './harness.js';

interface Layer {
  name: string;
  handle: unknown;
}
type Stacked = { stack: Layer[] };
type Handler = (req: IncomingMessage, res: ServerResponse) => void;

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
      // The GraphQL endpoint's own body parser and idempotency stay: they are not on this path.
      if (layers.includes(list[index]!.name) && !(list === stack && index < 12)) {
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
const server = await listen(createServer(full));
await fillPage(server);
const body = await (await fetch(server.url + PATH)).json();
await server.close();

const variants: [string, Handler][] = [
  ['full stack', full as unknown as Handler],
  ['bare Express 5, res.json of the captured body', bareExpress(body, false) as unknown as Handler],
  ['the stack without every layer below', await without(layers)],
];
for (const layer of layers) variants.push([`without ${layer}`, await without([layer])]);

const socket = new Socket();
function once(handler: Handler): void {
  const req = new IncomingMessage(socket);
  req.method = 'GET';
  req.url = PATH;
  req.headers = { host: '127.0.0.1:3000', accept: 'application/json' };
  handler(req, new ServerResponse(req));
}

const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 10);
const samples = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, handler] of round % 2 === 0 ? variants : [...variants].reverse()) {
    const before = process.cpuUsage();
    let requests = 0;
    const start = performance.now();
    // Bounded: 250 ms of calls per variant and round, yielding so pending work settles.
    while (performance.now() - start < 250) {
      for (let index = 0; index < 50; index++) once(handler);
      requests += 50;
      await new Promise((resolve) => setImmediate(resolve));
    }
    const used = process.cpuUsage(before);
    if (round >= 2) samples.get(name)!.push((used.user + used.system) / requests);
  }
}
const fullCost = median(samples.get('full stack')!);
console.log('| variant | CPU µs per request (median) | share of the full stack |');
console.log('|---|---|---|');
for (const [name, values] of samples) {
  const cost = median(values);
  console.log(
    `| ${name} | ${cost.toFixed(1)} | ${((100 * (fullCost - cost)) / fullCost).toFixed(1)} % saved |`,
  );
}
