import { describeEachExpress } from '@resourceful/test-support';
import { describe, expect, it } from 'vitest';
import {
  type CheckRoutesOptions,
  checkRoutes,
  DEFAULT_VERBS,
  isPluralWord,
  listRoutes,
} from '../src/check-routes.js';
import { versionedRouter } from '../src/index.js';

const noop = () => {};

describeEachExpress('checkRoutes', (express, version) => {
  /** An app with the example service's routes, mounted the ways apps mount routers. */
  function paymentsApp() {
    const v1 = express.Router();
    v1.route('/vault/credit-cards').get(noop).post(noop);
    v1.route('/vault/credit-cards/:id').get(noop).put(noop).patch(noop).delete(noop);
    v1.route('/customers/customers').get(noop).post(noop);
    v1.route('/customers/customers/:id').get(noop).put(noop).patch(noop).delete(noop);
    v1.route('/payments/billing-agreements').get(noop).post(noop);
    v1.route('/payments/billing-agreements/:id').get(noop).patch(noop);
    v1.post('/payments/billing-agreements/:id/suspend', noop);
    v1.get('/payments/billing-agreements/:id/history', noop);
    v1.post('/payments/search-billing-agreements', noop);
    v1.get('/payments/captures', noop);
    v1.post('/payments/captures/:capture_id/refund', noop);
    v1.get('/payments/refunds/:id', noop);
    v1.post('/risk/decisions', noop);
    v1.get('/risk/decisions/:id', noop);
    v1.post('/risk/evaluate', noop);
    const webhooks = express.Router({ mergeParams: true });
    webhooks.route('/').get(noop).post(noop);
    webhooks.route('/:id').get(noop).patch(noop).delete(noop);
    webhooks.get('/:id/event-types', noop);
    v1.use('/notifications/webhooks', webhooks);
    const app = express();
    app.use(versionedRouter({ versions: { v1 } }));
    return app;
  }

  const complexOperations: CheckRoutesOptions['complexOperations'] = [
    '/v1/payments/billing-agreements/{id}/suspend',
    '/v1/payments/search-billing-agreements',
    '/v1/payments/captures/:capture_id/refund',
    '/v1/risk/evaluate',
  ];

  it('lists every route with its mount paths joined', () => {
    const routes = listRoutes(paymentsApp());
    expect(routes).toHaveLength(31);
    expect(routes).toContainEqual({ method: 'GET', path: '/v1/notifications/webhooks' });
    expect(routes).toContainEqual({
      method: 'GET',
      path: '/v1/notifications/webhooks/:id/event-types',
    });
    expect(routes).toContainEqual({ method: 'POST', path: '/v1/risk/evaluate' });
  });

  it('finds nothing in the example service once its complex operations are declared', () => {
    expect(checkRoutes(paymentsApp(), { complexOperations })).toEqual([]);
  });

  it('finds the verbs of undeclared complex operations, one finding per method', () => {
    const findings = checkRoutes(paymentsApp());
    expect(findings.map((f) => `${f.method} ${f.path} ${f.rule}`)).toEqual([
      'POST /v1/payments/billing-agreements/:id/suspend verb-in-path',
      'POST /v1/payments/search-billing-agreements verb-in-path',
      'POST /v1/payments/captures/:capture_id/refund verb-in-path',
      'POST /v1/risk/evaluate verb-in-path',
    ]);
    expect(findings[0]?.message).toBe(
      '"suspend" contains the verb "suspend"; verbs are allowed only in complex operations (declare the route in complexOperations).',
    );
  });

  it('accepts bare segment names and RegExps as complex operations', () => {
    expect(
      checkRoutes(paymentsApp(), {
        complexOperations: ['suspend', 'refund', /search-/, /\/risk\/evaluate$/],
      }),
    ).toEqual([]);
  });

  function check(
    register: (router: ReturnType<typeof express.Router>) => void,
    options?: CheckRoutesOptions,
  ) {
    const router = express.Router();
    register(router);
    const app = express();
    app.use('/v1', router);
    return checkRoutes(app, options).map(({ method, path, rule }) => ({ method, path, rule }));
  }

  describe('plural collections', () => {
    it('reports a singular collection name', () => {
      expect(check((r) => r.get('/vault/credit-card/:id', noop))).toEqual([
        { method: 'GET', path: '/v1/vault/credit-card/:id', rule: 'plural-collection' },
      ]);
    });

    it('does not check the namespace', () => {
      expect(check((r) => r.get('/risk/decisions', noop))).toEqual([]);
    });

    it('accepts irregular plurals, "history" and names listed in allowSingular', () => {
      expect(check((r) => r.get('/hr/people/:id/children', noop))).toEqual([]);
      expect(check((r) => r.get('/hr/people/:id/history', noop))).toEqual([]);
      expect(check((r) => r.get('/hr/people/:id/profile', noop))).toHaveLength(1);
      expect(
        check((r) => r.get('/hr/people/:id/profile', noop), { allowSingular: ['profile'] }),
      ).toEqual([]);
    });

    it('flags singular nouns that end in "s"', () => {
      expect(check((r) => r.get('/jobs/jobs/:id/status', noop))).toEqual([
        { method: 'GET', path: '/v1/jobs/jobs/:id/status', rule: 'plural-collection' },
      ]);
    });
  });

  describe('verbs', () => {
    it('reports a verb in any word of a segment, in the namespace too', () => {
      expect(check((r) => r.post('/vault/cards/:id/batch_create', noop))).toEqual([
        { method: 'POST', path: '/v1/vault/cards/:id/batch_create', rule: 'verb-in-path' },
      ]);
      expect(check((r) => r.get('/getStuff/items', noop))).toEqual([
        { method: 'GET', path: '/v1/getStuff/items', rule: 'verb-in-path' },
      ]);
    });

    it('uses a custom verb list', () => {
      const verbs = [...DEFAULT_VERBS, 'approve', 'ship'];
      expect(check((r) => r.post('/orders/orders/:id/ship', noop), { verbs })).toEqual([
        { method: 'POST', path: '/v1/orders/orders/:id/ship', rule: 'verb-in-path' },
      ]);
      expect(check((r) => r.post('/orders/orders/:id/ships', noop), { verbs: ['ship'] })).toEqual(
        [],
      );
    });

    it('exempts only the last segment of a complex operation', () => {
      expect(
        check((r) => r.post('/orders/get-orders/:id/cancel', noop), {
          complexOperations: ['cancel'],
        }),
      ).toEqual([
        { method: 'POST', path: '/v1/orders/get-orders/:id/cancel', rule: 'verb-in-path' },
      ]);
    });
  });

  describe('identifiers', () => {
    it('reports more than two levels of identifiers', () => {
      expect(check((r) => r.get('/shop/stores/:a/shelves/:b/items/:c', noop))).toEqual([
        { method: 'GET', path: '/v1/shop/stores/:a/shelves/:b/items/:c', rule: 'identifier-depth' },
      ]);
      expect(
        check((r) => r.get('/shop/stores/:a/shelves/:b/items/:c', noop), { maxIdentifiers: 3 }),
      ).toEqual([]);
    });

    it('reports an identifier straight after another', () => {
      expect(check((r) => r.get('/shop/stores/:store_id/:shelf_id', noop))).toEqual([
        {
          method: 'GET',
          path: '/v1/shop/stores/:store_id/:shelf_id',
          rule: 'identifier-after-identifier',
        },
      ]);
    });

    it('counts identifiers from mount paths with parameters', () => {
      const items = express.Router({ mergeParams: true });
      items.get('/items/:item_id/parts/:part_id', noop);
      const app = express();
      app.use('/v1/shop/stores/:store_id', items);
      expect(checkRoutes(app).map((f) => [f.path, f.rule])).toEqual([
        ['/v1/shop/stores/:store_id/items/:item_id/parts/:part_id', 'identifier-depth'],
      ]);
    });
  });

  describe('the version prefix', () => {
    it('reports routes outside a version, unless turned off or ignored', () => {
      const app = express();
      app.get('/health', noop);
      app.get('/v1/things/things', noop);
      expect(checkRoutes(app).map((f) => [f.path, f.rule])).toEqual([
        ['/health', 'version-prefix'],
      ]);
      expect(checkRoutes(app, { requireVersion: false })).toEqual([]);
      expect(checkRoutes(app, { ignore: ['/health'] })).toEqual([]);
      expect(checkRoutes(app, { ignore: [/^\/health$/] })).toEqual([]);
    });

    it('accepts the major.minor form', () => {
      const app = express();
      app.get('/v1.0/things/things', noop);
      expect(checkRoutes(app)).toEqual([]);
    });
  });

  describe('Express internals', () => {
    it('reads routers given directly, arrays of paths, .all() and mounts at several paths', () => {
      const router = express.Router();
      router.all('/things/things', noop);
      router.get(['/a/items', '/b/items'], noop);
      const app = express();
      app.use(['/v1', '/v2'], router);
      expect(listRoutes(app)).toEqual([
        { method: 'ALL', path: '/v1/things/things' },
        { method: 'GET', path: '/v1/a/items' },
        { method: 'GET', path: '/v1/b/items' },
        { method: 'ALL', path: '/v2/things/things' },
        { method: 'GET', path: '/v2/a/items' },
        { method: 'GET', path: '/v2/b/items' },
      ]);
      expect(listRoutes(router)).toHaveLength(3);
    });

    it('skips RegExp paths and plain middleware', () => {
      const app = express();
      app.use((_req, _res, next) => next());
      app.get(/^\/v1\/anything/, noop);
      app.get('/v1/ok/items', noop);
      expect(listRoutes(app)).toEqual([{ method: 'GET', path: '/v1/ok/items' }]);
    });

    it('reads an app without routes and the versionedRouter middleware itself', () => {
      expect(listRoutes(express())).toEqual([]);
      const v1 = express.Router();
      v1.get('/things/things', noop);
      expect(listRoutes(versionedRouter({ versions: { v1 } }))).toEqual([
        { method: 'GET', path: '/v1/things/things' },
      ]);
    });

    it('survives a router mounted inside itself', () => {
      const router = express.Router();
      router.get('/things/things', noop);
      router.use('/again', router);
      const app = express();
      app.use('/v1', router);
      expect(listRoutes(app)).toEqual([{ method: 'GET', path: '/v1/things/things' }]);
    });

    it(`reads ${version.major === 4 ? 'optional and wildcard parameters' : 'optional groups and splats'}`, () => {
      const router = express.Router();
      if (version.major === 4) {
        router.get('/files/files/:id?', noop);
        router.get('/files/files/:id/*', noop);
      } else {
        router.get('/files/files{/:id}', noop);
        router.get('/files/files/:id/*rest', noop);
      }
      const app = express();
      app.use('/v1', router);
      expect(checkRoutes(app)).toEqual([]);
    });

    it('refuses something that is not an app or router', () => {
      expect(() => checkRoutes({})).toThrow(/expected an Express 4 or 5 application or router/);
    });
  });
});

describe('checkRoutes options', () => {
  const router = { stack: [] };

  it.each([
    [
      { complexOperation: [] },
      /unknown option "complexOperation". Did you mean "complexOperations"\?/,
    ],
    [{ verbs: 'get' }, /"verbs" must be an array of strings/],
    [{ allowSingular: [1] }, /"allowSingular" must be an array of strings/],
    [
      { complexOperations: [''] },
      /"complexOperations" must be a list of paths, segment names or RegExps/,
    ],
    [{ ignore: 'x' }, /"ignore" must be an array/],
    [{ requireVersion: 'yes' }, /"requireVersion" must be true or false/],
    [{ maxIdentifiers: -1 }, /"maxIdentifiers" must be a whole number/],
    [{ maxIdentifiers: null }, /"maxIdentifiers" must be a whole number, got null/],
    [{ maxIdentifiers: Number.NaN }, /"maxIdentifiers" must be a whole number, got NaN/],
  ])('refuses %j', (options, message) => {
    expect(() => checkRoutes(router, options as CheckRoutesOptions)).toThrow(message);
  });
});

describe('isPluralWord', () => {
  it.each([
    ['cards', true],
    ['agreements', true],
    ['people', true],
    ['data', true],
    ['card', false],
    ['status', false],
    ['address', false],
    ['addresses', true],
    ['class', false],
    ['s', false],
  ])('%s → %s', (word, plural) => {
    expect(isPluralWord(word)).toBe(plural);
  });
});
