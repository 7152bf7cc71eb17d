/**
 * The cost of `serviceRequestIdempotency()` on the create route of
 * service-request-idempotency.bench.ts, measured in process: requests handed to the app directly
 * (an `IncomingMessage` on an unconnected socket, its JSON body pushed into it), 32 in flight,
 * a fresh Service-Request-Id each, CPU time per request in alternating rounds (`ABLATE_ROUNDS`,
 * 12, the first two discarded; `ABLATE_MS`, 400 per variant and round), median of the per-round
 * ratios. Two CPU figures: the main thread's (`/proc/self/task/<pid>/schedstat`, what the load
 * runs' CPU ratio counts) and the process's (`process.cpuUsage()`, which adds the garbage
 * collector's helper threads). No load generator and no sockets to the client, so far less
 * noise than a load run. A diagnostic, not a benchmark (run-all.ts skips it):
 *
 *   node --expose-gc --import tsx ablate-idempotency.ts [floor] [memory] ["memory (full)"] [redis]  # the built package
 *   node --expose-gc --conditions=source --import tsx ablate-idempotency.ts  # its source
 *   PROFILE=memory node --conditions=source --import tsx --cpu-prof --cpu-prof-dir=/tmp/prof ablate-idempotency.ts
 *
 * `PROFILE_REQUESTS=<n>` answers n requests instead of running for a time: under
 * `valgrind --tool=cachegrind`, two counts' difference in instructions over their difference
 * in requests is the instructions per request, the same whatever else runs on the machine
 * (`count-idempotency.sh`).
 *
 * Without `--conditions=source` the workspace packages are loaded as built (build them first),
 * as users get them: tsx wraps every function expression of a source in a `__name()` call.
 * With `PROFILE=<variant>` only that variant is loaded (`PROFILE_SECONDS`, 8), for a profile.
 * With Redis it also counts the commands redis-server ran per new request (`INFO
 * commandstats`), the round trips the middleware made.
 */
import { hash, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { memoryStore, redisStore } from '@resourceful/service-request-idempotency';
import { findRedisServer, startRedisServer } from '@resourceful/test-support';
import type express from 'express';
import { createClient } from 'redis';
import { median } from './harness.js';
import { createApp } from './service-request-idempotency.bench.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** Resolves a request's promise when its response's real `end` runs. */
const answered = new WeakMap<ServerResponse, (status: number) => void>();

/**
 * The app's handler, its responses given an `end` that reports: a prototype method, so no
 * response gets a property of its own for it, on an object put between the app's `response`
 * and Express's (not on the app's `response` itself, where the middleware puts its shared
 * methods).
 */
function tracked(app: ReturnType<typeof createApp>): Handler {
  const proto = (app as unknown as { response: ServerResponse }).response;
  const end = ServerResponse.prototype.end as (...args: unknown[]) => ServerResponse;
  const reporting = Object.create(Object.getPrototypeOf(proto), {
    end: {
      configurable: true,
      writable: true,
      value: function reportingEnd(this: ServerResponse, ...args: unknown[]) {
        const result = end.apply(this, args);
        answered.get(this)?.(this.statusCode);
        answered.delete(this);
        return result;
      },
    },
  });
  Object.setPrototypeOf(proto, reporting);
  return app as unknown as Handler;
}

const BODY = JSON.stringify({
  merchant_customer_id: 'M-1',
  merchant_id: 'MER-1',
  first_name: 'Ada',
});
const socket = new Socket();

function once(handler: Handler, id: string = randomUUID()): Promise<number> {
  const req = new IncomingMessage(socket);
  req.method = 'POST';
  req.url = '/v1/customers/customers';
  req.headers = {
    host: '127.0.0.1:3000',
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(BODY)),
    'service-request-id': id,
  };
  req.push(BODY);
  req.push(null);
  const res = new ServerResponse(req);
  return new Promise((resolve) => {
    answered.set(res, resolve);
    handler(req, res);
  });
}

/**
 * Requests answered in `ms` (or, with `requests`, that many), `concurrency` in flight; throws
 * on a non-201.
 */
async function drive(
  handler: Handler,
  ms: number,
  concurrency = 32,
  requests = Number.POSITIVE_INFINITY,
): Promise<number> {
  const start = performance.now();
  let answered = 0;
  let started = 0;
  async function lane() {
    while (performance.now() - start < ms && started++ < requests) {
      const status = await once(handler);
      if (status !== 201) throw new Error(`answered ${status}`);
      answered++;
      // Back to the event loop now and then. Without it every request left a
      // `process.nextTick(emitReadable_, req)` pending until the lanes stopped (they chain
      // through promises only), so the heap kept every request and response of the round,
      // 7.6 KB each (a heap snapshot after 3 000 requests), and each scavenge copied them all.
      if (answered % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  }
  await Promise.all(Array.from({ length: concurrency }, lane));
  return answered;
}

/**
 * `ABLATE_OLD=<dir>`: also measure the package's source in `<dir>` (a copy of `src/` from an
 * earlier commit, placed inside the package folder so its imports resolve), or the built file
 * `ABLATE_OLD=<path>.js` (an earlier `dist/index.js`, e.g. in the package's `node_modules/`),
 * as "memory (old)" and "redis (old)": before and after a change in the same process and rounds.
 */
const oldDir = process.env.ABLATE_OLD;
const old = oldDir
  ? ((await import(
      /\.[cm]?[jt]s$/.test(oldDir) ? oldDir : `${oldDir}/index.ts`
    )) as typeof import('@resourceful/service-request-idempotency'))
  : undefined;

const wanted = process.argv.slice(2);
const profile = process.env.PROFILE;
const want = (name: string) =>
  profile === undefined
    ? wanted.length === 0 || wanted.includes(name)
    : [name, `${name} (old)`, `floor (${name})`, name.replace(/\)$/, ', old)')].includes(profile);

type Method = (...args: unknown[]) => unknown;
interface FloorState {
  readonly key: string;
  readonly writeHead: Method;
  readonly write: Method;
  readonly end: Method;
  readonly chunks: Buffer[];
}

/** The few members of a Redis client the Redis floor uses. */
interface FloorRedis {
  sendCommand(args: string[]): Promise<unknown>;
}

/**
 * The floor: what any idempotency middleware must do for a new request, and nothing more: read
 * the id, hash the scoped key and the body's fingerprint (method, URL and body; no canonical key
 * order), take a lock, wrap `writeHead`, `write` and `end` (own properties of the response, the
 * only way to see every body byte; the state in a WeakMap), copy what it writes, and, when the
 * response ends, store its status, two headers and body before the end goes out. On a memory store the lock and the
 * record are Map entries; with `redis`, one `SET NX PX` before the handler and one `SET PX`
 * (the record as JSON, the body base64) that the end waits for: the two round trips. No
 * validation of the id, no query parameter, no principal, no replay, no expiry, no bounds, no
 * command timeout, no error paths. `form`:
 * - `'own'`: the cheapest form of each step that keeps the capture on each response (the
 *   guarantee-safe one): the response's properties made a shared dictionary first (a symbol
 *   added and deleted, as the package's capture does, so that the three own wrappers build no
 *   hidden class per response), and on a memory store the lock keyed by the id itself (a Map
 *   needs no hash): one SHA-256.
 * - `{ sharedOn }` (an app's `response`): the same, but the three methods defined once on that
 *   object instead of on each response (the third pass's capture, reverted: not safe in every
 *   app tree; kept as a reference).
 */
const SHAPE_PROBE = Symbol('floor.shapeProbe');

function floorMiddleware(
  redis?: FloorRedis,
  form?: 'own' | { sharedOn: object },
): express.RequestHandler {
  const sharedOn = typeof form === 'object' ? form.sharedOn : undefined;
  const cheapest = form !== undefined;
  const entries = new Map<string, unknown>();
  const states = new WeakMap<ServerResponse, FloorState>();
  // A copy of every chunk, as any store must keep (the app may reuse a Buffer it wrote).
  function copy(state: FloorState, chunk: unknown) {
    if (typeof chunk === 'string' || chunk instanceof Uint8Array) {
      state.chunks.push(Buffer.from(chunk as string));
    }
  }
  function writeHead(this: ServerResponse, ...args: unknown[]) {
    return states.get(this)!.writeHead.apply(this, args);
  }
  function write(this: ServerResponse, ...args: unknown[]) {
    const state = states.get(this)!;
    copy(state, args[0]);
    return state.write.apply(this, args);
  }
  function end(this: ServerResponse, ...args: unknown[]) {
    const state = states.get(this)!;
    copy(state, args[0]);
    const body = state.chunks.length === 1 ? state.chunks[0]! : Buffer.concat(state.chunks);
    const record = {
      status: this.statusCode,
      headers: {
        location: this.getHeader('location'),
        'content-type': this.getHeader('content-type'),
      },
      body,
    };
    if (redis === undefined) {
      entries.set(state.key, record);
      return state.end.apply(this, args);
    }
    const text = JSON.stringify({ ...record, body: body.toString('base64') });
    redis.sendCommand(['SET', state.key, text, 'PX', '86400000']).then(
      () => state.end.apply(this, args),
      () => state.end.apply(this, args),
    );
    return this;
  }
  // The cheapest capture: the three methods once on the app's response, the state in the WeakMap.
  if (sharedOn !== undefined) {
    const methods = { writeHead, write, end };
    for (const name of ['writeHead', 'write', 'end'] as const) {
      Object.defineProperty(sharedOn, name, {
        configurable: true,
        writable: true,
        value: function sharedMethod(this: ServerResponse, ...args: unknown[]) {
          if (states.has(this)) return methods[name].apply(this, args);
          const below = Object.getPrototypeOf(sharedOn) as Record<typeof name, Method>;
          return below[name].apply(this, args);
        },
      });
    }
  }
  function capture(res: ServerResponse, key: string) {
    const own = res as unknown as Record<'writeHead' | 'write' | 'end', Method>;
    if (sharedOn !== undefined) {
      const proto = Object.getPrototypeOf(sharedOn) as typeof own;
      states.set(res, {
        key,
        writeHead: proto.writeHead,
        write: proto.write,
        end: proto.end,
        chunks: [],
      });
      return;
    }
    states.set(res, { key, writeHead: own.writeHead, write: own.write, end: own.end, chunks: [] });
    if (cheapest) {
      const probed = res as unknown as Record<symbol, unknown>;
      probed[SHAPE_PROBE] = undefined;
      delete probed[SHAPE_PROBE];
    }
    own.writeHead = writeHead;
    own.write = write;
    own.end = end;
  }
  return function floor(req, res, next) {
    const key =
      cheapest && redis === undefined
        ? `\u0000${req.headers['service-request-id']}`
        : `floor:${hash('sha256', `\u0000${req.headers['service-request-id']}`)}`;
    const fingerprint = hash(
      'sha256',
      `${req.method}\n${req.originalUrl}\n${JSON.stringify(req.body)}`,
    );
    const token = randomUUID();
    if (redis === undefined) {
      if (entries.has(key)) throw new Error('the floor replays nothing');
      entries.set(key, { fingerprint, token });
      capture(res, key);
      next();
      return;
    }
    redis
      .sendCommand(['SET', key, `${token} ${fingerprint}`, 'NX', 'PX', '60000'])
      .then((reply) => {
        if (reply === null) throw new Error('the floor replays nothing');
        capture(res, key);
        next();
      }, next);
  };
}

const variants: [string, Handler][] = [['without', tracked(createApp())]];
if (want('noop')) {
  // Any middleware at all: one more layer for the router to match and call.
  const noop: express.RequestHandler = (_req, _res, next) => next();
  variants.push(['noop', tracked(createApp(undefined, undefined, noop))]);
}
if (want('floor'))
  variants.push(['floor', tracked(createApp(undefined, undefined, floorMiddleware()))]);
if (want('floor (shared)')) {
  // The floor's work with the cheapest form of each step: the capture through methods on the
  // app's response (no own property), the lock keyed by the id itself (no hash), one SHA-256.
  const app = createApp(undefined, undefined, (req, res, next) => floorShared(req, res, next));
  const floorShared = floorMiddleware(undefined, {
    sharedOn: (app as unknown as { response: object }).response,
  });
  variants.push(['floor (shared)', tracked(app)]);
}
if (want('floor (own)')) {
  // The same steps with the capture on each response in its cheapest form.
  variants.push([
    'floor (own)',
    tracked(createApp(undefined, undefined, floorMiddleware(undefined, 'own'))),
  ]);
}
/**
 * Stores emptied before each round, as the load bench's memory store is fresh in each round:
 * at 15 µs a request (Node 24) a store of 50 000 entries is full after a few rounds, and a full
 * store is what `memory (full)` measures.
 */
const emptiedEachRound = new Map<string, { clear(): void }>();
/** Stores filled before the rounds: `memory (full)`, a long-running server's default store. */
const filledFirst = new Map<string, number>();
if (want('memory')) {
  const store = memoryStore({ maxEntries: 50_000 });
  variants.push(['memory', tracked(createApp(store))]);
  emptiedEachRound.set('memory', store);
  if (old) {
    const oldStore = old.memoryStore({ maxEntries: 50_000 });
    variants.push(['memory (old)', tracked(createApp(oldStore, old.serviceRequestIdempotency))]);
    emptiedEachRound.set('memory (old)', oldStore);
  }
}
if (want('memory (full)')) {
  // The default store (10 000 entries), full: every new request evicts the oldest response.
  variants.push(['memory (full)', tracked(createApp(memoryStore()))]);
  filledFirst.set('memory (full)', 10_000);
  if (old) {
    const store = old.memoryStore();
    variants.push(['memory (full, old)', tracked(createApp(store, old.serviceRequestIdempotency))]);
    filledFirst.set('memory (full, old)', 10_000);
  }
}
let redis: Awaited<ReturnType<typeof startRedisServer>> | undefined;
let client: ReturnType<typeof createClient> | undefined;
if ((want('redis') || want('floor (redis, own)')) && findRedisServer() !== undefined) {
  redis = await startRedisServer();
  client = createClient({ url: redis.url, disableOfflineQueue: true });
  client.on('error', () => undefined);
  await client.connect();
  // `ABLATE_COMMAND_TIMEOUT_MS`: longer under valgrind (count-idempotency.mjs), where every
  // command takes fifty times as long.
  const commandTimeoutMs = Number(process.env.ABLATE_COMMAND_TIMEOUT_MS ?? 1000);
  const store = redisStore({
    client,
    prefix: 'ablate:',
    commandTimeoutMs,
    onWarning: () => undefined,
  });
  await store.get('warm-up');
  variants.push(['redis', tracked(createApp(store))]);
  if (want('floor') || want('floor (redis)')) {
    variants.push([
      'floor (redis)',
      tracked(createApp(undefined, undefined, floorMiddleware(client))),
    ]);
  }
  if (want('floor (own)') || want('floor (redis, own)')) {
    variants.push([
      'floor (redis, own)',
      tracked(createApp(undefined, undefined, floorMiddleware(client, 'own'))),
    ]);
  }
  if (old) {
    const options = { client, prefix: 'ablate-old:', commandTimeoutMs, onWarning: () => undefined };
    const oldStore = old.redisStore(options);
    await oldStore.get('warm-up');
    variants.push(['redis (old)', tracked(createApp(oldStore, old.serviceRequestIdempotency))]);
  }
}

/**
 * CPU time of the main thread in µs, from /proc/self/task/<pid>/schedstat (nanoseconds): what
 * the load runs' CPU ratio counts (harness.ts reads the same thread's ticks), without the
 * garbage collector's helper threads that `process.cpuUsage()` adds. Undefined off Linux.
 */
function mainThreadMicros(): number | undefined {
  try {
    return (
      Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1000
    );
  } catch {
    return undefined;
  }
}

async function commandCount(): Promise<Map<string, number>> {
  const info = String(await client!.sendCommand(['INFO', 'commandstats']));
  const counts = new Map<string, number>();
  for (const match of info.matchAll(/^cmdstat_(\w+(?:\|\w+)?):calls=(\d+)/gm)) {
    counts.set(match[1]!, Number(match[2]));
  }
  return counts;
}

try {
  for (const [name, handler] of variants) {
    const fill = filledFirst.get(name);
    if (fill !== undefined) await drive(handler, Number.POSITIVE_INFINITY, 32, fill);
  }
  if (profile !== undefined) {
    const handler = variants.find(([name]) => name === profile)?.[1];
    if (handler === undefined) throw new Error(`PROFILE=${profile}: no such variant here`);
    const requests = Number(process.env.PROFILE_REQUESTS ?? Number.POSITIVE_INFINITY);
    const seconds = Number(process.env.PROFILE_SECONDS ?? (requests < Infinity ? 3600 : 8));
    const answered = await drive(handler, seconds * 1000, 32, requests);
    console.log(`${profile}: ${answered} requests`);
  } else {
    if (client !== undefined) {
      const redisHandler = variants.find(([name]) => name === 'redis')![1];
      await drive(redisHandler, 200);
      // Commands the client sent (scripts count once; the commands they run inside are not
      // round trips), per new request and per replay.
      const sent = /^(evalsha|eval|wait|multi|exec)$/;
      async function perRequest(requests: number, id?: string): Promise<string> {
        const before = await commandCount();
        for (let index = 0; index < requests; index++) await once(redisHandler, id);
        const after = await commandCount();
        return [...after]
          .filter(([name]) => sent.test(name))
          .map(
            ([name, calls]) =>
              `${name} ${((calls - (before.get(name) ?? 0)) / requests).toFixed(2)}`,
          )
          .filter((entry) => !entry.endsWith(' 0.00'))
          .join(', ');
      }
      console.log(`redis commands sent per new request: ${await perRequest(1000)}`);
      const id = randomUUID();
      await once(redisHandler, id);
      console.log(`redis commands sent per replay: ${await perRequest(1000, id)}`);
    }
    const ROUNDS = Number(process.env.ABLATE_ROUNDS ?? 12);
    const ROUND_MS = Number(process.env.ABLATE_MS ?? 400);
    // Per variant, per measured round: main thread's CPU µs per request, the process's.
    const thread = new Map<string, number[]>(variants.map(([name]) => [name, []]));
    const whole = new Map<string, number[]>(variants.map(([name]) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, handler] of round % 2 === 0 ? variants : [...variants].reverse()) {
        emptiedEachRound.get(name)?.clear();
        // With --expose-gc, each round starts on a collected heap, so no round pays for the
        // garbage the previous variant left.
        (globalThis as { gc?: () => void }).gc?.();
        const threadBefore = mainThreadMicros();
        const before = process.cpuUsage();
        const answered = await drive(handler, ROUND_MS);
        const used = process.cpuUsage(before);
        const threadAfter = mainThreadMicros();
        if (round < 2) continue;
        whole.get(name)!.push((used.user + used.system) / answered);
        if (threadBefore !== undefined && threadAfter !== undefined) {
          thread.get(name)!.push((threadAfter - threadBefore) / answered);
        }
      }
    }
    // Each round's ratio pairs measurements taken moments apart; their median is the figure
    // that moves least when the machine's load drifts.
    const range = (ratios: number[]) =>
      `${median(ratios).toFixed(3)} (${Math.min(...ratios).toFixed(3)}–${Math.max(...ratios).toFixed(3)})`;
    const paired = (of: Map<string, number[]>, reference: string, name: string) => {
      const base = of.get(reference)!;
      return range(of.get(name)!.map((cost, index) => base[index]! / cost));
    };
    const measured = thread.get('without')!.length > 0;
    console.log(
      '| variant | main thread CPU µs per request (median) | main thread: without / with, median of rounds (range) | process CPU µs (median) | process: without / with |',
    );
    console.log('|---|---|---|---|---|');
    for (const [name] of variants) {
      const main = measured
        ? `${median(thread.get(name)!).toFixed(1)} | ${paired(thread, 'without', name)}`
        : '- | -';
      console.log(
        `| ${name} | ${main} | ${median(whole.get(name)!).toFixed(1)} | ${paired(whole, 'without', name)} |`,
      );
    }
    for (const [name, oldName] of [
      ['memory', 'memory (old)'],
      ['memory (full)', 'memory (full, old)'],
      ['redis', 'redis (old)'],
    ] as const) {
      if (!whole.has(oldName) || !whole.has(name)) continue;
      const main = measured ? `main thread ${paired(thread, oldName, name)}, ` : '';
      console.log(
        `${name}: CPU per request old / new, median of rounds (range): ${main}process ${paired(whole, oldName, name)}`,
      );
    }
  }
} finally {
  client?.destroy();
  await redis?.close();
}
