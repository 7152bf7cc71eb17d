import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { setFlagsFromString } from 'node:v8';
import { describeEachExpress, listen } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  allowedMethods,
  httpConventions,
  limitUrlLength,
  queryHeaders,
  REQUEST_ID_KEY,
  requestId,
  responseDate,
} from '../src/index.js';

/** Where the probe is made (and pays): before V8 13 (Node 24). */
const DICTIONARY_EXPECTED = Number(process.versions.v8.split('.')[0]) < 13;

// V8's own view of an object's hidden class, to pin what the probe is for: without it every
// test below passes too, and only the benchmark would notice.
setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('object', 'return %HasFastProperties(object)') as (
  object: object,
) => boolean;

type Middleware = (
  req: IncomingMessage,
  res: ServerResponse,
  next: (err?: unknown) => void,
) => void;

const MIDDLEWARE: readonly [string, () => Middleware][] = [
  ['httpConventions()', () => httpConventions() as Middleware],
  ['requestId()', () => requestId() as Middleware],
  ['responseDate()', () => responseDate() as Middleware],
  ['limitUrlLength()', () => limitUrlLength() as Middleware],
  ['allowedMethods()', () => allowedMethods() as Middleware],
  ['queryHeaders()', () => queryHeaders() as Middleware],
];

/** An object's own keys in `Reflect.ownKeys` order, and each property's value and attributes. */
function ownProperties(target: object) {
  const keys = Reflect.ownKeys(target);
  return {
    keys,
    descriptors: new Map(keys.map((key) => [key, Object.getOwnPropertyDescriptor(target, key)!])),
  };
}

type Properties = ReturnType<typeof ownProperties>;

/**
 * `after` has `before`'s properties with the same values (the same objects) and attributes, in
 * the same order, then `added` (names before symbols, as `Reflect.ownKeys` lists them).
 */
function expectOnlyAdded(before: Properties, after: Properties, added: readonly PropertyKey[]) {
  const names = (keys: readonly PropertyKey[]) => keys.filter((key) => typeof key === 'string');
  const symbols = (keys: readonly PropertyKey[]) => keys.filter((key) => typeof key === 'symbol');
  expect(after.keys).toEqual([
    ...names(before.keys),
    ...names(added),
    ...symbols(before.keys),
    ...symbols(added),
  ]);
  for (const key of before.keys) {
    const was = before.descriptors.get(key)!;
    const is = after.descriptors.get(key)!;
    expect(is).toEqual(was);
    expect(is.value).toBe(was.value);
  }
}

interface Seen {
  req: { before: Properties; after: Properties; fast: boolean };
  res: { before: Properties; after: Properties; fast: boolean };
}

/** Runs `middleware` on the request and response, recording them just before and after it. */
function observed(middleware: Middleware, seen: Seen[]): Middleware {
  return function observe(req, res, next) {
    const before = { req: ownProperties(req), res: ownProperties(res) };
    middleware(req, res, (err) => {
      seen.push({
        req: { before: before.req, after: ownProperties(req), fast: hasFastProperties(req) },
        res: { before: before.res, after: ownProperties(res), fast: hasFastProperties(res) },
      });
      next(err);
    });
  };
}

describeEachExpress('each middleware on the request and response it is given', (express) => {
  for (const [name, make] of MIDDLEWARE) {
    it(`${name} changes no property, value, attribute or key order of either`, async () => {
      const seen: Seen[] = [];
      const app = express();
      app.use(observed(make(), seen));
      app.get('/things/:id', (_req, res) => {
        res.json({ ok: true });
      });
      const answer = await request(app).get('/things/1');
      expect(answer.status).toBe(200);
      expect(seen).toHaveLength(1);
      // Under Express the request id is read through the app's prototype, the Date hook too.
      expectOnlyAdded(seen[0]!.req.before, seen[0]!.req.after, []);
      expectOnlyAdded(seen[0]!.res.before, seen[0]!.res.after, []);
    });
  }

  it('leaves the requests and responses of the app with dictionary properties (V8 before 13)', async () => {
    const fast: { req: boolean; res: boolean }[] = [];
    const app = express();
    app.use(httpConventions());
    app.get('/things/:id', (req, res) => {
      fast.push({ req: hasFastProperties(req), res: hasFastProperties(res) });
      res.json({ ok: true });
    });
    for (const id of ['1', '2']) {
      expect((await request(app).get(`/things/${id}?Prefer=return%3Dminimal`)).status).toBe(200);
    }
    // A dictionary's hidden class is shared by every such object, where each fast object of an
    // Express app has one of its own.
    const expected = { req: !DICTIONARY_EXPECTED, res: !DICTIONARY_EXPECTED };
    expect(fast).toEqual([expected, expected]);
  });
});

describe('each middleware on a request and response of Node’s server (no Express)', () => {
  for (const [name, make] of MIDDLEWARE) {
    it(`${name} adds only its own properties and keeps them fast`, async () => {
      const seen: Seen[] = [];
      const middleware = observed(make(), seen);
      const server = await listen(
        createServer((req, res) => {
          // Node's store of the response's headers exists from the first header on.
          res.setHeader('X-Before', 'yes');
          middleware(req, res, () => {
            res.end('done');
          });
        }),
      );
      try {
        expect((await fetch(`${server.url}/things/1`)).status).toBe(200);
        expect(seen).toHaveLength(1);
        const { req, res } = seen[0]!;
        // Outside Express the id is an own property, and the Date hook on-headers' wrapper.
        const ownId = name === 'httpConventions()' || name === 'requestId()';
        const ownHook = name === 'httpConventions()' || name === 'responseDate()';
        expectOnlyAdded(req.before, req.after, ownId ? [REQUEST_ID_KEY] : []);
        expectOnlyAdded(res.before, res.after, ownHook ? ['writeHead'] : []);
        // A server's own messages share their classes already: they are left alone.
        expect(req.fast).toBe(true);
        expect(res.fast).toBe(true);
      } finally {
        await server.close();
      }
    });
  }
});
