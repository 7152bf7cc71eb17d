/**
 * The marginal cost of each middleware inside the example's whole stack: the list GET of
 * full-stack.bench.ts against the same app with one layer taken out of its router stack, in
 * alternating rounds (ratio = full stack / stack without the layer; 0.95 means the layer costs
 * 5 % of throughput there). A diagnostic, not a benchmark (run-all.ts skips it):
 *
 *   node --conditions=source --import tsx ablate-example.ts [layer-name-part …]
 */
import { createServer } from 'node:http';
import { listen } from '@resourceful/test-support';
import { createApp } from '../examples/payments-api/src/app.js';
import { fillPage, PATH } from './full-stack.bench.js';
import { compare, loadUrl } from './harness.js';

interface Layer {
  name: string;
  handle: unknown;
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
  'conditionalRequestsMiddleware',
];
const V1_LAYERS = ['preferHeaderMiddleware', 'serviceRequestIdempotencyMiddleware'];

/** The example app with the named layer removed (from the app's stack or from v1's). */
function without(layer: string) {
  const app = createApp();
  const stack = (app as unknown as { router: Stacked }).router.stack;
  const versions = stack.find((entry) => entry.name === 'versionedRouterMiddleware')!.handle as {
    [key: symbol]: { handler: Stacked }[];
  };
  const symbol = Object.getOwnPropertySymbols(versions)[0]!;
  const v1 = versions[symbol]![0]!.handler.stack;
  for (const list of [stack, v1]) {
    const index = list.findIndex((entry) => entry.name === layer);
    if (index !== -1) list.splice(index, 1);
  }
  return app;
}

const wanted = process.argv.slice(2);
const layers = [...APP_LAYERS, ...V1_LAYERS].filter(
  (name) => wanted.length === 0 || wanted.some((part) => name.includes(part)),
);
const full = await listen(createServer(createApp()));
await fillPage(full);
const request = { path: PATH, headers: { accept: 'application/json' } };
for (const layer of layers) {
  const reduced = await listen(createServer(without(layer)));
  await fillPage(reduced);
  try {
    await compare(
      `full stack vs the stack without ${layer}`,
      () => loadUrl(reduced.url, request),
      () => loadUrl(full.url, request),
    );
  } finally {
    await reduced.close();
  }
}
await full.close();
