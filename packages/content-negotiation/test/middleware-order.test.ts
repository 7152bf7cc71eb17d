import { conditionalRequests } from '@resourceful/conditional-requests';
import { errorHandler, notFoundHandler } from '@resourceful/error-envelope';
import { describeEachExpress, type ExpressModule } from '@resourceful/test-support';
import { versionedRouter } from '@resourceful/versioned-router';
import compression from 'compression';
import type { Express } from 'express';
import { describe, expect, it } from 'vitest';
import {
  assertContentNegotiationOrder,
  checkContentNegotiationOrder,
  contentNegotiation,
} from '../src/index.js';

type Build = (app: Express, express: ExpressModule) => void;

function built(express: ExpressModule, build: Build): Express {
  const app = express();
  build(app, express);
  app.use(notFoundHandler());
  app.use(errorHandler());
  return app;
}

function rulesOf(express: ExpressModule, build: Build): string[] {
  return checkContentNegotiationOrder(built(express, build)).map((finding) => finding.rule);
}

const route: Build = (app) => {
  app.get('/cards', (_req, res) => {
    res.json([]);
  });
};

describeEachExpress('checkContentNegotiationOrder', (express) => {
  describe('passes the order the README gives', () => {
    it.each<[string, Build]>([
      [
        'negotiation, body parser, conditional requests, routes',
        (app, ex) => {
          app.use(contentNegotiation());
          app.use(ex.json());
          app.use(conditionalRequests());
          route(app, ex);
        },
      ],
      [
        'routes with fixed media types and a path-scoped parser first, the API after',
        (app, ex) => {
          app.get('/readme', (_req, res) => {
            res.type('text/markdown').send('# API');
          });
          app.use('/graphql', ex.json(), (_req, res) => {
            res.json({ data: null });
          });
          app.use(contentNegotiation());
          app.use(ex.json());
          route(app, ex);
        },
      ],
      [
        'the API in a versioned router, conditional requests inside it',
        (app, ex) => {
          app.use(contentNegotiation());
          const v1 = ex.Router();
          v1.use(conditionalRequests());
          v1.get('/cards', (_req, res) => {
            res.json([]);
          });
          app.use(versionedRouter({ versions: { v1 } }));
        },
      ],
      [
        'negotiation inside a router mounted on every path',
        (app, ex) => {
          const api = ex.Router();
          api.use(contentNegotiation());
          api.use(ex.json());
          api.get('/cards', (_req, res) => {
            res.json([]);
          });
          app.use(api);
        },
      ],
    ])('%s', (_title, build) => {
      expect(checkContentNegotiationOrder(built(express, build))).toEqual([]);
      expect(() => assertContentNegotiationOrder(built(express, build))).not.toThrow();
    });
  });

  describe('finds a wrong order', () => {
    it.each<[string, Build, string[]]>([
      [
        'conditionalRequests() first',
        (app, ex) => {
          app.use(conditionalRequests());
          app.use(contentNegotiation());
          route(app, ex);
        },
        ['after-conditional-requests'],
      ],
      [
        'conditionalRequests() first on one path',
        (app, ex) => {
          app.use('/cards', conditionalRequests());
          app.use(contentNegotiation());
          route(app, ex);
        },
        ['after-conditional-requests'],
      ],
      [
        'express.json() first',
        (app, ex) => {
          app.use(ex.json());
          app.use(contentNegotiation());
          route(app, ex);
        },
        ['after-body-parser'],
      ],
      [
        'express.urlencoded() first, inside a router on every path',
        (app, ex) => {
          const parsers = ex.Router();
          parsers.use(ex.urlencoded({ extended: false }));
          app.use(parsers);
          app.use(contentNegotiation());
          route(app, ex);
        },
        ['after-body-parser'],
      ],
      [
        'compression() first',
        (app, ex) => {
          app.use(compression());
          app.use(contentNegotiation());
          route(app, ex);
        },
        ['after-compression'],
      ],
      [
        'after every route',
        (app, ex) => {
          route(app, ex);
          app.use(contentNegotiation());
        },
        ['after-routes'],
      ],
      [
        'after the versioned router',
        (app, ex) => {
          const v1 = ex.Router();
          v1.get('/cards', (_req, res) => {
            res.json([]);
          });
          app.use(versionedRouter({ versions: { v1 } }));
          app.use(contentNegotiation());
        },
        ['after-routes'],
      ],
      [
        'everything wrong at once',
        (app, ex) => {
          app.use(ex.json());
          app.use(conditionalRequests());
          route(app, ex);
          app.use(contentNegotiation());
        },
        ['after-body-parser', 'after-conditional-requests', 'after-routes'],
      ],
      [
        'not mounted at all',
        (app, ex) => {
          app.use(ex.json());
          route(app, ex);
        },
        ['not-mounted'],
      ],
    ])('%s', (_title, build, rules) => {
      expect(rulesOf(express, build)).toEqual(rules);
    });

    it('names the layer in the way and says where the middleware goes', () => {
      const [finding] = checkContentNegotiationOrder(
        built(express, (app, ex) => {
          app.use(ex.json());
          app.use(contentNegotiation());
          route(app, ex);
        }),
      );
      expect(finding).toMatchObject({ rule: 'after-body-parser', middleware: 'jsonParser' });
      expect(finding?.message).toMatch(/must come before the body parsers/);
    });

    it('throws ERR_CONTENT_NEGOTIATION_ORDER with the findings from assertContentNegotiationOrder', () => {
      const app = built(express, (a, ex) => {
        a.use(conditionalRequests());
        a.use(contentNegotiation());
        route(a, ex);
      });
      let thrown: unknown;
      try {
        assertContentNegotiationOrder(app);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Error);
      expect(thrown).toMatchObject({
        code: 'ERR_CONTENT_NEGOTIATION_ORDER',
        findings: [{ rule: 'after-conditional-requests' }],
      });
    });
  });

  it('refuses what is not an Express app or router', () => {
    expect(() => checkContentNegotiationOrder({})).toThrow(/Express 4 or 5 application/);
  });
});
