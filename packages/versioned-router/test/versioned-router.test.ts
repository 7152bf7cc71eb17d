import { request as httpRequest } from 'node:http';
import { errorHandler, notFoundHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope, listen } from '@resourceful/test-support';
import type { Request, Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { type VersionedRouterOptions, versionedRouter } from '../src/index.js';

describeEachExpress('versionedRouter', (express) => {
  function versionRouter(name: string) {
    const router = express.Router();
    router.get('/vault/credit-cards', (req: Request, res: Response) => {
      res.json({ version: name, url: req.url, baseUrl: req.baseUrl, originalUrl: req.originalUrl });
    });
    router.get('/vault/credit-cards/:id', (req: Request, res: Response) => {
      res.json({ version: name, id: req.params.id, query: req.query });
    });
    router.get('/boom', () => {
      throw new Error('version router failed');
    });
    return router;
  }

  function app(options: Partial<VersionedRouterOptions> = {}) {
    const app = express();
    app.use(
      versionedRouter({
        versions: { v1: versionRouter('v1'), 'v2.1': versionRouter('v2.1') },
        ...options,
      }),
    );
    app.get('/health', (req: Request, res: Response) => {
      res.json({ ok: true, url: req.url });
    });
    app.use(notFoundHandler());
    app.use(errorHandler({ onError: () => {} }));
    return app;
  }

  describe('mounting', () => {
    it('runs the version router with the prefix removed, as app.use("/v1") would', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?page=2');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        version: 'v1',
        url: '/vault/credit-cards?page=2',
        baseUrl: '/v1',
        originalUrl: '/v1/vault/credit-cards?page=2',
      });
    });

    it('passes path parameters and the query through', async () => {
      const res = await request(app()).get('/v2.1/vault/credit-cards/CARD-7?x=1');
      expect(res.body).toEqual({ version: 'v2.1', id: 'CARD-7', query: { x: '1' } });
    });

    it('restores req.url for the routes after it', async () => {
      const res = await request(app()).get('/health');
      expect(res.body).toEqual({ ok: true, url: '/health' });
    });

    it('answers the app 404 for an unknown path under a served version', async () => {
      const res = await request(app()).get('/v1/vault/unknown');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });

    it('answers the app 404 for the bare version path', async () => {
      expectErrorEnvelope(await request(app()).get('/v1'), 404, { code: 'NOT_FOUND' });
    });

    it('routes errors of the version router to the error handler', async () => {
      expectErrorEnvelope(await request(app()).get('/v1/boom'), 500, {
        code: 'INTERNAL_SERVER_ERROR',
      });
    });

    it('keeps concurrent requests to different versions apart', async () => {
      const server = app();
      const paths = Array.from({ length: 40 }, (_, i) =>
        i % 2 === 0 ? `/v1/vault/credit-cards/C${i}` : `/v2.1/vault/credit-cards/C${i}`,
      );
      const answers = await Promise.all(paths.map((path) => request(server).get(path)));
      answers.forEach((res, i) => {
        expect(res.body).toMatchObject({ version: i % 2 === 0 ? 'v1' : 'v2.1', id: `C${i}` });
      });
    });

    it('handles an absolute-form request target', async () => {
      const running = await listen(app());
      try {
        const body = await new Promise<string>((resolve, reject) => {
          const req = httpRequest(
            {
              host: '127.0.0.1',
              port: running.port,
              path: `${running.url}/v1/vault/credit-cards?x=1`,
            },
            (res) => {
              let text = '';
              res.setEncoding('utf8');
              res.on('data', (chunk: string) => {
                text += chunk;
              });
              res.on('end', () => resolve(text));
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect(JSON.parse(body)).toMatchObject({ version: 'v1', baseUrl: '/v1' });
      } finally {
        await running.close();
      }
    });

    it('works when mounted under a path', async () => {
      const outer = express();
      outer.use('/api-root', versionedRouter({ versions: { v1: versionRouter('v1') } }));
      const res = await request(outer).get('/api-root/v1/vault/credit-cards');
      expect(res.body).toMatchObject({ baseUrl: '/api-root/v1', url: '/vault/credit-cards' });
    });

    it('accepts plain (req, res, next) handlers, sync throws and async rejections', async () => {
      const outer = express();
      outer.use(
        versionedRouter({
          versions: {
            v1: (_req, res) => {
              res.end('plain');
            },
            v2: () => {
              throw new Error('sync');
            },
            v3: async () => {
              throw new Error('async');
            },
          },
        }),
      );
      outer.use(errorHandler({ onError: () => {} }));
      expect((await request(outer).get('/v1/x')).text).toBe('plain');
      expectErrorEnvelope(await request(outer).get('/v2/x'), 500);
      expectErrorEnvelope(await request(outer).get('/v3/x'), 500);
    });

    it('routes the rejection of a thenable that is no native promise, as Express 5 does', async () => {
      const outer = express();
      const thenable = {
        // biome-ignore lint/suspicious/noThenProperty: the promise-like a handler may return
        then(_onFulfilled: unknown, onRejected: (reason: unknown) => void) {
          onRejected(new Error('thenable rejected'));
        },
      };
      outer.use(versionedRouter({ versions: { v1: () => thenable } }));
      outer.use((_req: unknown, res: { end: (body: string) => void }) => res.end('next route'));
      outer.use(errorHandler({ onError: () => {} }));
      expectErrorEnvelope(await request(outer).get('/v1/x'), 500);
    });

    it.each([
      ['an empty string', ''],
      ['0', 0],
      ['false', false],
      ['undefined', undefined],
    ])(
      'answers 500 for a rejection with %s, as Express 5 does, not the next route',
      async (_name, reason) => {
        const outer = express();
        outer.use(
          versionedRouter({
            versions: {
              v1: () => Promise.reject(reason),
            },
          }),
        );
        outer.use((_req: unknown, res: { end: (body: string) => void }) => res.end('next route'));
        outer.use(errorHandler({ onError: () => {} }));
        expectErrorEnvelope(await request(outer).get('/v1/x'), 500);
      },
    );
  });

  describe('v1 and v1.0', () => {
    it('answers /v1.0 with the router declared as v1', async () => {
      const res = await request(app()).get('/v1.0/vault/credit-cards');
      expect(res.body).toMatchObject({ version: 'v1', baseUrl: '/v1.0' });
    });

    it('answers /v2 and /v2.0 with neither a v2.1 router', async () => {
      for (const path of ['/v2/vault/credit-cards', '/v2.0/vault/credit-cards']) {
        expectErrorEnvelope(await request(app()).get(path), 400, { code: 'UNSUPPORTED_VERSION' });
      }
    });

    it('answers /v1 with the router declared as v1.0', async () => {
      const outer = express();
      outer.use(versionedRouter({ versions: { 'v1.0': versionRouter('v1.0') } }));
      const res = await request(outer).get('/v1/vault/credit-cards');
      expect(res.body).toMatchObject({ version: 'v1.0', baseUrl: '/v1' });
    });

    it('matches the version segment case-insensitively, as Express routes do', async () => {
      const res = await request(app()).get('/V1/vault/credit-cards');
      expect(res.body).toMatchObject({ version: 'v1', baseUrl: '/V1' });
    });
  });

  describe('unsupported versions', () => {
    it.each([
      '/v2',
      '/v9/vault/credit-cards',
      '/v0/x',
      '/v1.1/x',
      '/v01/vault/credit-cards',
      '/v1.00/x',
    ])('answers 400 UNSUPPORTED_VERSION for %s, listing the served versions', async (path) => {
      const res = await request(app()).post(path).send({});
      expectErrorEnvelope(res, 400, { code: 'UNSUPPORTED_VERSION', target: 'version' });
      expect(res.body.error.details).toEqual([
        { code: 'UNSUPPORTED_VERSION', message: 'Version v1 is served.', target: 'v1' },
        { code: 'UNSUPPORTED_VERSION', message: 'Version v2.1 is served.', target: 'v2.1' },
      ]);
      expect(res.body.error.message).toMatch(/Served versions: v1, v2.1\./);
    });

    it('does not echo a long version segment', async () => {
      const res = await request(app()).get(`/v${'9'.repeat(5000)}/x`);
      expectErrorEnvelope(res, 400, { code: 'UNSUPPORTED_VERSION' });
      expect(res.body.error.message).not.toMatch(/9999/);
    });

    it.each([
      '/vault/credit-cards',
      '/version/x',
      '/v/x',
      '/v1x/y',
      '/va/x',
      '/v-1/x',
      '//v9/x',
      '/%76%39/x',
    ])('leaves %s to the app 404', async (path) => {
      expectErrorEnvelope(await request(app()).get(path), 404, { code: 'NOT_FOUND' });
    });
  });

  describe('discovery', () => {
    it('answers GET /api with the versions in declared order', async () => {
      const res = await request(app()).get('/api');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual({ versions: ['v1', 'v2.1'] });
    });

    it('answers HEAD without a body and /api/ like /api', async () => {
      const head = await request(app()).head('/api');
      expect(head.status).toBe(200);
      expect(head.text).toBeUndefined();
      expect((await request(app()).get('/api/?x=1')).body).toEqual({ versions: ['v1', 'v2.1'] });
    });

    it('answers 405 with Allow to other methods', async () => {
      const res = await request(app()).post('/api');
      expectErrorEnvelope(res, 405, { code: 'METHOD_NOT_ALLOWED' });
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
    });

    it('answers OPTIONS with 204 and the methods it allows', async () => {
      const res = await request(app()).options('/api');
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(res.headers.link).toBeUndefined();
      expect(res.text).toBe('');
    });

    it('links the documentation from its OPTIONS answer with rel help', async () => {
      const res = await request(app({ help: '/v1/docs' })).options('/api');
      expect(res.status).toBe(204);
      expect(res.headers.link).toBe('</v1/docs>; rel="help"');
      expect((await request(app({ help: '/v1/docs' })).get('/api')).headers.link).toBeUndefined();
      const both = await request(app({ help: ['/v1/docs', '/v1/openapi.json'] })).options('/api');
      expect(both.headers.link).toBe('</v1/docs>; rel="help", </v1/openapi.json>; rel="help"');
    });

    it('moves with discoveryPath and can be turned off', async () => {
      const moved = app({ discoveryPath: '/versions' });
      expect((await request(moved).get('/versions')).body).toEqual({ versions: ['v1', 'v2.1'] });
      expectErrorEnvelope(await request(moved).get('/api'), 404);
      expectErrorEnvelope(await request(app({ discoveryPath: false })).get('/api'), 404);
    });

    it('leaves paths below the discovery path alone', async () => {
      expectErrorEnvelope(await request(app()).get('/api/v1'), 404);
    });

    it('matches the discovery path case-insensitively, and only it', async () => {
      expect((await request(app()).get('/API/')).body).toEqual({ versions: ['v1', 'v2.1'] });
      for (const path of ['/apis', '/ap', '/api//', '/%C4%B0pi']) {
        expectErrorEnvelope(await request(app()).get(path), 404);
      }
    });
  });

  describe('version by header', () => {
    const withHeader = () => app({ header: 'Api-Version' });

    it('selects the version for a path without a version segment', async () => {
      const res = await request(withHeader()).get('/vault/credit-cards').set('Api-Version', 'v2.1');
      expect(res.body).toMatchObject({ version: 'v2.1', url: '/vault/credit-cards', baseUrl: '' });
      expect(res.headers.vary).toBe('Api-Version');
    });

    it('merges Api-Version into the Vary other middleware set, as res.vary() would', async () => {
      const server = express();
      server.use((_req: Request, res: Response, next: () => void) => {
        res.setHeader('Vary', 'Accept,origin, API-VERSION-X');
        next();
      });
      server.use(versionedRouter({ versions: { v1: versionRouter('v1') }, header: 'Api-Version' }));
      const res = await request(server).get('/vault/credit-cards').set('Api-Version', '1');
      expect(res.headers.vary).toBe('Accept,origin, API-VERSION-X, Api-Version');
    });

    it('accepts 1, 1.0, v1.0 and surrounding whitespace', async () => {
      for (const value of ['1', '1.0', 'v1.0', ' v1 ']) {
        const res = await request(withHeader())
          .get('/vault/credit-cards')
          .set('Api-Version', value);
        expect(res.body).toMatchObject({ version: 'v1' });
      }
    });

    it('accepts the same-named query parameter when the header is absent', async () => {
      const res = await request(withHeader()).get('/vault/credit-cards?api-version=v1');
      expect(res.body).toMatchObject({ version: 'v1' });
      const both = await request(withHeader())
        .get('/vault/credit-cards?Api-Version=v1')
        .set('Api-Version', 'v2.1');
      expect(both.body).toMatchObject({ version: 'v2.1' });
    });

    it('takes the query parameter out of the URL the version router sees', async () => {
      const res = await request(withHeader()).get('/vault/credit-cards?x=1&API-VERSION=v2.1');
      expect(res.body).toMatchObject({
        version: 'v2.1',
        url: '/vault/credit-cards?x=1',
        originalUrl: '/vault/credit-cards?x=1',
      });
    });

    it('answers 400 UNSUPPORTED_VERSION naming the header for an unknown version', async () => {
      for (const value of ['v3', 'latest', 'v1, v2.1', '__proto__', 'v', 'x'.repeat(2000)]) {
        const res = await request(withHeader())
          .get('/vault/credit-cards')
          .set('Api-Version', value);
        expectErrorEnvelope(res, 400, { code: 'UNSUPPORTED_VERSION', target: 'Api-Version' });
        expect(res.body.error.details).toHaveLength(2);
        expect(res.headers.vary).toBe('Api-Version');
      }
      const query = await request(withHeader()).get('/vault/credit-cards?Api-Version=v7');
      expectErrorEnvelope(query, 400, { code: 'UNSUPPORTED_VERSION', target: 'Api-Version' });
    });

    it('lets the path win over the header', async () => {
      const res = await request(withHeader())
        .get('/v1/vault/credit-cards')
        .set('Api-Version', 'v2.1');
      expect(res.body).toMatchObject({ version: 'v1' });
      expect(res.headers.vary).toBeUndefined();
    });

    it('falls through to the app without a header, or with an empty one', async () => {
      expect((await request(withHeader()).get('/health')).body).toEqual({
        ok: true,
        url: '/health',
      });
      const empty = await request(withHeader()).get('/health').set('Api-Version', '');
      expect(empty.body).toEqual({ ok: true, url: '/health' });
    });

    it('is off by default', async () => {
      const res = await request(app()).get('/vault/credit-cards').set('Api-Version', 'v1');
      expectErrorEnvelope(res, 404);
      expect(res.headers.vary).toBeUndefined();
    });
  });

  describe('deprecation', () => {
    const deprecatedApp = () => {
      const app = express();
      app.use((_req, res, next) => {
        res.setHeader('Link', '</v2/docs>; rel="help"');
        next();
      });
      app.use(
        versionedRouter({
          versions: {
            v1: {
              router: versionRouter('v1'),
              deprecation: {
                date: new Date('2023-06-30T23:59:59Z'),
                sunset: '2026-12-31T23:59:59Z',
                link: 'https://developer.example.com/migrate-to-v2',
              },
            },
            v2: { router: versionRouter('v2') },
          },
        }),
      );
      app.use(notFoundHandler());
      app.use(errorHandler({ onError: () => {} }));
      return app;
    };

    it('sends Deprecation, Sunset and the deprecation Link on every response of the version', async () => {
      for (const path of ['/v1/vault/credit-cards', '/v1/vault/unknown']) {
        const res = await request(deprecatedApp()).get(path);
        expect(res.headers.deprecation).toBe('@1688169599');
        expect(res.headers.sunset).toBe('Thu, 31 Dec 2026 23:59:59 GMT');
        expect(res.headers.link).toBe(
          '</v2/docs>; rel="help", <https://developer.example.com/migrate-to-v2>; rel="deprecation"',
        );
      }
    });

    it('sends none of them for other versions', async () => {
      const res = await request(deprecatedApp()).get('/v2/vault/credit-cards');
      expect(res.headers.deprecation).toBeUndefined();
      expect(res.headers.sunset).toBeUndefined();
      expect(res.headers.link).toBe('</v2/docs>; rel="help"');
    });
  });
});
