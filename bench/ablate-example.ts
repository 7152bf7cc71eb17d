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
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { Duplex } from 'node:stream';
import { listen } from '@resourceful/test-support';
import { createApp } from '../examples/payments-api/src/app.js';
import { bareExpress, fillPage, PATH } from './full-stack.bench.js';
import { median } from './harness.js';

interface Layer {
  name: string;
  handle: unknown;
  /** True for a layer mounted at `/` (router 2). */
  slash: boolean;
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
// ABLATE_BASE=<another checkout of this repository, its node_modules linked>: its full stack
// too, so a change is measured against the code before it in the same process and run.
const base = process.env.ABLATE_BASE;
if (base !== undefined) {
  const other = (await import(`${base}/examples/payments-api/src/app.ts`)) as {
    createApp: typeof createApp;
  };
  const app = other.createApp();
  const running = await listen(createServer(app));
  await fillPage(running);
  await running.close();
  variants.push([`full stack at ${base}`, app as unknown as Handler]);
}
// ABLATE_VARIANTS=full: measure only the variants whose names contain one of the (comma-separated)
// parts, e.g. to profile the full stack alone with --cpu-prof.
const only = process.env.ABLATE_VARIANTS?.split(',');
if (only !== undefined) {
  for (let index = variants.length - 1; index >= 0; index--) {
    if (!only.some((part) => variants[index]![0].includes(part))) variants.splice(index, 1);
  }
}

/**
 * One in-memory keep-alive connection per variant: Node's HTTP server parses the request bytes
 * pushed into it and writes the answer back into it (discarded), so the measured work is what a
 * server does for a request on a kept-alive connection, HTTP parsing and the response's writes
 * included, the kernel's part excluded. Requests go one at a time, as a client without
 * pipelining sends them.
 */
class MemoryConnection extends Duplex {
  remoteAddress = '127.0.0.1';
  remotePort = 40000;
  encrypted = false;
  override _read(): void {}
  override _write(_chunk: unknown, _encoding: string, callback: () => void): void {
    callback();
  }
  override _writev(_chunks: unknown, callback: () => void): void {
    callback();
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
}

const REQUEST = Buffer.from(
  `GET ${PATH} HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nAccept: application/json\r\n\r\n`,
);

interface Client {
  /** Sends one request and resolves when its answer has been written. */
  send(): Promise<void>;
}

function connect(handler: Handler): Client {
  const server = createServer(handler);
  let answered: (() => void) | undefined;
  server.on('request', function countAnswer(_req: IncomingMessage, res: ServerResponse) {
    res.on('finish', function answer() {
      if (res.statusCode !== 200) throw new Error(`ablate-example: answered ${res.statusCode}`);
      const done = answered!;
      answered = undefined;
      done();
    });
  });
  const connection = new MemoryConnection();
  server.emit('connection', connection);
  return {
    send() {
      return new Promise((resolve) => {
        answered = resolve;
        connection.push(REQUEST);
      });
    },
  };
}

const clients = new Map(variants.map(([name, handler]) => [name, connect(handler)]));

const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 10);
const samples = new Map<string, number[]>(variants.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name] of round % 2 === 0 ? variants : [...variants].reverse()) {
    const client = clients.get(name)!;
    const before = process.cpuUsage();
    let requests = 0;
    const start = performance.now();
    // Bounded: 250 ms of calls per variant and round, yielding so pending work settles.
    while (performance.now() - start < 250) {
      for (let index = 0; index < 50; index++) await client.send();
      requests += 50;
    }
    const used = process.cpuUsage(before);
    if (round >= 2) samples.get(name)!.push((used.user + used.system) / requests);
  }
}
const fullCost = median(samples.get('full stack') ?? samples.values().next().value!);
console.log('| variant | CPU µs per request (median) | share of the full stack |');
console.log('|---|---|---|');
for (const [name, values] of samples) {
  const cost = median(values);
  console.log(
    `| ${name} | ${cost.toFixed(1)} | ${((100 * (fullCost - cost)) / fullCost).toFixed(1)} % saved |`,
  );
}
