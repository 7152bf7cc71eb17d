import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describeEachExpress } from '@resourceful/test-support';
import type { RequestHandler } from 'express';
import onHeaders from 'on-headers';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import { beforeHeaders } from '../src/index.js';

/** A middleware registering a hook that records what it saw and sets `X-Hooked`. */
function hooking(name: string, seen: string[] = []): RequestHandler {
  return function hookingMiddleware(_req, res, next) {
    beforeHeaders(
      res,
      (hooked, state: string) => {
        seen.push(`${state} ${hooked.statusCode} ${String(hooked.getHeader('Content-Type'))}`);
        const before = hooked.getHeader('X-Hooked');
        hooked.setHeader('X-Hooked', before === undefined ? state : `${String(before)}, ${state}`);
      },
      name,
    );
    next();
  };
}

function ownWriteHead(res: ServerResponse): boolean {
  return Object.hasOwn(res, 'writeHead');
}

describeEachExpress('beforeHeaders on Express responses', (express) => {
  it('runs the hook once, before the head, and adds no property to the response', async () => {
    const seen: string[] = [];
    const app = express();
    let own: boolean | undefined;
    app.use(hooking('one', seen));
    app.get('/', (_req, res) => {
      own = ownWriteHead(res);
      res.status(201).json({ ok: true });
    });
    const answer = await request(app).get('/');
    expect(answer.status).toBe(201);
    expect(answer.headers['x-hooked']).toBe('one');
    expect(seen).toEqual(['one 201 application/json; charset=utf-8']);
    expect(own).toBe(false);
    expect(Object.hasOwn(app.response, 'writeHead')).toBe(true);
    expect(Object.hasOwn(express.response, 'writeHead')).toBe(false);
  });

  it('writes the status the hook set, as on-headers does', async () => {
    const app = express();
    app.use((_req, res, next) => {
      beforeHeaders(
        res,
        (hooked) => {
          hooked.statusCode = 203;
        },
        undefined,
      );
      next();
    });
    app.get('/', (_req, res) => {
      res.json({});
    });
    expect((await request(app).get('/')).status).toBe(203);
  });

  it('sets the headers given to writeHead before the hook sees them, in every call shape', async () => {
    const seen: string[] = [];
    const app = express();
    app.use(hooking('h', seen));
    app.get('/object', (_req, res) => {
      res.writeHead(202, { 'Content-Type': 'text/plain' }).end('x');
    });
    app.get('/reason', (_req, res) => {
      res.writeHead(202, 'Taken', { 'Content-Type': 'text/csv' }).end('x');
    });
    app.get('/flat', (_req, res) => {
      res.writeHead(200, ['Content-Type', 'image/png', 'X-Extra', 'a', 'X-Extra', 'b']).end('x');
    });
    app.get('/nested', (_req, res) => {
      res.writeHead(200, [['Content-Type', 'text/html']]).end('x');
    });
    const reason = await request(app).get('/reason');
    expect(reason.status).toBe(202);
    expect((reason as unknown as { res: IncomingMessage }).res.statusMessage).toBe('Taken');
    expect(reason.headers['x-hooked']).toBe('h');
    await request(app).get('/object');
    const flat = await request(app).get('/flat');
    expect(flat.headers['x-extra']).toBe('a, b');
    await request(app).get('/nested');
    expect(seen).toEqual([
      'h 202 text/csv',
      'h 202 text/plain',
      'h 200 image/png',
      'h 200 text/html',
    ]);
  });

  it('refuses a second writeHead with Node’s own error, without running the hook again', async () => {
    const seen: string[] = [];
    const app = express();
    let second: unknown;
    app.use(hooking('h', seen));
    app.get('/', (_req, res) => {
      res.writeHead(200);
      try {
        res.writeHead(500);
      } catch (error) {
        second = error;
      }
      res.end('done');
    });
    await request(app).get('/');
    expect((second as { code?: string }).code).toBe('ERR_HTTP_HEADERS_SENT');
    expect(seen).toHaveLength(1);
  });

  it('runs two hooks of one response, the last registered first', async () => {
    const seen: string[] = [];
    const app = express();
    app.use(hooking('first', seen), hooking('second', seen));
    app.get('/', (_req, res) => {
      res.json({});
    });
    const answer = await request(app).get('/');
    expect(answer.headers['x-hooked']).toBe('second, first');
  });

  it('runs an on-headers wrapper added to the response afterwards (compression’s) first', async () => {
    const order: string[] = [];
    const app = express();
    app.use(hooking('prototype', order));
    app.use((_req, res, next) => {
      onHeaders(res, () => order.push('own wrapper'));
      next();
    });
    app.get('/', (_req, res) => {
      res.json({});
    });
    await request(app).get('/');
    expect(order).toEqual(['own wrapper', 'prototype 200 application/json; charset=utf-8']);
  });

  it('goes through on-headers for a response that already has a writeHead of its own', async () => {
    const app = express();
    let own: boolean | undefined;
    app.use((_req, res, next) => {
      onHeaders(res, () => {});
      next();
    });
    app.use(hooking('h'));
    app.get('/', (_req, res) => {
      own = ownWriteHead(res);
      res.json({});
    });
    const answer = await request(app).get('/');
    expect(answer.headers['x-hooked']).toBe('h');
    expect(own).toBe(true);
  });

  it('chains to the writeHead another copy of the module defined, in both orders', async () => {
    vi.resetModules();
    const other = (await import('../src/index.js')) as typeof import('../src/index.js');
    expect(other.beforeHeaders).not.toBe(beforeHeaders);
    const otherHooking: RequestHandler = (_req, res, next) => {
      other.beforeHeaders(res, (hooked) => hooked.setHeader('X-Other', 'ran'), undefined);
      next();
    };
    for (const order of [
      [hooking('h'), otherHooking],
      [otherHooking, hooking('h')],
    ]) {
      const app = express();
      app.use(...order);
      app.get('/', (_req, res) => {
        res.json({});
      });
      for (let i = 0; i < 3; i++) {
        const answer = await request(app).get('/');
        expect(answer.headers['x-hooked']).toBe('h');
        expect(answer.headers['x-other']).toBe('ran');
      }
    }
  });

  it('keeps both copies’ hooks when an app that answered alone is mounted in another', async () => {
    vi.resetModules();
    const other = (await import('../src/index.js')) as typeof import('../src/index.js');
    const inner = express();
    inner.use(hooking('inner'));
    inner.get('/x', (_req, res) => {
      res.json({});
    });
    expect((await request(inner).get('/x')).headers['x-hooked']).toBe('inner');
    const outer = express();
    outer.use((_req, res, next) => {
      other.beforeHeaders(res, (hooked) => hooked.setHeader('X-Other', 'outer'), undefined);
      next();
    });
    outer.use('/inner', inner);
    for (let i = 0; i < 2; i++) {
      const answer = await request(outer).get('/inner/x');
      expect(answer.headers['x-hooked']).toBe('inner');
      expect(answer.headers['x-other']).toBe('outer');
    }
  });

  it('runs the hooks of answers of apps mounted with app.use, and of the app after them', async () => {
    const app = express();
    app.use(hooking('h'));
    const mounted = express();
    mounted.get('/inner', (_req, res) => {
      res.json({});
    });
    mounted.use((_req, _res, next) => next());
    app.use('/sub', mounted);
    app.get('/sub/after', (_req, res) => {
      res.json({});
    });
    expect((await request(app).get('/sub/inner')).headers['x-hooked']).toBe('h');
    expect((await request(app).get('/sub/after')).headers['x-hooked']).toBe('h');
  });

  it('runs the hooks of answers of apps used as a router’s or a route’s middleware', async () => {
    const app = express();
    app.use(hooking('h'));
    const used = express();
    used.get('/used', (_req, res) => {
      res.json({});
    });
    const router = express.Router();
    router.use(used as unknown as RequestHandler);
    app.use(router);
    const routed = express();
    routed.use((_req, res) => {
      res.json({});
    });
    app.get('/routed', routed as unknown as RequestHandler);
    app.get('/after', (_req, res) => {
      res.json({});
    });
    for (const path of ['/used', '/routed', '/after']) {
      const answer = await request(app).get(path);
      expect(answer.status, path).toBe(200);
      expect(answer.headers['x-hooked'], path).toBe('h');
    }
    expect(Object.hasOwn(used.response, 'writeHead')).toBe(true);
  });

  it('does not reach an app called from inside another function (vhost): the documented limit', async () => {
    const app = express();
    app.use(hooking('h'));
    const hidden = express();
    hidden.get('/hidden', (_req, res) => {
      res.json({});
    });
    app.use((req, res, next) => {
      (hidden as unknown as RequestHandler)(req, res, next);
    });
    const answer = await request(app).get('/hidden');
    expect(answer.status).toBe(200);
    expect(answer.headers['x-hooked']).toBeUndefined();
  });

  it('leaves apps it never saw alone', async () => {
    const app = express();
    app.use(hooking('h'));
    app.get('/', (_req, res) => {
      res.json({});
    });
    await request(app).get('/');
    const other = express();
    other.get('/', (_req, res) => {
      res.json({});
    });
    expect((await request(other).get('/')).headers['x-hooked']).toBeUndefined();
    expect(Object.hasOwn(other.response, 'writeHead')).toBe(false);
  });
});

describe('beforeHeaders outside the usual shapes', () => {
  /** A response shaped as Express shapes one: an `app.response` over `base`. */
  function expressShaped(base: object = ServerResponse.prototype): {
    res: ServerResponse;
    appResponse: object;
  } {
    const app = function app() {};
    const appResponse = Object.create(base, {
      app: { value: app, enumerable: true },
    }) as object;
    Object.assign(app, { response: appResponse });
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    Object.setPrototypeOf(res, appResponse);
    return { res, appResponse };
  }

  it('uses on-headers for a response that is not an Express one', () => {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    let ran = 0;
    beforeHeaders(res, () => ran++, undefined);
    expect(ownWriteHead(res)).toBe(true);
    expect(Object.hasOwn(ServerResponse.prototype, 'writeHead')).toBe(true);
    expect(ServerResponse.prototype.writeHead.name).toBe('writeHead');
    res.writeHead(200);
    expect(ran).toBe(1);
  });

  it('hands on to the writeHead its prototype gives, not Node’s directly', () => {
    const below: string[] = [];
    const base = Object.create(ServerResponse.prototype, {
      writeHead: {
        value(this: ServerResponse, ...args: unknown[]) {
          below.push('below');
          return Reflect.apply(ServerResponse.prototype.writeHead, this, args) as ServerResponse;
        },
      },
    }) as object;
    const { res, appResponse } = expressShaped(base);
    const order: string[] = [];
    beforeHeaders(res, () => order.push('hook'), undefined);
    expect(Object.hasOwn(appResponse, 'writeHead')).toBe(true);
    res.writeHead(200);
    expect([...order, ...below]).toEqual(['hook', 'below']);
  });

  it('uses on-headers when the app.response has a writeHead of someone else', () => {
    const { res, appResponse } = expressShaped();
    const foreign = function foreignWriteHead(this: ServerResponse, ...args: unknown[]) {
      return Reflect.apply(ServerResponse.prototype.writeHead, this, args) as ServerResponse;
    };
    Object.defineProperty(appResponse, 'writeHead', {
      value: foreign,
      writable: true,
      configurable: true,
    });
    let ran = 0;
    beforeHeaders(res, () => ran++, undefined);
    expect((appResponse as { writeHead: unknown }).writeHead).toBe(foreign);
    expect(ownWriteHead(res)).toBe(true);
    res.writeHead(200);
    expect(ran).toBe(1);
  });

  it('runs the hooks left after one threw at the next writeHead, as on-headers does', () => {
    const { res } = expressShaped();
    const ran: string[] = [];
    beforeHeaders(res, () => ran.push('first'), undefined);
    beforeHeaders(
      res,
      () => {
        ran.push('second');
        throw new Error('hook failed');
      },
      undefined,
    );
    expect(() => res.writeHead(200)).toThrow('hook failed');
    res.writeHead(500);
    expect(ran).toEqual(['second', 'first']);
    expect(res.statusCode).toBe(500);
  });
});
