/**
 * The marginal cost of each middleware inside the example's whole stack, measured in process:
 * the list GET of full-stack.bench.ts answered by the full app and by the same app with one
 * layer taken out of its router stack (and by bare Express 5 answering the captured body, and
 * by the stack with ten pass-through layers added: the price of an Express layer, and by the same
 * answer written by hand as one route, the floor), each on an
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
 * ABLATE_ROUNDS (10) and ABLATE_ROUND_MS (250) set the rounds; ABLATE_VARIANTS, ABLATE_BASE and
 * ABLATE_ISOLATE (each variant in a process of its own: the figures to read) are described where
 * they are read.
 */
import { spawnSync } from 'node:child_process';
import { hash, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createServer, type ServerOptions } from 'node:http';
import { fileURLToPath } from 'node:url';
import { listen } from '@resourceful/test-support';
import express, { type Express, type Response } from 'express';
import { createApp } from '../examples/payments-api/src/app.js';
import { messageClassesFor } from '../examples/payments-api/src/message-classes.js';
import { bareExpress, fillPage, PATH, serveExample } from './full-stack.bench.js';
import { median } from './harness.js';
import { connect, cpuPerRequest, type Handler, pairedRatio } from './in-process.js';

const PASS_THROUGH = 10;

interface Layer {
  name: string;
  handle: unknown;
  route?: { path: string; methods: Record<string, boolean>; stack: { handle: unknown }[] };
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

/** The layers of the example's `v1` router (inside the versioned router). */
function v1StackOf(app: Express): Layer[] {
  const stack = (app as unknown as { router: Stacked }).router.stack;
  const versions = stack.find((entry) => entry.name === 'versionedRouterMiddleware')!.handle as {
    [key: symbol]: { handler: Stacked }[];
  };
  const symbol = Object.getOwnPropertySymbols(versions)[0]!;
  return versions[symbol]![0]!.handler.stack;
}

/**
 * The example app, its page filled, then the named layers removed (from the app's stack and
 * from v1's).
 */
async function without(layers: readonly string[]): Promise<Express> {
  const app = createApp();
  // Filled as the full stack is, through a server with the app's classes, so that a variant
  // differs from it only by the layers taken out, not by how its prototypes were first used.
  const running = await listen(serveExample(app));
  await fillPage(running);
  await running.close();
  const stack = (app as unknown as { router: Stacked }).router.stack;
  for (const list of [stack, v1StackOf(app)]) {
    for (let index = list.length - 1; index >= 0; index--) {
      // Layers mounted at a path (the GraphQL endpoint's own body parser and idempotency) stay:
      // they are not on this request's path.
      if (layers.includes(list[index]!.name) && list[index]!.slash) {
        list.splice(index, 1);
      }
    }
  }
  return app;
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
// responses made with the app's prototypes), except the one named "on Node's classes". Each is
// made only when it is measured: every app made in a process gives the code they share (Express,
// the router, Node's http) more prototypes to see (see ABLATE_ISOLATE).
const NODE_CLASSES: ServerOptions = {};
const asHandler = (app: Express) => app as unknown as Handler;
/** The captured body as collection-pagination sends a page, without a tag: no page is built. */
function sendCaptured(res: Response): void {
  const text = JSON.stringify(body);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
/**
 * The floor: what the stack answers, written by hand as one route with nothing shared or
 * configurable, the cheapest correct form of the spec's work for this GET (a request id, `Date`
 * as RFC 3339, `page`/`page_size` read and checked, the page sliced from stored records, each
 * summarised with its number masked and a self link, the page's links, `Vary`, a strong SHA-256
 * tag and `If-None-Match`). What the stack costs above it is the price of the library; what it
 * costs above the goal's baseline (bare Express, `res.json`, weak tag) is the price of the spec.
 */
function handWrittenFloor(): Express {
  const captured = body as { items: Record<string, unknown>[]; total_items: number };
  // Records as a store holds them: no links, the number unmasked.
  const records = captured.items.map(({ links: _links, number, ...fields }) => ({
    ...fields,
    number: String(number).replace(/x/g, '4'),
  })) as unknown as StoredCard[];
  const app = express();
  app.disable('x-powered-by');
  app.disable('etag');
  app.get('/v1/vault/credit-cards', function listCards(req, res) {
    res.setHeader('X-Request-Id', randomUUID());
    res.setHeader('Date', new Date().toISOString());
    const pageSize = pageParameter(req.query.page_size, 20);
    const page = pageParameter(req.query.page, 1);
    if (pageSize === undefined || page === undefined || pageSize > 100) {
      res.status(400).end();
      return;
    }
    const base = `${req.protocol}://${req.get('host')}/v1/vault/credit-cards`;
    const items = [];
    for (const card of records.slice((page - 1) * pageSize, page * pageSize)) {
      items.push({
        id: card.id,
        state: card.state,
        payer_id: card.payer_id,
        type: card.type,
        number: 'x'.repeat(card.number.length - 4) + card.number.slice(-4),
        expire_month: card.expire_month,
        expire_year: card.expire_year,
        first_name: card.first_name,
        last_name: card.last_name,
        valid_until: card.valid_until,
        create_time: card.create_time,
        update_time: card.update_time,
        links: [{ href: `${base}/${card.id}`, rel: 'self', method: 'GET' }],
      });
    }
    const totalPages = Math.ceil(records.length / pageSize);
    const link = (number: number, rel: string) => ({
      href: `${base}?page=${number}&page_size=${pageSize}`,
      rel,
      method: 'GET',
    });
    const links = [link(page, 'self'), link(1, 'first')];
    if (page > 1) links.push(link(page - 1, 'previous'));
    if (page < totalPages) links.push(link(page + 1, 'next'));
    links.push(link(totalPages, 'last'));
    const text = JSON.stringify({
      items,
      total_items: records.length,
      total_pages: totalPages,
      links,
    });
    const tag = `"${hash('sha256', text, 'base64url')}"`;
    res.setHeader('ETag', tag);
    res.setHeader('Vary', 'Accept, Accept-Charset, Accept-Encoding');
    if (req.headers['if-none-match'] === tag) {
      res.status(304).end();
      return;
    }
    res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(text));
    res.end(text);
  });
  return app;
}
interface StoredCard {
  id: string;
  state: string;
  payer_id: string;
  type: string;
  number: string;
  expire_month: string;
  expire_year: string;
  first_name: string;
  last_name: string;
  valid_until: string;
  create_time: string;
  update_time: string;
}
function pageParameter(value: unknown, otherwise: number): number | undefined {
  if (value === undefined) return otherwise;
  if (typeof value !== 'string' || !/^[1-9][0-9]{0,5}$/.test(value)) return undefined;
  return Number(value);
}
const FULL = 'full stack';
const BARE_WITH_CLASSES = "bare Express 5 served with its app's request and response classes";
interface Variant {
  name: string;
  make: () => Handler | Promise<Handler>;
  options?: ServerOptions;
}
const variants: Variant[] = [
  { name: FULL, make: () => full as unknown as Handler },
  {
    name: 'bare Express 5, res.json of the captured body',
    make: () => bareExpress(body, false) as unknown as Handler,
    options: NODE_CLASSES,
  },
  { name: BARE_WITH_CLASSES, make: () => bareExpress(body, false) as unknown as Handler },
  {
    name: "bare Express 5 served with its app's classes, the captured body sent without an ETag",
    make() {
      const app = express();
      app.disable('x-powered-by');
      app.get('/v1/vault/credit-cards', (_req, res) => sendCaptured(res));
      return app as unknown as Handler;
    },
  },
  {
    name: "hand-written floor on Node's classes",
    make: () => handWrittenFloor() as unknown as Handler,
    options: NODE_CLASSES,
  },
  {
    name: "hand-written floor served with its app's classes",
    make: () => asHandler(handWrittenFloor()),
  },
  {
    name: 'the stack without every layer below',
    make: async () => asHandler(await without(layers)),
  },
  {
    name: 'the stack without every layer below, its list route sending the captured body (no page built)',
    async make() {
      const app = await without(layers);
      const list = v1StackOf(app).find(
        (layer) => layer.route?.path === '/vault/credit-cards' && layer.route.methods.get,
      )!;
      list.route!.stack[0]!.handle = function sendCapturedPage(_req: unknown, res: Response) {
        sendCaptured(res);
      };
      return asHandler(app);
    },
  },
];
for (const layer of layers) {
  variants.push({ name: `without ${layer}`, make: async () => asHandler(await without([layer])) });
}
// The price of one Express layer in this stack: ten that only call next(), after the first.
variants.push({
  name: `full stack + ${PASS_THROUGH} pass-through layers`,
  async make() {
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
    return asHandler(padded);
  },
});
// ABLATE_BASE=<another checkout of this repository, its node_modules linked>: its full stack
// too, so a change is measured against the code before it in the same process and run (served
// with the app's classes when that checkout has them, as its own server does).
const base = process.env.ABLATE_BASE;
if (base !== undefined) {
  variants.push({
    name: `full stack at ${base}`,
    async make() {
      const other = (await import(`${base}/examples/payments-api/src/app.ts`)) as {
        createApp: typeof createApp;
      };
      const app = other.createApp();
      const running = await listen(createServer(app));
      await fillPage(running);
      await running.close();
      return app as unknown as Handler;
    },
    options: existsSync(`${base}/examples/payments-api/src/message-classes.ts`)
      ? undefined
      : NODE_CLASSES,
  });
}
variants.push({
  name: "full stack on Node's classes",
  make: async () => asHandler(await without([])),
  options: NODE_CLASSES,
});
// ABLATE_VARIANTS=full: measure only the variants whose names contain one of the (comma-separated)
// parts, e.g. to profile the full stack alone with --cpu-prof. ABLATE_NAMES: a JSON list of
// exact names (what ABLATE_ISOLATE hands each of its processes).
const only = process.env.ABLATE_VARIANTS?.split(',');
const exact =
  process.env.ABLATE_NAMES === undefined
    ? undefined
    : (JSON.parse(process.env.ABLATE_NAMES) as string[]);
const isolated = process.env.ABLATE_ISOLATE === '1';
function wantedVariant(name: string): boolean {
  if (exact !== undefined) return exact.includes(name);
  // Isolated, every process measures the two references beside its variant.
  if (isolated && (name === FULL || name === BARE_WITH_CLASSES)) return true;
  return only === undefined || only.some((part) => name.includes(part));
}
for (let index = variants.length - 1; index >= 0; index--) {
  if (!wantedVariant(variants[index]!.name)) variants.splice(index, 1);
}

const REQUEST = `GET ${PATH} HTTP/1.1\r\nHost: 127.0.0.1:3000\r\nAccept: application/json\r\n\r\n`;

const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 10);
const ROUND_MS = Number(process.env.ABLATE_ROUND_MS ?? 250);
const RESULT = 'ABLATE_RESULT ';

/** CPU µs per request of each variant in this process, per round. */
async function measure(measuredVariants: readonly Variant[]): Promise<Map<string, number[]>> {
  const clients = [];
  for (const { make, options } of measuredVariants) {
    const handler = await make();
    clients.push(
      connect(
        handler,
        REQUEST,
        options ?? messageClassesFor(handler as unknown as Parameters<typeof messageClassesFor>[0]),
      ),
    );
  }
  const measured = await cpuPerRequest(clients, ROUNDS, ROUND_MS);
  return new Map(measuredVariants.map(({ name }, index) => [name, measured[index]!]));
}

interface Row {
  name: string;
  cost: number;
  /** The variant's CPU over the full stack's, paired by round in the same process. */
  ratio: number;
  /** The full stack's CPU in the same process. */
  fullCost: number;
}

function rowsOf(samples: Map<string, number[]>): Row[] {
  const reference = samples.get(FULL) ?? samples.values().next().value!;
  return [...samples].map(([name, values]) => ({
    name,
    cost: median(values),
    // Paired per round (both sides measured at most a few seconds apart, in the same load): the
    // median of the rounds' ratios moves less than the ratio of the medians when the load drifts.
    ratio: pairedRatio(values, reference),
    fullCost: median(reference),
  }));
}

// ABLATE_ISOLATE=1: each variant in a process of its own, beside the full stack and bare Express
// served with its app's classes (the two references). In one process, every app's requests make
// the code all of them run (Express, the router, Node's http) see more hidden classes, which
// makes each of them slower than it is alone: the full stack measured 100–109 µs among the 17
// variants and 68–73 µs beside bare Express alone, in the same minutes.
// ABLATE_COUNT=<n> with one variant named in ABLATE_NAMES: n requests to it and nothing else, for
// an instruction count that the machine's load does not move (run it at two counts under
// `valgrind --tool=cachegrind`; the difference divided by the difference of the counts is the
// cost of one request; see bench/findings/full-stack.md, the third pass).
const count = process.env.ABLATE_COUNT === undefined ? undefined : Number(process.env.ABLATE_COUNT);
if (count !== undefined) {
  if (variants.length !== 1) throw new Error('ablate-example: ABLATE_COUNT needs one variant');
  const { make, options } = variants[0]!;
  const handler = await make();
  const client = connect(
    handler,
    REQUEST,
    options ?? messageClassesFor(handler as unknown as Parameters<typeof messageClassesFor>[0]),
  );
  for (let sent = 0; sent < count; sent++) await client.send();
} else if (isolated) {
  const rows: Row[] = [];
  const groups = [
    [FULL, BARE_WITH_CLASSES],
    ...variants
      .filter(({ name }) => name !== FULL && name !== BARE_WITH_CLASSES)
      .map(({ name }) => [FULL, BARE_WITH_CLASSES, name]),
  ];
  for (const names of groups) {
    const child = spawnSync(
      process.execPath,
      [...process.execArgv, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
      {
        env: { ...process.env, ABLATE_ISOLATE: '', ABLATE_NAMES: JSON.stringify(names) },
        encoding: 'utf8',
        timeout: 300_000,
      },
    );
    const line = child.stdout.split('\n').find((text) => text.startsWith(RESULT));
    if (line === undefined) throw new Error(`ablate-example: ${names.at(-1)}: ${child.stderr}`);
    const measured = JSON.parse(line.slice(RESULT.length)) as Row[];
    rows.push(
      ...(names.length === 2 ? measured : measured.filter(({ name }) => name === names[2])),
    );
  }
  console.log(
    '| variant (each in a process of its own with the full stack) | CPU µs per request (median) | the full stack in the same process, µs | CPU / full stack (median of the rounds) |',
  );
  console.log('|---|---|---|---|');
  for (const { name, cost, fullCost, ratio } of rows) {
    console.log(`| ${name} | ${cost.toFixed(1)} | ${fullCost.toFixed(1)} | ${ratio.toFixed(3)} |`);
  }
} else {
  const rows = rowsOf(await measure(variants));
  if (process.env.ABLATE_NAMES !== undefined) {
    console.log(RESULT + JSON.stringify(rows));
  } else {
    console.log(
      '| variant | CPU µs per request (median) | saved against the full stack | CPU / full stack (median of the rounds) |',
    );
    console.log('|---|---|---|---|');
    for (const { name, cost, fullCost, ratio } of rows) {
      console.log(
        `| ${name} | ${cost.toFixed(1)} | ${((100 * (fullCost - cost)) / fullCost).toFixed(1)} % | ${ratio.toFixed(3)} |`,
      );
    }
  }
}
