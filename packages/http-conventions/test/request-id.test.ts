import { createServer, type IncomingMessage } from 'node:http';
import { ApiError, errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  getRequestId,
  isWellFormedRequestId,
  REQUEST_ID_KEY,
  type RequestIdOptions,
  requestId,
} from '../src/index.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describeEachExpress('requestId', (express) => {
  function app(options?: RequestIdOptions) {
    const app = express();
    app.use(requestId(options));
    app.get('/id', (req, res) => {
      res.json({
        id: getRequestId(req),
        raw: (req as unknown as Record<symbol, unknown>)[Symbol.for('@resourceful/request-id')],
      });
    });
    app.get('/fail', () => {
      throw ApiError.conflict('no');
    });
    app.use(errorHandler());
    return app;
  }

  it('generates a UUID, the same on the request and in X-Request-Id', async () => {
    const res = await request(app()).get('/id');
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.body).toEqual({ id: res.headers['x-request-id'], raw: res.headers['x-request-id'] });
  });

  it('gives each request its own id', async () => {
    const server = app();
    const first = await request(server).get('/id');
    const second = await request(server).get('/id');
    expect(first.headers['x-request-id']).not.toBe(second.headers['x-request-id']);
  });

  it('keeps a well-formed incoming X-Request-Id', async () => {
    const res = await request(app()).get('/id').set('X-Request-Id', 'lb-01:abc.DEF_123');
    expect(res.headers['x-request-id']).toBe('lb-01:abc.DEF_123');
    expect(res.body.id).toBe('lb-01:abc.DEF_123');
  });

  it('carries the id on error answers too', async () => {
    const res = await request(app()).get('/fail').set('X-Request-Id', 'trace-7');
    expect(res.status).toBe(409);
    expect(res.headers['x-request-id']).toBe('trace-7');
  });

  it('puts the same id in the error envelope and in the onError report', async () => {
    const reports: (string | undefined)[] = [];
    const server = express();
    server.use(requestId());
    server.get('/fail', () => {
      throw ApiError.conflict('no');
    });
    server.use(errorHandler({ onError: ({ requestId }) => reports.push(requestId) }));
    const kept = await request(server).get('/fail').set('X-Request-Id', 'trace-8');
    const generated = await request(server).get('/fail');
    for (const res of [kept, generated]) {
      expect(res.body.error.innererror).toEqual({ request_id: res.headers['x-request-id'] });
    }
    expect(kept.headers['x-request-id']).toBe('trace-8');
    expect(generated.headers['x-request-id']).toMatch(UUID);
    expect(reports).toEqual([kept.headers['x-request-id'], generated.headers['x-request-id']]);
  });

  describe('the id on the request, across apps', () => {
    const RAW = Symbol.for('@resourceful/request-id');
    function reader(req: IncomingMessage, res: import('node:http').ServerResponse) {
      res.setHeader('Content-Type', 'application/json');
      res.end(
        JSON.stringify({
          id: getRequestId(req),
          raw: (req as unknown as Record<symbol, unknown>)[RAW],
        }),
      );
    }

    it('is read in a sub-app mounted below the app that set it', async () => {
      const outer = express();
      outer.use(requestId());
      const inner = express();
      inner.get('/id', reader);
      outer.use('/v1', inner);
      const res = await request(outer).get('/v1/id');
      expect(res.body).toEqual({
        id: res.headers['x-request-id'],
        raw: res.headers['x-request-id'],
      });
    });

    it('stays on the request after the sub-app that set it passes it on', async () => {
      const outer = express();
      const inner = express();
      inner.use(requestId());
      outer.use('/v1', inner);
      outer.get('/v1/id', reader);
      const res = await request(outer).get('/v1/id');
      expect(res.headers['x-request-id']).toMatch(UUID);
      expect(res.body).toEqual({
        id: res.headers['x-request-id'],
        raw: res.headers['x-request-id'],
      });
    });

    it('is undefined on a request the middleware did not see, in the same app', async () => {
      const outer = express();
      outer.use('/v1', requestId());
      outer.get('/v2/id', reader);
      outer.get('/v1/id', reader);
      expect((await request(outer).get('/v1/id')).body.id).toMatch(UUID);
      const res = await request(outer).get('/v2/id');
      expect(res.body).toEqual({});
      expect(res.headers['x-request-id']).toBeUndefined();
    });

    it('can be replaced by assigning the key', async () => {
      const outer = express();
      outer.use(requestId());
      outer.use((req: IncomingMessage, _res: unknown, next: () => void) => {
        (req as unknown as Record<symbol, unknown>)[REQUEST_ID_KEY] = 'from-a-proxy';
        next();
      });
      outer.get('/id', reader);
      const res = await request(outer).get('/id');
      expect(res.body).toEqual({ id: 'from-a-proxy', raw: 'from-a-proxy' });
    });

    it('is set on the request without Express', async () => {
      const middleware = requestId();
      const server = createServer((req, res) => {
        middleware(req, res, () => {
          res.end(JSON.stringify({ own: Object.hasOwn(req, RAW), id: getRequestId(req) }));
        });
      });
      const res = await request(server).get('/id');
      expect(JSON.parse(res.text)).toEqual({ own: true, id: res.headers['x-request-id'] });
    });
  });

  describe('replaces an incoming id that is not well-formed', () => {
    for (const [what, value] of [
      ['with spaces', 'a b'],
      ['with a quote', 'a"b'],
      ['longer than 200 characters', 'a'.repeat(201)],
      ['with non-ASCII', 'caf\u00e9'],
      ['with HTML', '<script>'],
    ] as const) {
      it(what, async () => {
        const res = await request(app()).get('/id').set('X-Request-Id', value);
        expect(res.headers['x-request-id']).toMatch(UUID);
      });
    }

    it('repeated (two field lines, joined by Node)', async () => {
      const res = await request(app()).get('/id').set('X-Request-Id', 'a, b');
      expect(res.headers['x-request-id']).toMatch(UUID);
    });
  });

  it('reads further headers in order, and answers under its own header name', async () => {
    const server = app({ header: 'Request-Id', acceptFrom: ['X-Correlation-Id'] });
    const res = await request(server).get('/id').set('X-Correlation-Id', 'corr-1');
    expect(res.headers['request-id']).toBe('corr-1');
    expect(res.headers['x-request-id']).toBeUndefined();
  });

  it('uses the generator, and a UUID when the generator returns garbage', async () => {
    expect(
      (await request(app({ generate: () => 'gen-1' })).get('/id')).headers['x-request-id'],
    ).toBe('gen-1');
    const bad = await request(app({ generate: () => 'not ok\r\n' })).get('/id');
    expect(bad.headers['x-request-id']).toMatch(UUID);
  });
});

describe('requestId options', () => {
  it('accepts (), {} and undefined values', () => {
    expect(() => requestId()).not.toThrow();
    expect(() => requestId({})).not.toThrow();
    expect(() => requestId({ header: undefined, maxLength: undefined })).not.toThrow();
  });

  it.each([
    [{ header: 'bad header' }, /"header" must be a header name/],
    [{ acceptFrom: 'X-Id' }, /"acceptFrom" must be/],
    [{ maxLength: 0 }, /"maxLength" must be a positive integer/],
    [{ generate: 'uuid' }, /"generate" must be a function/],
    [{ headr: 'X' }, /unknown option "headr". Did you mean "header"/],
    [{ header: null }, /"header" must be a header name, got null/],
    [{ acceptFrom: null }, /"acceptFrom" must be an array of header names, got null/],
    [{ generate: null }, /"generate" must be a function returning a string, got null/],
  ])('refuses %o', (options, message) => {
    expect(() => requestId(options as RequestIdOptions)).toThrow(message);
  });

  it('exports the registered symbol and the well-formedness check', () => {
    expect(REQUEST_ID_KEY).toBe(Symbol.for('@resourceful/request-id'));
    expect(isWellFormedRequestId('abc')).toBe(true);
    expect(isWellFormedRequestId('')).toBe(false);
    expect(getRequestId({} as IncomingMessage)).toBeUndefined();
  });
});
