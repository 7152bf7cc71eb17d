import { createServer, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorHandler, notFoundHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  type ExpressModule,
  expectErrorEnvelope,
} from '@resourceful/test-support';
import cors from 'cors';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  type AllowedMethodsOptions,
  ANY_METHOD_ALLOW,
  allowedMethods,
  allowList,
  servedMethods,
} from '../src/index.js';

const HELP = 'https://api.example.com/docs';

function buildApp(
  express: ExpressModule,
  options: AllowedMethodsOptions = { help: HELP },
  moreRoutes?: (app: ReturnType<ExpressModule>) => void,
) {
  const app = express();
  const calls: string[] = [];
  app.use(allowedMethods(options));
  const cards = express.Router();
  cards.get('/', (_req, res) => res.json({ items: [] }));
  cards.post('/', (req, res) => {
    calls.push(`${req.method} ${req.originalUrl}`);
    res.status(201).json({});
  });
  cards
    .route('/:id')
    .get((_req, res) => res.json({}))
    .put((_req, res) => res.status(204).end())
    .delete((_req, res) => res.status(204).end());
  const nested = express.Router();
  nested.post('/:id/suspend', (_req, res) => res.status(204).end());
  cards.use('/', nested);
  const v1 = express.Router();
  v1.use('/vault/credit-cards', cards);
  app.use('/v1', v1);
  app.all('/anything', (req, res) => res.json({ method: req.method }));
  app.use('/proxy', (req, res) => res.json({ proxied: req.method }));
  moreRoutes?.(app);
  app.use(notFoundHandler());
  app.use(errorHandler());
  return { app, calls };
}

/** Sends `OPTIONS *` (asterisk-form, RFC 9112 §3.2.4), which supertest cannot, to `app`. */
async function optionsAsterisk(app: ReturnType<ExpressModule>) {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    return await new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>(
      (resolve, reject) => {
        const req = httpRequest(
          { host: '127.0.0.1', port, method: 'OPTIONS', path: '*' },
          (res) => {
            let text = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => {
              text += chunk;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, headers: res.headers, text }),
            );
          },
        );
        req.on('error', reject);
        req.end();
      },
    );
  } finally {
    server.close();
  }
}

describeEachExpress('allowedMethods', (express, version) => {
  describe('OPTIONS * (the server in general, RFC 9110 §9.3.7)', () => {
    it('answers 204 with the methods some route serves and Link rel="help", not a 404', async () => {
      const res = await optionsAsterisk(buildApp(express).app);
      expect(res.status).toBe(204);
      // `app.all('/anything')` serves every method.
      expect(res.headers.allow).toBe(ANY_METHOD_ALLOW.join(', '));
      expect(res.headers.link).toBe(`<${HELP}>; rel="help"`);
      expect(res.text).toBe('');
    });

    it('lists the methods of the routes at any depth, versioned ones included', async () => {
      const app = express();
      app.use(allowedMethods());
      const v1 = express.Router();
      v1.get('/things', (_req, res) => res.json([]));
      v1.delete('/things/:id', (_req, res) => res.status(204).end());
      app.use('/v1', v1);
      app.post('/v1/risk/evaluate', (_req, res) => res.json({}));
      const res = await optionsAsterisk(app);
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('GET, HEAD, POST, DELETE, OPTIONS');
      expect(res.headers.link).toBeUndefined();
    });

    it('answers Allow: OPTIONS for an app without routes', async () => {
      const app = express();
      app.use(allowedMethods());
      app.use(notFoundHandler());
      const res = await optionsAsterisk(app);
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('OPTIONS');
    });
  });

  describe('OPTIONS', () => {
    it('answers 204 with Allow from the routes and Link rel="help"', async () => {
      const res = await request(buildApp(express).app).options('/v1/vault/credit-cards');
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(res.headers.link).toBe(`<${HELP}>; rel="help"`);
      expect(res.text).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
    });

    it('merges the methods of every route and nested router matching the path', async () => {
      const app = buildApp(express).app;
      expect((await request(app).options('/v1/vault/credit-cards/CARD-1')).headers.allow).toBe(
        'GET, HEAD, PUT, DELETE, OPTIONS',
      );
      expect(
        (await request(app).options('/v1/vault/credit-cards/CARD-1/suspend')).headers.allow,
      ).toBe('POST, OPTIONS');
    });

    it('links every help URL given, one rel="help" link each, in order', async () => {
      const res = await request(
        buildApp(express, { help: [HELP, '/v1/openapi.json'] }).app,
      ).options('/v1/vault/credit-cards');
      expect(res.headers.link).toBe(`<${HELP}>; rel="help", </v1/openapi.json>; rel="help"`);
    });

    it('sends no Link without a help URL', async () => {
      const res = await request(buildApp(express, {}).app).options('/v1/vault/credit-cards');
      expect(res.headers.link).toBeUndefined();
    });

    it('passes unknown paths and plain middleware (app.use) through', async () => {
      const app = buildApp(express).app;
      expectErrorEnvelope(await request(app).options('/v1/unknown'), 404, { code: 'NOT_FOUND' });
      expect((await request(app).options('/proxy/x')).body).toEqual({ proxied: 'OPTIONS' });
    });
  });

  describe('a path an .all() route serves', () => {
    function allApp() {
      const app = express();
      app.use(allowedMethods({ help: HELP }));
      app.all('/anything', (req, res) => res.json({ method: req.method }));
      const router = express.Router();
      router.route('/things').all((req, res) => res.json({ method: req.method }));
      app.use('/r', router);
      app.all('/purgeable', (req, res) => res.json({ method: req.method }));
      app.purge('/purgeable', (_req, res) => res.status(204).end());
      app.use(notFoundHandler());
      app.use(errorHandler());
      return app;
    }

    it.each(['/anything', '/r/things'])(
      'answers OPTIONS on %s with every method an API serves (app.all and route.all)',
      async (path) => {
        const res = await request(allApp()).options(path);
        expect(res.status).toBe(204);
        expect(res.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
        expect(res.headers.link).toBe(`<${HELP}>; rel="help"`);
      },
    );

    it('adds the extension methods other routes of the path register', async () => {
      const res = await request(allApp()).options('/purgeable');
      expect(res.headers.allow).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS, PURGE');
    });

    it.each(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const)(
      'lets %s through to the route: never a 405',
      async (method) => {
        for (const path of ['/anything', '/r/things']) {
          const res = await request(allApp())[method.toLowerCase() as 'get'](path);
          expect(res.status, path).toBe(200);
          expect(res.body).toEqual({ method });
        }
      },
    );

    it('takes a catch-all .all() for the app’s fallback: 405s stay, unknown paths reach it', async () => {
      const app = express();
      app.use(allowedMethods());
      app.get('/cards', (_req, res) => res.json([]));
      // Express 4 and 5 spell "every path" differently.
      app.all(version.major === 5 ? '/{*rest}' : '*', (_req, res) =>
        res.status(404).json({ fallback: true }),
      );
      app.use(errorHandler());
      const refused = await request(app).delete('/cards');
      expect(refused.status).toBe(405);
      expect(refused.headers.allow).toBe('GET, HEAD, OPTIONS');
      for (const method of ['options', 'get', 'delete'] as const) {
        const res = await request(app)[method]('/nowhere');
        expect(res.status, method).toBe(404);
        expect(res.body).toEqual({ fallback: true });
      }
    });

    it('lists ANY_METHOD_ALLOW from servedMethods, without CONNECT or TRACE', () => {
      const app = allApp();
      const served = servedMethods(app, '/anything');
      expect(served.anyMethod).toBe(true);
      expect(allowList(served)).toEqual([...ANY_METHOD_ALLOW]);
      expect(ANY_METHOD_ALLOW).not.toContain('TRACE');
      expect(ANY_METHOD_ALLOW).not.toContain('CONNECT');
    });
  });

  describe('a sub-app (app.use(path, subApp))', () => {
    function subApp(withOwn: boolean) {
      const admin = express();
      if (withOwn) admin.use(allowedMethods({ help: HELP }));
      admin.get('/users', (_req, res) => res.json([]));
      admin.post('/users', (_req, res) => res.status(201).json({}));
      const nested = express.Router();
      nested.delete('/:id', (_req, res) => res.status(204).end());
      admin.use('/users', nested);
      return admin;
    }

    function mainApp(withOwn: boolean) {
      const app = express();
      app.use(allowedMethods({ help: HELP }));
      app.get('/status', (_req, res) => res.json({}));
      app.use('/admin', subApp(withOwn));
      const tenants = express.Router();
      tenants.use('/:tenant/admin', subApp(withOwn));
      app.use('/tenants', tenants);
      app.use(notFoundHandler());
      app.use(errorHandler());
      return app;
    }

    it('reads the whole path when mounted in a router of the main app', async () => {
      const app = express();
      const api = express.Router();
      api.use(allowedMethods());
      api.get('/cards', (_req, res) => res.json([]));
      app.get('/cards', (_req, res) => res.json([]));
      app.post('/cards', (_req, res) => res.status(201).json({}));
      app.use('/api', api);
      app.use(errorHandler());
      // Routes are walked from the app's top: /api/cards is the router's GET only.
      expect((await request(app).options('/api/cards')).headers.allow).toBe('GET, HEAD, OPTIONS');
      expect((await request(app).post('/api/cards')).status).toBe(405);
    });

    it('is invisible to the main app’s allowedMethods: its paths pass through', async () => {
      const app = mainApp(false);
      expect(servedMethods(app, '/admin/users').methods.size).toBe(0);
      // Express's own OPTIONS answer, from the sub-app's router.
      const res = await request(app).options('/admin/users');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html|^text\/plain/);
      expect(res.headers.link).toBeUndefined();
      expect((await request(app).put('/admin/users')).status).toBe(404);
    });

    it.each(['/admin', '/tenants/acme/admin'])(
      'is answered by an allowedMethods mounted in the sub-app, under %s',
      async (base) => {
        const app = mainApp(true);
        const options = await request(app).options(`${base}/users`);
        expect(options.status).toBe(204);
        expect(options.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
        expect(options.headers.link).toBe(`<${HELP}>; rel="help"`);
        expect((await request(app).options(`${base}/users/U1`)).headers.allow).toBe(
          'DELETE, OPTIONS',
        );
        const refused = await request(app).put(`${base}/users`).send({});
        expectErrorEnvelope(refused, 405, { code: 'METHOD_NOT_ALLOWED' });
        expect(refused.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
        expect((await request(app).get(`${base}/users`)).status).toBe(200);
        expect((await request(app).options('/status')).headers.allow).toBe('GET, HEAD, OPTIONS');
      },
    );
  });

  describe('a method the path does not serve', () => {
    it('answers 405 with Allow and runs no handler', async () => {
      const { app, calls } = buildApp(express);
      const res = await request(app).patch('/v1/vault/credit-cards').send({});
      expectErrorEnvelope(res, 405, { code: 'METHOD_NOT_ALLOWED' });
      expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(calls).toEqual([]);
    });

    it('answers 405 to HEAD where there is no GET', async () => {
      const res = await request(buildApp(express).app).head(
        '/v1/vault/credit-cards/CARD-1/suspend',
      );
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST, OPTIONS');
    });

    it('serves HEAD wherever GET is', async () => {
      const res = await request(buildApp(express).app).head('/v1/vault/credit-cards/CARD-1');
      expect(res.status).toBe(200);
    });

    it('keeps an unknown path a 404 whatever the method', async () => {
      const res = await request(buildApp(express).app).delete('/v2/vault/credit-cards');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });

    it('does not trip over a malformed escape in a path parameter', async () => {
      const res = await request(buildApp(express).app).options('/v1/vault/credit-cards/%E0%A4%A');
      expect([204, 400]).toContain(res.status);
      expect(res.status).not.toBe(500);
    });
  });

  describe('route paths of every syntax', () => {
    // Express answers OPTIONS itself, from the same route matching, when allowedMethods() is
    // absent: the two must list the same methods for any path, whatever the routes' syntax.
    const routes: [string, string][] =
      version.name === 'express4'
        ? [
            ['/Things/:id', 'put'],
            ['/things/', 'post'],
            ['/ab?cd', 'patch'],
            ['/items/:id?', 'delete'],
            ['/file.:ext?', 'put'],
            ['/x/*', 'post'],
            ['/things-1', 'patch'],
            ['/things-14/:id', 'delete'],
          ]
        : [
            ['/Things/:id', 'put'],
            ['/things/', 'post'],
            ['/items{/:id}', 'delete'],
            ['/file{.:ext}', 'put'],
            ['/x/*rest', 'post'],
            ['/things-1', 'patch'],
            ['/things-14/:id', 'delete'],
          ];
    function withRoutes(checked: boolean) {
      const app = express();
      if (checked) app.use(allowedMethods());
      const router = express.Router();
      for (const [path, method] of routes) {
        (router as unknown as Record<string, (p: string, h: () => void) => void>)[method]!(
          path,
          () => {},
        );
      }
      app.use('/v1', router);
      return app;
    }
    const methods = (allow: string | undefined) =>
      (allow ?? '')
        .split(', ')
        .filter((method) => method !== '' && method !== 'OPTIONS' && method !== 'HEAD')
        .sort();

    it.each([
      '/v1/things',
      '/v1/things/',
      '/v1/THINGS/abc',
      '/v1/Things/abc/',
      '/v1/acd',
      '/v1/abcd',
      '/v1/items',
      '/v1/items/3',
      '/v1/file',
      '/v1/file.json',
      '/v1/x/y/z',
      '/v1/things-1',
      '/v1/things-14',
      '/v1/things-14/T-1',
      '/v1/Things-14/T-1/',
      '/v1/nothing',
    ])('lists what Express lists for OPTIONS %s', async (path) => {
      const own = await request(withRoutes(false)).options(path);
      const ours = await request(withRoutes(true)).options(path);
      expect(ours.status).toBe(own.status === 200 ? 204 : own.status);
      expect(methods(ours.headers.allow)).toEqual(methods(own.headers.allow));
    });
  });

  describe('a method every route serves (answered without walking the routes)', () => {
    const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
    const PATHS = [
      '/v1/things-0',
      '/v1/things-14/T-1',
      '/v1/THINGS-3/x/',
      '/v1/things-1/a/b',
      '/v1/other',
      '/v1/items/7',
      '/v2/things-0',
      '/v1/things-2/%E0%A4%A',
    ];

    /** GET (and HEAD) on every route, as in the benchmark; `mixed` adds a POST-only route. */
    function app(mixed: boolean) {
      const built = express();
      built.use(allowedMethods());
      const v1 = express.Router();
      for (let index = 0; index < 4; index++) {
        v1.get(`/things-${index}`, (_req, res) => res.json({ items: [] }));
        v1.route(`/things-${index}/:id`)
          .get((_req, res) => res.json({}))
          .delete((_req, res) => res.status(204).end());
      }
      if (mixed) v1.post('/items/:id', (_req, res) => res.status(201).json({}));
      built.use('/v1', v1);
      built.use(notFoundHandler());
      built.use(errorHandler());
      return built;
    }

    /** What the walk of the routes (servedMethods) decides for the request. */
    function walkRefuses(built: unknown, method: string, path: string) {
      const served = servedMethods(built, path, method);
      return !(
        served.anyMethod ||
        served.methods.size === 0 ||
        served.methods.has(method) ||
        (method === 'HEAD' && served.methods.has('GET'))
      );
    }

    it.each([false, true])(
      'answers 405 exactly where the walk of the routes does (with a POST-only route: %s)',
      async (mixed) => {
        const built = app(mixed);
        for (const method of METHODS) {
          for (const path of PATHS) {
            const res = await request(built)[method.toLowerCase() as 'get'](path);
            const refused = path.includes('%E0') ? false : walkRefuses(built, method, path);
            if (refused) expect(res.status, `${method} ${path}`).toBe(405);
            else expect(res.status, `${method} ${path}`).not.toBe(405);
          }
        }
      },
    );

    it('answers 405 with the walk’s Allow, and nothing else, in an app of every kind of route', async () => {
      // Nested routers, a router mounted twice, .all() routes, plain middleware, a versioned
      // dispatcher, routes serving one method or several: every method on every path below
      // answers as the walk of all the routes says.
      const v2 = express.Router();
      v2.patch('/things/:id', (_req, res) => res.status(204).end());
      v2.get('/things', (_req, res) => res.json([]));
      const dispatcher = Object.assign(
        function dispatch(_req: unknown, _res: unknown, next: () => void) {
          next();
        },
        {
          [Symbol.for('@resourceful/versioned-router/versions')]: Object.freeze([
            Object.freeze({ name: 'v2', prefix: '/v2', handler: v2 }),
          ]),
        },
      );
      const shared = express.Router();
      shared.delete('/:id', (_req, res) => res.status(204).end());
      const mounts = express.Router();
      mounts.use('/a', shared);
      mounts.use('/b', shared);
      mounts.post('/b/:id/copy', (_req, res) => res.status(201).json({}));
      const { app: built } = buildApp(express, { help: HELP }, (app) => {
        app.use(dispatcher);
        app.use('/m', mounts);
      });
      const paths = [
        '/v1/vault/credit-cards',
        '/v1/vault/credit-cards/',
        '/v1/vault/credit-cards/CARD-1',
        '/v1/vault/credit-cards/CARD-1/suspend',
        '/v1/vault/credit-cards/CARD-1/other',
        '/V1/VAULT/credit-cards/x',
        '/anything',
        '/proxy/x',
        '/v2/things',
        '/v2.0/things/7',
        '/v3/things/7',
        '/m/a/1',
        '/m/b/1',
        '/m/b/1/copy',
        '/nowhere',
      ];
      for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const) {
        for (const path of paths) {
          const res = await request(built)[method.toLowerCase() as 'get'](path);
          const label = `${method} ${path}`;
          if (walkRefuses(built, method, path)) {
            expect(res.status, label).toBe(405);
            expect(res.headers.allow, label).toBe(allowList(servedMethods(built, path)).join(', '));
          } else {
            expect(res.status, label).not.toBe(405);
          }
        }
      }
    });

    it('sees a route added after the first request (app, router, route)', async () => {
      const built = express();
      built.use(allowedMethods());
      built.get('/cards', (_req, res) => res.json([]));
      const v1 = express.Router();
      v1.get('/things', (_req, res) => res.json([]));
      built.use('/v1', v1);
      built.use(errorHandler());
      expect((await request(built).get('/cards')).status).toBe(200);
      expect((await request(built).get('/v1/things')).status).toBe(200);

      // GET no longer served everywhere: a POST-only route on the app …
      built.post('/payments', (_req, res) => res.status(201).json({}));
      const onApp = await request(built).get('/payments');
      expect(onApp.status).toBe(405);
      expect(onApp.headers.allow).toBe('POST, OPTIONS');

      // … in a router mounted before …
      v1.put('/settings', (_req, res) => res.status(204).end());
      const inRouter = await request(built).head('/v1/settings');
      expect(inRouter.status).toBe(405);
      expect(inRouter.headers.allow).toBe('PUT, OPTIONS');

      // … and a method added to a route the app already had.
      const route = v1.route('/late');
      expect((await request(built).delete('/v1/late')).status).not.toBe(405);
      route.patch((_req, res) => res.status(204).end());
      const onRoute = await request(built).delete('/v1/late');
      expect(onRoute.status).toBe(405);
      expect(onRoute.headers.allow).toBe('PATCH, OPTIONS');
    });

    it('sees a router stack replaced by another array of the same length', async () => {
      const built = express();
      built.use(allowedMethods());
      const v1 = express.Router();
      v1.get('/things', (_req, res) => res.json([]));
      built.use('/v1', v1);
      built.use(errorHandler());
      expect((await request(built).get('/v1/things')).status).toBe(200);
      // Not Express API, but done: the old array keeps its length, the router has another.
      const donor = express.Router();
      donor.post('/payments', (_req, res) => res.status(201).json({}));
      v1.stack = [...donor.stack];
      const res = await request(built).get('/v1/payments');
      expect(res.status).toBe(405);
      expect(res.headers.allow).toBe('POST, OPTIONS');
    });
  });

  describe('with cors in front', () => {
    function withCors(preflightContinue: boolean) {
      const app = express();
      app.use(cors({ origin: 'https://shop.example', preflightContinue }));
      app.use(allowedMethods({ help: HELP }));
      app.get('/things', (_req, res) => res.json([]));
      return app;
    }

    it('leaves the preflight to cors', async () => {
      const res = await request(withCors(false))
        .options('/things')
        .set('Origin', 'https://shop.example')
        .set('Access-Control-Request-Method', 'GET');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
      expect(res.headers['access-control-allow-methods']).toBe('GET,HEAD,PUT,PATCH,POST,DELETE');
      expect(res.headers.allow).toBeUndefined();
    });

    it('keeps cors headers when cors lets the preflight continue', async () => {
      const res = await request(withCors(true))
        .options('/things')
        .set('Origin', 'https://shop.example')
        .set('Access-Control-Request-Method', 'GET');
      expect(res.status).toBe(204);
      expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    });

    it('answers a plain OPTIONS with Allow and the CORS origin header', async () => {
      const res = await request(withCors(false))
        .options('/things')
        .set('Origin', 'https://shop.example');
      expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
    });
  });
});

describe('servedMethods', () => {
  it('reads a versioned-router style dispatcher through its registered symbol', async () => {
    const express = (await import('express')).default;
    const v2 = express.Router();
    v2.patch('/things/:id', (_req, res) => res.end());
    const dispatcher = Object.assign(() => undefined, {
      [Symbol.for('@resourceful/versioned-router/versions')]: [
        { name: 'v2', prefix: '/v2', handler: v2 },
      ],
    });
    const app = express();
    app.use(dispatcher);
    expect(allowList(servedMethods(app, '/v2/things/1'))).toEqual(['PATCH', 'OPTIONS']);
    expect(allowList(servedMethods(app, '/v2.0/things/1'))).toEqual(['PATCH', 'OPTIONS']);
    expect(allowList(servedMethods(app, '/v3/things/1'))).toEqual([]);
  });

  it('stops walking once the asked method is found, and walks everything otherwise', async () => {
    const express = (await import('express')).default;
    const app = express();
    app.get('/x', (_req, res) => res.end());
    app.post('/x', (_req, res) => res.end());
    expect([...servedMethods(app, '/x', 'HEAD').methods]).toEqual(['GET']);
    expect([...servedMethods(app, '/x', 'DELETE').methods]).toEqual(['GET', 'POST']);
    expect([...servedMethods(app, '/x').methods]).toEqual(['GET', 'POST']);
  });

  it('orders extension methods after the standard ones', () => {
    expect(allowList({ methods: new Set(['PURGE', 'DELETE', 'GET']), anyMethod: false })).toEqual([
      'GET',
      'HEAD',
      'DELETE',
      'OPTIONS',
      'PURGE',
    ]);
  });

  it.each([
    [{ help: 'not a <url>' }, /"help" must be a URL/],
    [{ help: 5 }, /"help" must be a URL/],
    [{ help: [] }, /"help" must be at least one URL/],
    [{ help: [HELP, 'not a <url>'] }, /"help" must be a URL/],
    [{ hlep: HELP }, /Did you mean "help"/],
  ])('refuses %o', (options, message) => {
    expect(() => allowedMethods(options as AllowedMethodsOptions)).toThrow(message);
  });
});
