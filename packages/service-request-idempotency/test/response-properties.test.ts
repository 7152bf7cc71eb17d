import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { describeEachExpress, listen } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { serviceRequestIdempotency } from '../src/index.js';

/** A response's own keys, and its own properties' values and attributes, by key. */
function ownProperties(res: ServerResponse) {
  const keys = Reflect.ownKeys(res);
  return { keys, descriptors: new Map(keys.map((key) => [key, descriptorOf(res, key)])) };
}

function descriptorOf(res: ServerResponse, key: string | symbol) {
  const { value, writable, enumerable, configurable } = Object.getOwnPropertyDescriptor(res, key)!;
  return { value, writable, enumerable, configurable };
}

const WRAPPERS = ['writeHead', 'write', 'end'];

/**
 * The keys in `Reflect.ownKeys` order (names in the order added, then symbols in the order
 * added) with the wrappers and the capture's state, a symbol of the package's own.
 */
function withCapture(keys: readonly (string | symbol)[]) {
  return [
    ...keys.filter((key) => typeof key === 'string'),
    ...WRAPPERS,
    ...keys.filter((key) => typeof key === 'symbol'),
    STATE_DESCRIPTION,
  ];
}

const STATE_DESCRIPTION = 'Symbol(resourceful.idempotency.capture)';

/** Keys as `withCapture` lists them: the package's symbol by its description. */
function named(keys: readonly (string | symbol)[]) {
  return keys.map((key) =>
    typeof key === 'symbol' && String(key) === STATE_DESCRIPTION ? STATE_DESCRIPTION : key,
  );
}

/**
 * The response as the handler gets it has the properties it had before the middleware, with
 * their values, attributes and order, and then the three wrappers and the capture's state (a
 * symbol): whatever the capture does to keep it cheap for V8 leaves nothing else behind.
 */
function expectOnlyWrappersAdded(
  before: ReturnType<typeof ownProperties>,
  after: ReturnType<typeof ownProperties>,
) {
  expect(named(after.keys)).toEqual(withCapture(before.keys));
  for (const key of before.keys) {
    // `locals` and the like may be objects: the same object, not an equal one.
    expect(after.descriptors.get(key)).toEqual(before.descriptors.get(key));
    expect(after.descriptors.get(key)!.value).toBe(before.descriptors.get(key)!.value);
  }
  for (const name of WRAPPERS) {
    expect(after.descriptors.get(name)).toMatchObject({
      writable: true,
      enumerable: true,
      configurable: true,
    });
  }
}

describeEachExpress('serviceRequestIdempotency on the response it captures', (express) => {
  it('adds writeHead, write, end and its state and changes no other property or key order', async () => {
    const app = express();
    const seen: { before?: ReturnType<typeof ownProperties>; after?: typeof seen.before } = {};
    app.use(express.json());
    app.use((_req, res, next) => {
      // The first request's, not the replay's.
      seen.before ??= ownProperties(res);
      next();
    });
    app.use(serviceRequestIdempotency());
    app.post('/v1/things', (_req, res) => {
      seen.after = ownProperties(res);
      res.status(201).json({ id: 1 });
    });
    const first = await request(app).post('/v1/things').set('Service-Request-Id', 'own-1');
    const again = await request(app).post('/v1/things').set('Service-Request-Id', 'own-1');
    expect(first.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expectOnlyWrappersAdded(seen.before!, seen.after!);
  });

  it('leaves a response of a sub-app mounted below with the same properties', async () => {
    const app = express();
    const seen: { before?: ReturnType<typeof ownProperties>; after?: typeof seen.before } = {};
    app.use(express.json());
    app.use((_req, res, next) => {
      // The first request's, not the replay's.
      seen.before ??= ownProperties(res);
      next();
    });
    app.use(serviceRequestIdempotency());
    const v1 = express();
    v1.post('/things', (_req, res) => {
      seen.after = ownProperties(res);
      res.status(201).json({ id: 1 });
    });
    app.use('/v1', v1);
    const first = await request(app).post('/v1/things').set('Service-Request-Id', 'own-2');
    expect(first.status).toBe(201);
    // Express's sub-app sets properties of its own on the way in; ours are the three wrappers.
    const names = (keys: readonly (string | symbol)[]) =>
      keys.filter((key) => typeof key === 'string');
    const before = names(seen.before!.keys);
    expect(names(seen.after!.keys).slice(0, before.length + 3)).toEqual([...before, ...WRAPPERS]);
    expect(named(seen.after!.keys).filter((key) => typeof key === 'symbol')).toEqual(
      seen.before!.keys.filter((key) => typeof key === 'symbol'),
    );
    expect(named(seen.after!.keys).at(-1)).toBe(STATE_DESCRIPTION);
  });
});

describe('serviceRequestIdempotency on a response of Node’s server (no Express)', () => {
  it('adds writeHead, write, end and its state and changes no other property or key order', async () => {
    const middleware = serviceRequestIdempotency({ fingerprint: false });
    const seen: { before?: ReturnType<typeof ownProperties>; after?: typeof seen.before } = {};
    const server = await listen(
      createServer((req: IncomingMessage, res: ServerResponse) => {
        seen.before = ownProperties(res);
        middleware(req, res, () => {
          seen.after = ownProperties(res);
          res.writeHead(201, { 'Content-Type': 'text/plain' });
          res.end('made');
        });
      }),
    );
    try {
      const answer = await fetch(`${server.url}/things`, {
        method: 'POST',
        headers: { 'Service-Request-Id': 'plain-own-1' },
      });
      expect(answer.status).toBe(201);
      expect(await answer.text()).toBe('made');
      expectOnlyWrappersAdded(seen.before!, seen.after!);
    } finally {
      await server.close();
    }
  });
});
