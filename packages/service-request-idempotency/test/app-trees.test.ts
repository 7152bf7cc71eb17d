import { createServer, type IncomingMessage, ServerResponse } from 'node:http';
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, listen } from '@resourceful/test-support';
import type { RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { memoryStore, serviceRequestIdempotency } from '../src/index.js';

type App = Parameters<typeof request>[0];

/** A create handler counting its runs; the answer names the run. */
function creating(): { handler: RequestHandler; runs: () => number } {
  let runs = 0;
  return {
    handler: (_req, res) => {
      runs += 1;
      res.status(201).location(`/v1/things/${runs}`).json({ id: runs });
    },
    runs: () => runs,
  };
}

/** The first answer is replayed to a repeat, and the handler ran once. */
async function expectReplayed(app: App, path: string, id: string, runs: () => number) {
  const before = runs();
  const first = await request(app).post(path).set('Service-Request-Id', id).send({ a: 1 });
  const again = await request(app).post(path).set('Service-Request-Id', id).send({ a: 1 });
  expect(first.status).toBe(201);
  expect(again.status).toBe(201);
  expect(again.headers['idempotent-replayed']).toBe('true');
  expect(again.body).toEqual(first.body);
  expect(again.headers.location).toBe(first.headers.location);
  expect(runs()).toBe(before + 1);
}

describeEachExpress('serviceRequestIdempotency in an app tree', (express) => {
  it('replays the answers of a sub-app mounted with app.use', async () => {
    const app = express();
    app.use(express.json());
    app.use(serviceRequestIdempotency());
    const v1 = express();
    const { handler, runs } = creating();
    v1.post('/things', handler);
    app.use('/v1', v1);
    app.use(errorHandler());
    await expectReplayed(app, '/v1/things', 'sub-1', runs);
  });

  it('replays the answers of a sub-app two levels down, mounted after the first request', async () => {
    const app = express();
    app.use(express.json());
    app.use(serviceRequestIdempotency());
    const early = creating();
    app.post('/v1/early', early.handler);
    await expectReplayed(app, '/v1/early', 'early-1', early.runs);
    const v1 = express();
    const things = express();
    const { handler, runs } = creating();
    things.post('/', handler);
    v1.use('/things', things);
    app.use('/v1', v1);
    await expectReplayed(app, '/v1/things', 'deep-1', runs);
  });

  it('replays the answers of a sub-app that has the middleware itself', async () => {
    const app = express();
    const v1 = express();
    v1.use(express.json());
    v1.use(serviceRequestIdempotency());
    const { handler, runs } = creating();
    v1.post('/things', handler);
    app.use('/v1', v1);
    await expectReplayed(app, '/v1/things', 'inner-1', runs);
  });

  it('replays the answers of a sub-app when the app above has the middleware too', async () => {
    const app = express();
    app.use(express.json());
    app.use(serviceRequestIdempotency());
    const v1 = express();
    v1.use(serviceRequestIdempotency());
    const { handler, runs } = creating();
    v1.post('/things', handler);
    app.use('/v1', v1);
    app.use(errorHandler());
    await expectReplayed(app, '/v1/things', 'twice-1', runs);
    await expectReplayed(app, '/v1/things', 'twice-2', runs);
  });

  it('replays the answers of a route behind the middleware twice, each with its own store', async () => {
    const app = express();
    app.use(express.json());
    app.use(serviceRequestIdempotency({ store: memoryStore() }));
    app.use(serviceRequestIdempotency({ store: memoryStore() }));
    let runs = 0;
    app.post('/v1/things', (_req, res) => {
      runs += 1;
      res.writeHead(201, { 'Content-Type': 'text/plain', Location: `/v1/things/${runs}` });
      res.write('run ');
      res.end(String(runs));
    });
    app.use(errorHandler());
    const first = await request(app).post('/v1/things').set('Service-Request-Id', 'twice-3');
    const again = await request(app).post('/v1/things').set('Service-Request-Id', 'twice-3');
    expect(first.status).toBe(201);
    expect(first.text).toBe('run 1');
    expect(again.status).toBe(201);
    expect(again.text).toBe('run 1');
    expect(again.headers.location).toBe('/v1/things/1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
  });

  it('captures outermost, as before, when an earlier middleware replaced res.end', async () => {
    const app = express();
    app.use(express.json());
    app.use(function shout(_req: IncomingMessage, res: ServerResponse, next: () => void) {
      const end = res.end;
      res.end = function shoutingEnd(this: ServerResponse, ...args: unknown[]) {
        const [chunk] = args;
        if (typeof chunk === 'string' || chunk instanceof Uint8Array) {
          args[0] = Buffer.from(String(Buffer.from(chunk)).toUpperCase());
        }
        return Reflect.apply(end, this, args) as ServerResponse;
      } as ServerResponse['end'];
      next();
    });
    app.use(serviceRequestIdempotency());
    let runs = 0;
    app.post('/v1/things', (_req, res) => {
      runs += 1;
      res.status(201).type('text').send(`run ${runs}`);
    });
    const first = await request(app).post('/v1/things').set('Service-Request-Id', 'shout-1');
    const again = await request(app).post('/v1/things').set('Service-Request-Id', 'shout-1');
    expect(first.text).toBe('RUN 1');
    // The stored bytes are the handler's; the replay passes the outer middleware again.
    expect(again.text).toBe('RUN 1');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(runs).toBe(1);
  });

  it('uses the methods an app defines on its own response', async () => {
    const app = express();
    const end = ServerResponse.prototype.end;
    Object.defineProperty(app.response, 'end', {
      configurable: true,
      writable: true,
      value: function stampedEnd(this: ServerResponse, ...args: unknown[]) {
        if (!this.headersSent) this.setHeader('X-Stamped', 'yes');
        return Reflect.apply(end, this, args) as ServerResponse;
      },
    });
    app.use(express.json());
    app.use(serviceRequestIdempotency());
    const { handler, runs } = creating();
    app.post('/v1/things', handler);
    await expectReplayed(app, '/v1/things', 'stamp-1', runs);
    expect((await request(app).post('/v1/things')).headers['x-stamped']).toBe('yes');
  });

  it("changes neither Express's nor Node's shared response methods, nor another app", async () => {
    const shared = [
      ServerResponse.prototype.writeHead,
      ServerResponse.prototype.write,
      ServerResponse.prototype.end,
    ];
    const expressOwn = ['writeHead', 'write', 'end'].filter((name) =>
      Object.hasOwn(express.response, name),
    );
    const app = express();
    app.use(express.json());
    app.use(serviceRequestIdempotency());
    const { handler, runs } = creating();
    app.post('/v1/things', handler);
    await expectReplayed(app, '/v1/things', 'shared-1', runs);
    expect([
      ServerResponse.prototype.writeHead,
      ServerResponse.prototype.write,
      ServerResponse.prototype.end,
    ]).toEqual(shared);
    expect(
      ['writeHead', 'write', 'end'].filter((name) => Object.hasOwn(express.response, name)),
    ).toEqual(expressOwn);
    const other = express();
    other.post('/v1/things', (_req, res) => {
      res.status(201).json({ other: true });
    });
    const plain = await request(other).post('/v1/things').set('Service-Request-Id', 'shared-1');
    expect(plain.body).toEqual({ other: true });
    expect(plain.headers['idempotent-replayed']).toBeUndefined();
  });

  it('answers the routes of the app it does not capture as before', async () => {
    const app = express();
    app.use(express.json());
    app.get('/v1/things', (_req, res) => {
      res.json({ items: [] });
    });
    app.use(serviceRequestIdempotency());
    const { handler, runs } = creating();
    app.post('/v1/things', handler);
    await expectReplayed(app, '/v1/things', 'get-1', runs);
    const list = await request(app).get('/v1/things');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ items: [] });
    // Without an id, a POST runs every time and nothing is replayed.
    await request(app).post('/v1/things').send({ a: 1 });
    const plain = await request(app).post('/v1/things').send({ a: 1 });
    expect(plain.headers['idempotent-replayed']).toBeUndefined();
    expect(runs()).toBe(3);
  });

  describe('an Express app given a request without app.use (not mounted)', () => {
    function unmounted() {
      const app = express();
      app.use(express.json());
      app.use(serviceRequestIdempotency());
      const things = express();
      const { handler, runs } = creating();
      things.post('/things', handler);
      const v1 = express.Router();
      v1.use(things);
      app.use('/v1', v1);
      app.use(errorHandler());
      return { app, runs };
    }

    it('replays the first request of an app that answers at once, and runs it once', async () => {
      const { app, runs } = unmounted();
      await expectReplayed(app, '/v1/things', 'unmounted-1', runs);
      await expectReplayed(app, '/v1/things', 'unmounted-2', runs);
    });

    it('replays the first request when the app answers after a wait', async () => {
      const app = express();
      app.use(express.json());
      app.use(serviceRequestIdempotency());
      const things = express();
      let runs = 0;
      things.post('/things', async (_req, res) => {
        await new Promise((resolve) => setImmediate(resolve));
        runs += 1;
        res.status(201).location(`/v1/things/${runs}`).json({ id: runs });
      });
      const v1 = express.Router();
      v1.use(things);
      app.use('/v1', v1);
      await expectReplayed(app, '/v1/things', 'waited-1', () => runs);
      await expectReplayed(app, '/v1/things', 'waited-2', () => runs);
    });

    it('releases the id of a failed first request, so it can be retried', async () => {
      const app = express();
      app.use(express.json());
      app.use(serviceRequestIdempotency());
      const things = express();
      let runs = 0;
      things.post('/things', (_req, res) => {
        runs += 1;
        res.status(runs === 1 ? 503 : 201).json({ runs });
      });
      const v1 = express.Router();
      v1.use(things);
      app.use('/v1', v1);
      const first = await request(app).post('/v1/things').set('Service-Request-Id', 'bypass-5');
      const retry = await request(app).post('/v1/things').set('Service-Request-Id', 'bypass-5');
      expect(first.status).toBe(503);
      expect(retry.status).toBe(201);
      expect(runs).toBe(2);
    });
  });
});

describe('serviceRequestIdempotency without Express', () => {
  it('captures and replays an answer written with writeHead, write and end', async () => {
    const middleware = serviceRequestIdempotency({ fingerprint: false });
    let runs = 0;
    const server = await listen(
      createServer((req: IncomingMessage, res: ServerResponse) => {
        middleware(req, res, (error?: unknown) => {
          if (error !== undefined) {
            res.statusCode = 500;
            res.end();
            return;
          }
          runs += 1;
          res.writeHead(201, { 'Content-Type': 'text/plain' });
          res.write('run ');
          res.end(String(runs));
        });
      }),
    );
    try {
      const send = () =>
        fetch(`${server.url}/things`, {
          method: 'POST',
          headers: { 'Service-Request-Id': 'plain-1' },
        });
      const first = await send();
      const again = await send();
      expect(first.status).toBe(201);
      expect(await first.text()).toBe('run 1');
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('content-type')).toBe('text/plain');
      expect(await again.text()).toBe('run 1');
      expect(runs).toBe(1);
    } finally {
      await server.close();
    }
  });
});
