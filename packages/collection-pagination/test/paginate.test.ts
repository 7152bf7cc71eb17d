import { ApiError, errorHandler, parseErrorBody } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  rawRequestOnce,
} from '@resourceful/test-support';
import type { Request } from 'express';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import {
  type CollectionEnvelope,
  type DataSource,
  getCollectionQuery,
  memoryDataSource,
  type PaginateOptions,
  paginate,
  sendCollectionPage,
} from '../src/index.js';

interface Card {
  id: string;
  payer_id: string;
  state: string;
  number: string;
  create_time: string;
}

const cards: Card[] = Array.from({ length: 25 }, (_, index) => ({
  id: `CARD-${String(index + 1).padStart(2, '0')}`,
  payer_id: index % 2 === 0 ? 'P-EVEN' : 'P-ODD',
  state: index < 20 ? 'ok' : 'expired',
  number: `41111111111111${String(index).padStart(2, '0')}`,
  create_time: new Date(Date.UTC(2024, 0, index + 1)).toISOString(),
}));

const cardList: PaginateOptions<Card> = {
  source: memoryDataSource(cards),
  sortable: ['create_time'],
  filterable: ['payer_id', 'state'],
  timeSelectable: ['create_time'],
};

type Body = CollectionEnvelope<Card> & {
  links: Array<{ rel: string; href: string; method: string }>;
};

/** A collection answer read off the wire (the tests assert its shape). */
const collectionOf = (text: string) => JSON.parse(text) as Body;

function rels(body: Body): Record<string, string> {
  return Object.fromEntries(body.links.map((link) => [link.rel, link.href]));
}

describeEachExpress('paginate', (express) => {
  function app(
    options: PaginateOptions<Card, Request> = cardList,
    configure?: (app: ReturnType<typeof express>) => void,
  ) {
    const app = express();
    configure?.(app);
    app.get('/v1/vault/credit-cards', paginate(options));
    app.use(errorHandler());
    return app;
  }

  describe('a list request', () => {
    it('answers 200 with the collection envelope of the first page', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      const body = res.body as Body;
      expect(Object.keys(body)).toEqual(['items', 'total_items', 'total_pages', 'links']);
      expect(body.items.map((card) => card.id)).toEqual(cards.slice(0, 10).map((card) => card.id));
      expect(body.total_items).toBe(25);
      expect(body.total_pages).toBe(3);
      const host = `http://${res.request.url.split('/')[2]}`;
      expect(rels(body)).toEqual({
        self: `${host}/v1/vault/credit-cards?page=1&page_size=10`,
        first: `${host}/v1/vault/credit-cards?page=1&page_size=10`,
        next: `${host}/v1/vault/credit-cards?page=2&page_size=10`,
        last: `${host}/v1/vault/credit-cards?page=3&page_size=10`,
      });
      expect(body.links.every((link) => link.method === 'GET')).toBe(true);
    });

    it('answers the last page with previous and without next', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?page=3');
      const body = res.body as Body;
      expect(body.items).toHaveLength(5);
      expect(Object.keys(rels(body))).toEqual(['self', 'first', 'previous', 'last']);
    });

    it('filters, sorts and selects by time', async () => {
      const res = await request(app()).get(
        '/v1/vault/credit-cards?payer_id=P-ODD&state=ok&sort_by=create_time&sort_order=desc' +
          '&create_time_after=2024-01-05T00:00:00Z&page_size=3',
      );
      const body = res.body as Body;
      expect(body.items.map((card) => card.id)).toEqual(['CARD-20', 'CARD-18', 'CARD-16']);
      expect(body.total_items).toBe(8);
      expect(rels(body).next).toMatch(
        /\?payer_id=P-ODD&state=ok&sort_by=create_time&sort_order=desc&create_time_after=2024-01-05T00%3A00%3A00Z&page=2&page_size=3$/,
      );
    });

    it('pages with limit and offset and links in offsets', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?limit=4&offset=22');
      const body = res.body as Body;
      expect(body.items.map((card) => card.id)).toEqual(['CARD-23', 'CARD-24', 'CARD-25']);
      expect(rels(body).previous).toMatch(/\?offset=18&limit=4$/);
      expect(rels(body).next).toBeUndefined();
    });

    it('answers 200 with empty items and the totals when nothing matches', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?payer_id=NOBODY');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ items: [], total_items: 0, total_pages: 0 });
    });

    it('answers 200 with empty items for a page past the end', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?page=40');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ items: [], total_items: 25, total_pages: 3 });
      expect(Object.keys(rels(res.body as Body))).toEqual(['self', 'first', 'last']);
    });

    it('answers HEAD with the headers and no body', async () => {
      const res = await request(app()).head('/v1/vault/credit-cards');
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.text ?? '').toBe('');
    });

    it('answers concurrent requests each with its own page', async () => {
      const server = app();
      const pages = [1, 2, 3, 1, 2, 3, 1, 2, 3, 3];
      const responses = await Promise.all(
        pages.map((page) =>
          request(server).get(`/v1/vault/credit-cards?page=${page}&page_size=10`),
        ),
      );
      responses.forEach((res, index) => {
        const first = (res.body as Body).items[0]?.id;
        expect(first).toBe(cards[(pages[index]! - 1) * 10]?.id);
      });
    });
  });

  describe('invalid list parameters', () => {
    it.each([
      ['page=0', 'page'],
      ['page=-1', 'page'],
      ['page=1.5', 'page'],
      ['page=abc', 'page'],
      ['page=%E0%A4%A', 'page'],
      ['page=%zz', 'page'],
      ['page_size=0', 'page_size'],
      ['page_size=101', 'page_size'],
      ['sort_by=number', 'sort_by'],
      ['sort_by=create_time&sort_order=sideways', 'sort_order'],
      ['start_time=yesterday', 'start_time'],
      ['create_time_before=2024-13-01T00:00:00Z', 'create_time_before'],
      ['page=2&limit=5', 'limit'],
      ['offset=5&page=1', 'page'],
      ['page=1&page=2', 'page'],
      ['state=ok&state=expired', 'state'],
      ['number=4111111111111100', 'number'],
      ['__proto__[state]=ok', '__proto__[state]'],
      ['page[0]=1', 'page[0]'],
      ['total_required=maybe', 'total_required'],
    ])('answers 400 INVALID_REQUEST for ?%s naming %s', async (search, target) => {
      const source = { count: vi.fn(() => 0), fetchPage: vi.fn(() => []) };
      const res = await request(app({ ...cardList, source })).get(
        `/v1/vault/credit-cards?${search}`,
      );
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target });
      expect(source.count).not.toHaveBeenCalled();
      expect(source.fetchPage).not.toHaveBeenCalled();
    });

    it('names the cause in innererror', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?page=1&limit=5');
      expect(res.body.error.innererror).toEqual({ code: 'MIXED_PAGING_CONVENTIONS' });
    });

    it('answers 400 for a huge page number', async () => {
      const res = await request(app()).get(`/v1/vault/credit-cards?page=${'9'.repeat(400)}`);
      expectErrorEnvelope(res, 400, { target: 'page' });
    });
  });

  describe('links', () => {
    it('keep the mount path of a router', async () => {
      const server = express();
      const router = express.Router();
      router.get('/credit-cards', paginate(cardList));
      server.use('/v1/vault', router);
      server.use(errorHandler());
      const res = await request(server).get('/v1/vault/credit-cards?page=2');
      expect(new URL(rels(res.body as Body).next!).pathname).toBe('/v1/vault/credit-cards');
    });

    it('stay in the sortby/order convention when no position parameter was sent', async () => {
      const server = app();
      const res = await request(server).get('/v1/vault/credit-cards?sortby=create_time&order=asc');
      const next = rels(res.body as Body).next!;
      expect(new URL(next).searchParams.get('page_number')).toBe('2');
      expect(new URL(next).searchParams.has('page')).toBe(false);
      const followed = await request(server).get(new URL(next).pathname + new URL(next).search);
      expect(followed.status).toBe(200);
    });

    it('use X-Forwarded-Proto and X-Forwarded-Host from a trusted proxy', async () => {
      const server = app(cardList, (app) => app.set('trust proxy', 'loopback'));
      const res = await request(server)
        .get('/v1/vault/credit-cards')
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'api.example.com, internal.local');
      expect(rels(res.body as Body).next).toBe(
        'https://api.example.com/v1/vault/credit-cards?page=2&page_size=10',
      );
    });

    it('ignore X-Forwarded-* when the proxy is not trusted', async () => {
      const res = await request(app())
        .get('/v1/vault/credit-cards')
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'evil.example');
      expect(rels(res.body as Body).next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\//);
    });

    it('use the configured public base URL, with its path prefix', async () => {
      const res = await request(
        app({ ...cardList, publicBaseUrl: 'https://api.example.com/payments/' }),
      )
        .get('/v1/vault/credit-cards?page=2')
        .set('Host', 'internal:8080');
      expect(rels(res.body as Body).previous).toBe(
        'https://api.example.com/payments/v1/vault/credit-cards?page=1&page_size=10',
      );
    });

    it('take every Host error-envelope’s server check takes, such as a name with an underscore', async () => {
      const res = await request(app())
        .get('/v1/vault/credit-cards')
        .set('Host', 'payments_api:3000');
      expect(res.status).toBe(200);
      expect(rels(res.body as Body).self).toMatch(/^http:\/\/payments_api:3000\/v1\//);
    });

    it.each([
      'evil.example/path',
      'a b',
      'user@host',
      '',
      // Host-shaped, but no URL can hold them: a port over 65535, an IPv4 octet over 255, a
      // malformed IPv6 literal.
      'api.example:99999',
      '999.999.999.999',
      '1.2.3.256',
      '[::::]',
    ])('answer 400 for Host %j', async (host) => {
      const res = await request(app()).get('/v1/vault/credit-cards').set('Host', host);
      expectErrorEnvelope(res, 400, { target: 'Host' });
    });

    it.each([
      ['two lines', 'Host: a.example\r\nHost: b.example'],
      ['one value twice', 'Host: a.example\r\nHost: a.example'],
      ['names in other cases', 'host: a.example\r\nHOST: b.example'],
    ])('answer 400 REPEATED_HOST for Host sent as %s', async (_, lines) => {
      const { status, body } = await rawRequestOnce(
        app(),
        `GET /v1/vault/credit-cards HTTP/1.1\r\n${lines}`,
        parseErrorBody,
      );
      expect(status).toBe(400);
      expect(body).toMatchObject({
        code: 'INVALID_REQUEST',
        target: 'Host',
        innererror: { code: 'REPEATED_HOST' },
      });
    });

    it('answer 400 REPEATED_HOST for an HTTP/1.0 request too: no link can be built from it', async () => {
      const { status, body } = await rawRequestOnce(
        app(),
        'GET /v1/vault/credit-cards HTTP/1.0\r\nHost: a.example\r\nHost: b.example',
        parseErrorBody,
      );
      expect(status).toBe(400);
      expect(body).toMatchObject({ target: 'Host', innererror: { code: 'REPEATED_HOST' } });
    });

    it('use the authority of an absolute-form target, not Host (RFC 9112 §3.2.2)', async () => {
      const { status, body } = await rawRequestOnce(
        app(),
        'GET http://api.example:8080/v1/vault/credit-cards?page_size=5 HTTP/1.1\r\nHost: other.example',
        collectionOf,
      );
      expect(status).toBe(200);
      expect(rels(body).next).toBe(
        'http://api.example:8080/v1/vault/credit-cards?page=2&page_size=5',
      );
    });

    it('use the authority of an absolute-form target whatever Host lines come with it', async () => {
      const { status, body } = await rawRequestOnce(
        app(),
        'GET http://api.example/v1/vault/credit-cards HTTP/1.1\r\nHost: a b\r\nHost: c',
        collectionOf,
      );
      expect(status).toBe(200);
      expect(rels(body).next).toMatch(/^http:\/\/api\.example\/v1\/vault\/credit-cards\?/);
    });

    it('prefer a trusted X-Forwarded-Host to an absolute-form target', async () => {
      const server = app(cardList, (app) => app.set('trust proxy', 'loopback'));
      const { body } = await rawRequestOnce(
        server,
        'GET http://internal.example/v1/vault/credit-cards HTTP/1.1\r\nHost: internal.example\r\nX-Forwarded-Host: api.example.com',
        collectionOf,
      );
      expect(rels(body).next).toMatch(/^http:\/\/api\.example\.com\/v1\//);
    });

    it.each(['<script>', 'api.example:70000'])(
      'answer 400 for the X-Forwarded-Host %j from a trusted proxy',
      async (host) => {
        const server = app(cardList, (app) => app.set('trust proxy', 'loopback'));
        const res = await request(server)
          .get('/v1/vault/credit-cards')
          .set('X-Forwarded-Host', host);
        expectErrorEnvelope(res, 400, { target: 'X-Forwarded-Host' });
      },
    );

    it('keep and encode the other allowed parameters', async () => {
      const res = await request(app({ ...cardList, allowedParameters: ['callback'] })).get(
        '/v1/vault/credit-cards?callback=a%20b%3Cc%3E&page=1',
      );
      expect(new URL(rels(res.body as Body).next!).search).toBe(
        '?callback=a+b%3Cc%3E&page=2&page_size=10',
      );
    });
  });

  describe('options', () => {
    it('maps items to their summary form', async () => {
      const res = await request(
        app({
          ...cardList,
          summary: (card) => ({ id: card.id, number: `xxxx${card.number.slice(-4)}` }),
        }),
      ).get('/v1/vault/credit-cards?page_size=1');
      expect((res.body as Body).items).toEqual([{ id: 'CARD-01', number: 'xxxx1100' }]);
    });

    it('gives summary the request, for absolute item links', async () => {
      const res = await request(
        app({
          ...cardList,
          summary: (card, req) => ({
            id: card.id,
            href: `${req.protocol}://${req.get('host')}/v1/vault/credit-cards/${card.id}`,
          }),
        }),
      )
        .get('/v1/vault/credit-cards?page_size=1')
        .set('Host', 'api.example.com');
      expect((res.body as Body).items).toEqual([
        { id: 'CARD-01', href: 'http://api.example.com/v1/vault/credit-cards/CARD-01' },
      ]);
    });

    it('names the envelope and parameters in camelCase', async () => {
      const res = await request(
        app({ source: memoryDataSource(cards), naming: 'camelCase', filterable: ['state'] }),
      ).get('/v1/vault/credit-cards?pageSize=20&state=ok');
      expect(Object.keys(res.body)).toEqual(['items', 'totalItems', 'totalPages', 'links']);
      expect(rels(res.body as Body).first).toMatch(/\?state=ok&page=1&pageSize=20$/);
    });

    it('skips counting unless total_required=true with totals: "on-request"', async () => {
      const source: DataSource<Card> = memoryDataSource(cards);
      const count = vi.spyOn(source, 'count');
      const server = app({ ...cardList, source, totals: 'on-request' });

      const skipped = await request(server).get('/v1/vault/credit-cards?page=2');
      expect(Object.keys(skipped.body)).toEqual(['items', 'links']);
      expect((skipped.body as Body).items).toHaveLength(10);
      expect(Object.keys(rels(skipped.body as Body))).toEqual([
        'self',
        'first',
        'previous',
        'next',
      ]);
      expect(count).not.toHaveBeenCalled();

      const lastPage = await request(server).get('/v1/vault/credit-cards?page=3');
      expect(Object.keys(rels(lastPage.body as Body))).toEqual(['self', 'first', 'previous']);

      const counted = await request(server).get(
        '/v1/vault/credit-cards?page=2&total_required=true',
      );
      expect(counted.body).toMatchObject({ total_items: 25, total_pages: 3 });
      expect(rels(counted.body as Body).last).toMatch(/total_required=true&page=3&page_size=10$/);
      expect(count).toHaveBeenCalledTimes(1);
    });

    it('asks the data source with the parsed query, which it also puts on req.collectionQuery', async () => {
      const seen: unknown[] = [];
      const source = (req: Request) => {
        seen.push(req.collectionQuery);
        seen.push(getCollectionQuery(req));
        return memoryDataSource(cards);
      };
      await request(app({ ...cardList, source })).get('/v1/vault/credit-cards?page=2&state=ok');
      const parsed = expect.objectContaining({ page: 2, offset: 10, filters: { state: 'ok' } });
      expect(seen).toEqual([parsed, parsed]);
    });
  });

  describe('a custom data source', () => {
    function recordingSource() {
      const calls: Array<[string, number, number]> = [];
      const source: DataSource<Card> = {
        count: async (query) => {
          calls.push(['count', query.offset, query.limit]);
          return 1_000_000;
        },
        fetchPage: async (query) => {
          calls.push(['fetchPage', query.offset, query.limit]);
          return Array.from({ length: query.limit }, (_, index) => ({
            ...cards[0]!,
            id: `CARD-${query.offset + index}`,
          }));
        },
      };
      return { source, calls };
    }

    it('asks for exactly one page and the count, never the whole collection', async () => {
      const { source, calls } = recordingSource();
      const res = await request(app({ ...cardList, source })).get(
        '/v1/vault/credit-cards?page=5000&page_size=20',
      );
      expect(calls.sort()).toEqual([
        ['count', 99_980, 20],
        ['fetchPage', 99_980, 20],
      ]);
      expect(res.body).toMatchObject({ total_items: 1_000_000, total_pages: 50_000 });
      expect((res.body as Body).items[0]?.id).toBe('CARD-99980');
    });

    it('asks for one record more instead of counting when totals are skipped', async () => {
      const { source, calls } = recordingSource();
      const res = await request(app({ ...cardList, source, totals: 'on-request' })).get(
        '/v1/vault/credit-cards?offset=40&limit=20',
      );
      expect(calls).toEqual([['fetchPage', 40, 21]]);
      expect((res.body as Body).items).toHaveLength(20);
      expect(rels(res.body as Body).next).toMatch(/\?offset=60&limit=20$/);
    });
  });

  describe('a sub-collection', () => {
    const webhooks = new Map([
      ['WH-1', [{ name: 'PAYMENT.SALE.COMPLETED' }, { name: 'PAYMENT.SALE.REFUNDED' }]],
    ]);

    function subApp() {
      const app = express();
      app.get(
        '/v1/notifications/webhooks/:id/event-types',
        paginate({
          source: (req: Request<{ id: string }>) => {
            const eventTypes = webhooks.get(req.params.id);
            if (eventTypes === undefined)
              throw ApiError.notFound('Webhook not found.', { target: 'id' });
            return memoryDataSource(eventTypes);
          },
        }),
      );
      app.use(errorHandler());
      return app;
    }

    it('lists the children of the parent', async () => {
      const res = await request(subApp()).get('/v1/notifications/webhooks/WH-1/event-types');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        items: [{ name: 'PAYMENT.SALE.COMPLETED' }, { name: 'PAYMENT.SALE.REFUNDED' }],
      });
      expect(rels(res.body as Body).self).toMatch(
        /\/v1\/notifications\/webhooks\/WH-1\/event-types\?page=1&page_size=10$/,
      );
    });

    it('answers 404 when the parent does not exist', async () => {
      const res = await request(subApp()).get('/v1/notifications/webhooks/WH-404/event-types');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND', target: 'id' });
    });
  });

  describe('a failing data source', () => {
    it('passes a rejection to the error handler exactly once', async () => {
      const handled = vi.fn();
      const server = express();
      const failing: DataSource<Card> = {
        count: () => Promise.reject(ApiError.serviceUnavailable('Store down.', { retryAfter: 5 })),
        fetchPage: () => Promise.reject(new Error('also down')),
      };
      server.get('/cards', paginate({ source: failing }));
      server.use(errorHandler({ onError: handled }));
      const res = await request(server).get('/cards');
      expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe('5');
      expect(handled).toHaveBeenCalledTimes(1);
    });

    // As Express 5 routes a rejection (`err || new Error(…)`): next('') would mean "no error".
    it.each([[''], [0], [false]])(
      'answers 500 for a rejection with %j, never the next handler',
      async (reason) => {
        const server = express();
        const failing: DataSource<Card> = {
          count: () => Promise.resolve(0),
          fetchPage: () => Promise.reject(reason),
        };
        server.get('/cards', paginate({ source: failing }));
        server.get('/cards', (_req, res) => {
          res.json({ ranNext: true });
        });
        server.use(errorHandler());
        const res = await request(server).get('/cards');
        expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
      },
    );

    it('passes a synchronous throw to the error handler without an unhandled rejection', async () => {
      const server = express();
      const failing: DataSource<Card> = {
        count: () => Promise.reject(new Error('count down')),
        fetchPage: () => {
          throw ApiError.serviceUnavailable('Page store down.');
        },
      };
      server.get('/cards', paginate({ source: failing }));
      server.use(errorHandler());
      const res = await request(server).get('/cards');
      expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
    });

    it('waits for an asynchronous source function and data source', async () => {
      const server = express();
      const later = <V>(value: V) =>
        new Promise<V>((resolve) => setTimeout(() => resolve(value), 5));
      const memory = memoryDataSource(cards);
      server.get(
        '/cards',
        paginate({
          source: () =>
            later<DataSource<Card>>({
              count: async (query) => later(await memory.count(query)),
              fetchPage: async (query) => later(await memory.fetchPage(query)),
            }),
        }),
      );
      server.use(errorHandler());
      const res = await request(server).get('/cards?page=3');
      expect(res.status).toBe(200);
      expect(res.body.total_items).toBe(25);
      expect((res.body as Body).items.map((card) => card.id)).toEqual([
        'CARD-21',
        'CARD-22',
        'CARD-23',
        'CARD-24',
        'CARD-25',
      ]);
    });

    it('answers 500 when the data source breaks its contract', async () => {
      const server = express();
      server.get('/cards', paginate({ source: { count: () => -1, fetchPage: () => [] } }));
      server.use(errorHandler());
      const res = await request(server).get('/cards');
      expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
    });
  });

  describe('without a source', () => {
    it('parses, calls next, and lets the route answer with sendCollectionPage', async () => {
      const server = express();
      server.get('/cards', paginate({ filterable: ['state'] }), (req, res) => {
        const query = req.collectionQuery!;
        const matching = cards.filter((card) => card.state === (query.filters.state ?? card.state));
        sendCollectionPage(req, res, {
          items: matching.slice(query.offset, query.offset + query.limit),
          totalItems: matching.length,
        });
      });
      server.use(errorHandler());
      const res = await request(server).get('/cards?state=expired&page_size=2&page=3');
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        items: [{ id: 'CARD-25' }],
        total_items: 5,
        total_pages: 3,
      });
    });

    it('fails loudly when sendCollectionPage runs without paginate', async () => {
      const server = express();
      server.get('/cards', (req, res) => sendCollectionPage(req, res, { items: [] }));
      server.use(errorHandler());
      const res = await request(server).get('/cards');
      expectErrorEnvelope(res, 500);
    });
  });
});

describe('paginate options', () => {
  it('accepts (), {} and undefined values', () => {
    expect(paginate().name).toBe('paginateMiddleware');
    expect(paginate({}).name).toBe('paginateMiddleware');
    expect(paginate({ sortable: undefined, defaultPageSize: undefined }).name).toBe(
      'paginateMiddleware',
    );
  });

  it('does not mutate the options', () => {
    const options = Object.freeze({ sortable: Object.freeze(['create_time']), defaultPageSize: 5 });
    expect(() => paginate(options)).not.toThrow();
  });

  it.each([
    [{ pageSize: 10 }, /unknown option "pageSize"/],
    [{ sortabel: ['a'] }, /Did you mean "sortable"/],
    [{ defaultPageSize: 0 }, /defaultPageSize/],
    [{ maxPageSize: 2.5 }, /maxPageSize/],
    [{ defaultPageSize: 50, maxPageSize: 20 }, /larger than "maxPageSize"/],
    [{ sortable: 'create_time' }, /array/],
    [{ sortable: ['create time'] }, /not a property name/],
    [{ filterable: ['__proto__'] }, /not a property name/],
    [{ filterable: ['state', 'state'] }, /each property once/],
    [{ filterable: ['page'] }, /"page", which already has a meaning/],
    [{ defaultSort: { by: 'x' } }, /defaultSort.by/],
    [{ sortable: ['a'], defaultSort: { by: 'a', order: 'up' } }, /defaultSort.order/],
    [{ timeSelectable: ['a'], timeProperty: 'b' }, /timeProperty/],
    [{ timeSelectable: ['a'], timeProperty: null }, /"timeProperty" must be one of/],
    [{ totals: 'sometimes' }, /totals/],
    [{ naming: 'kebab' }, /naming/],
    [{ unknownParameters: 'warn' }, /unknownParameters/],
    [{ source: [] }, /source/],
    [{ summary: 'id' }, /summary/],
    [{ publicBaseUrl: 'api.example.com' }, /publicBaseUrl/],
    [{ publicBaseUrl: 'https://api.example.com/?x=1' }, /publicBaseUrl/],
    [{ publicBaseUrl: 'ftp://api.example.com' }, /publicBaseUrl/],
  ])('throws a TypeError at construction for %j', (options, message) => {
    expect(() => paginate(options as PaginateOptions)).toThrow(TypeError);
    expect(() => paginate(options as PaginateOptions)).toThrow(message);
  });

  it.each([
    [null, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
    [{ maxPagesize: 5 }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION', 'maxPagesize'],
    [{ maxPageSize: 0 }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'maxPageSize'],
    [{ naming: 'snakecase' }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'naming'],
    [{ sortable: ['a b'] }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'sortable'],
    [{ publicBaseUrl: 'x' }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'publicBaseUrl'],
    [
      { defaultPageSize: 50, maxPageSize: 20 },
      'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
      'defaultPageSize',
    ],
    [{ filterable: ['page'] }, 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS', undefined],
  ])('gives %j a stable code and names the option', (options, code, option) => {
    let error: unknown;
    try {
      paginate(options as PaginateOptions);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code, factory: 'paginate' });
    expect((error as { option?: string }).option).toBe(option);
  });

  it('suggests the value meant for a misspelt choice', () => {
    expect(() => paginate({ naming: 'snakecase' as never })).toThrow(/Did you mean "snake_case"\?/);
  });
});
