/**
 * The example service's whole convention stack (`createApp()` of examples/payments-api: request
 * id, Date, URL limit, OPTIONS/405, query headers, content negotiation, JSON body checks, strong
 * ETags, versioned router, Prefer, idempotency, pagination, the error envelope) on its list GET
 * `/v1/vault/credit-cards?page_size=20`, against bare Express 5 answering the same body with
 * `res.json` (and so Express's default weak ETag), in the same run:
 * 1. JSON, no compression asked for (goal #19: ≥ 0.90);
 * 2. `Accept-Encoding: gzip`, against bare Express + `compression` (goal #19: ≥ 0.90);
 * 3. p99 latency at the same offered load, half of what the stack answered flat out in 1
 *    (goal #19: ≤ 1.2× bare Express's p99);
 * 4. reported, no goal: JSON again, against bare Express served as the example serves itself
 *    (its own app's request and response classes). Those classes alone make bare Express about
 *    twice as cheap, so this is the comparison of the stack's work with the least a route can
 *    do; it runs last, after the goal rows, so that its server takes no part in them.
 * Both servers are `http.createServer` in this thread; the load generator is a worker. The
 * example's is made as the example makes its own (`createPaymentsServer`): with request and
 * response classes that have the app's prototypes (message-classes.ts); its limits and its
 * envelopes for Node's own refusals are left out, as they do not take part in a 200 answer.
 */
import { createServer, type Server } from 'node:http';
import { listen, type RunningServer } from '@resourceful/test-support';
import compression from 'compression';
import express, { type Express } from 'express';
import { createApp } from '../examples/payments-api/src/app.js';
import { messageClassesFor } from '../examples/payments-api/src/message-classes.js';
import { type Comparison, compare, type LoadRequest, loadUrl, QUICK } from './harness.js';

export const PATH = '/v1/vault/credit-cards?page_size=20';
const PAGE = 20;

/** The example seeds 3 cards; POST more through the API so the page is full. */
export async function fillPage(server: RunningServer): Promise<void> {
  for (let index = 3; index < PAGE; index++) {
    const answer = await fetch(`${server.url}/v1/vault/credit-cards`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        payer_id: `user${index}`,
        type: 'visa',
        number: `4111111111${String(index).padStart(6, '0')}`,
        expire_month: String((index % 12) + 1),
        expire_year: '2031',
        first_name: 'Ada',
        last_name: 'Lovelace',
      }),
    });
    if (answer.status !== 201) throw new Error(`full-stack bench: seeding got ${answer.status}`);
  }
}

/** The example's app on a server made as `createPaymentsServer` makes it (without its limits). */
export function serveExample(app: Express): Server {
  return createServer(messageClassesFor(app), app);
}

/**
 * Bare Express served as the example serves itself: requests and responses made with its app's
 * prototypes (message-classes.ts), the baseline of the reported comparison.
 */
export function serveBareWithClasses(body: unknown): Server {
  return serveExample(bareExpress(body, false));
}

/** Bare Express 5 answering a captured body the way a hand-written route would. */
export function bareExpress(body: unknown, compressed: boolean): Express {
  const app = express();
  app.disable('x-powered-by');
  if (compressed) app.use(compression());
  app.get('/v1/vault/credit-cards', (_req, res) => {
    res.json(body);
  });
  return app;
}

export async function run(): Promise<Comparison[]> {
  const stack = await listen(serveExample(createApp()));
  await fillPage(stack);
  const captured = (await (await fetch(stack.url + PATH)).json()) as { items: unknown[] };
  if (captured.items.length !== PAGE) throw new Error('full-stack bench: the page is not full');
  const bare = await listen(createServer(bareExpress(captured, false)));
  const bareGzip = await listen(createServer(bareExpress(captured, true)));
  const json: LoadRequest = { path: PATH, headers: { accept: 'application/json' } };
  const gzip: LoadRequest = {
    path: PATH,
    headers: { accept: 'application/json', 'accept-encoding': 'gzip' },
  };
  try {
    const flatOut = await compare(
      'full stack: example list GET (JSON) vs bare Express 5 + res.json of the same body',
      () => loadUrl(bare.url, json),
      () => loadUrl(stack.url, json),
      { goal: { atLeast: 0.9, source: '#19' } },
    );
    const gzipped = await compare(
      'full stack: example list GET, Accept-Encoding: gzip vs bare Express 5 + compression',
      () => loadUrl(bareGzip.url, gzip),
      () => loadUrl(stack.url, gzip),
      { goal: { atLeast: 0.9, source: '#19' } },
    );
    const offered = Math.max(100, Math.round(flatOut.candidate / 2));
    console.log(`offered load for the latency comparison: ${offered} req/s`);
    const latency = await compare(
      `full stack: p99 latency at the same offered load (half the stack's throughput) vs bare Express 5`,
      () => loadUrl(bare.url, json, { overallRate: offered }),
      () => loadUrl(stack.url, json, { overallRate: offered }),
      { goal: { atMost: 1.2, source: '#19' }, goalOn: 'p99Ratio', rounds: QUICK ? 1 : 5 },
    );
    // Made only now: its requests take no part in the goal rows above.
    const bareWithClasses = await listen(serveBareWithClasses(captured));
    try {
      const sameClasses = await compare(
        "full stack: example list GET (JSON) vs bare Express 5 + res.json of the same body, both served with their app's request and response classes (reported, no goal)",
        () => loadUrl(bareWithClasses.url, json),
        () => loadUrl(stack.url, json),
      );
      return [flatOut, gzipped, latency, sameClasses];
    } finally {
      await bareWithClasses.close();
    }
  } finally {
    await Promise.all([stack.close(), bare.close(), bareGzip.close()]);
  }
}
