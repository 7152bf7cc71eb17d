import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  type CollectionEnvelope,
  memoryDataSource,
  type PaginateOptions,
  paginate,
  parseCollectionQuery,
} from '../src/index.js';

interface Card {
  id: string;
  payer_id: string;
  state: string;
  create_time: string;
}

// Five distinct times for 23 cards: the sort has many ties, so only the id orders them.
const cards: Card[] = Array.from({ length: 23 }, (_, index) => ({
  id: `CARD-${String(index + 1).padStart(2, '0')}`,
  payer_id: index % 2 === 0 ? 'P-EVEN' : 'P-ODD',
  state: index < 20 ? 'ok' : 'expired',
  create_time: new Date(Date.UTC(2024, 0, 1 + (index % 5))).toISOString(),
}));

const SECRET = 'a-secret-of-at-least-thirty-two-characters';
const OTHER_SECRET = 'another-secret-of-thirty-two-characters!!';

const keyset = memoryDataSource(cards, { key: 'id' });

const options = (secrets: string[] = [SECRET]): PaginateOptions<Card> => ({
  source: keyset,
  sortable: ['create_time'],
  filterable: ['payer_id', 'state'],
  timeSelectable: ['create_time'],
  defaultPageSize: 5,
  totals: 'on-request',
  continuation: { secrets },
});

type Body = CollectionEnvelope<Card>;

function rels(body: Body): Record<string, string> {
  return Object.fromEntries(body.links.map((link) => [link.rel, link.href]));
}

/** The path and query of an absolute link, to send it to any instance. */
function pathOf(href: string): string {
  const url = new URL(href);
  return url.pathname + url.search;
}

function tokenOf(href: string): string {
  const token = new URL(href).searchParams.get('page_token');
  if (token === null) throw new Error(`no page_token in ${href}`);
  return token;
}

describeEachExpress('paginate with continuation', (express) => {
  function app(
    paginateOptions: PaginateOptions<Card> = options(),
    path = '/v1/vault/credit-cards',
  ) {
    const app = express();
    app.get(path, paginate(paginateOptions));
    app.use(errorHandler());
    return app;
  }

  /** Follows `next` from `first`, alternating between the apps, and returns every id seen. */
  async function walk(apps: ReturnType<typeof app>[], first: string): Promise<string[]> {
    const ids: string[] = [];
    let path: string | undefined = first;
    for (let hop = 0; path !== undefined && hop < 100; hop++) {
      const res = await request(apps[hop % apps.length]!).get(path);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const body = res.body as Body;
      ids.push(...body.items.map((card) => card.id));
      const next = rels(body).next;
      path = next === undefined ? undefined : pathOf(next);
    }
    return ids;
  }

  describe('a request without page or offset', () => {
    it('links next with a continuation token and leaves out previous and last', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?sort_by=create_time');
      expect(res.status).toBe(200);
      const body = res.body as Body;
      expect(body.items.map((card) => card.id)).toEqual([
        'CARD-01',
        'CARD-06',
        'CARD-11',
        'CARD-16',
        'CARD-21',
      ]);
      expect(body.links.map((link) => link.rel)).toEqual(['self', 'first', 'next']);
      const links = rels(body);
      expect(links.first).toMatch(/\/v1\/vault\/credit-cards\?sort_by=create_time&page_size=5$/);
      expect(links.next).toMatch(/[?&]page_token=v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
      expect(body).not.toHaveProperty('total_items');
    });

    it('visits every item exactly once, in sort order, under a sort with many ties', async () => {
      for (const order of ['asc', 'desc']) {
        const expected = [...cards]
          .sort((a, b) =>
            a.create_time === b.create_time
              ? a.id.localeCompare(b.id)
              : a.create_time.localeCompare(b.create_time),
          )
          .map((card) => card.id);
        if (order === 'desc') expected.reverse();
        const ids = await walk(
          [app()],
          `/v1/vault/credit-cards?sort_by=create_time&sort_order=${order}&page_size=4`,
        );
        expect(ids).toEqual(expected);
      }
    });

    it('keeps filters and time selection in every link and pages within them', async () => {
      const ids = await walk(
        [app()],
        '/v1/vault/credit-cards?payer_id=P-EVEN&create_time_after=2024-01-01T00:00:00Z&page_size=2',
      );
      const expected = cards
        .filter(
          (card) => card.payer_id === 'P-EVEN' && card.create_time > '2024-01-01T00:00:00.000Z',
        )
        .map((card) => card.id)
        .sort();
      expect(ids).toEqual(expected);
    });

    it('counts with total_required=true and still links no last page', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?total_required=true');
      const body = res.body as Body;
      expect(body.total_items).toBe(23);
      expect(body.total_pages).toBe(5);
      expect(body.links.map((link) => link.rel)).toEqual(['self', 'first', 'next']);
    });

    it('links no next from the last page', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?state=expired');
      expect((res.body as Body).links.map((link) => link.rel)).toEqual(['self', 'first']);
    });
  });

  describe('the offset conventions', () => {
    it('keep their links when the request names a page or an offset', async () => {
      const byPage = await request(app()).get('/v1/vault/credit-cards?page=2');
      expect((byPage.body as Body).links.map((link) => link.rel)).toEqual([
        'self',
        'first',
        'previous',
        'next',
      ]);
      expect(rels(byPage.body as Body).next).toMatch(/page=3&page_size=5$/);
      const byOffset = await request(app()).get('/v1/vault/credit-cards?offset=5&limit=5');
      expect(rels(byOffset.body as Body).next).toMatch(/offset=10&limit=5$/);
    });

    it('refuses a token together with a page number: 400 naming page_token', async () => {
      const first = await request(app()).get('/v1/vault/credit-cards');
      const token = tokenOf(rels(first.body as Body).next!);
      const res = await request(app()).get(`/v1/vault/credit-cards?page=2&page_token=${token}`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(res.body.error.innererror.code).toBe('CONFLICTING_PARAMETERS');
    });
  });

  describe('instances and secrets', () => {
    it('accepts the tokens of another instance configured with the same secret', async () => {
      const ids = await walk([app(), app()], '/v1/vault/credit-cards?page_size=3');
      expect(ids).toEqual(cards.map((card) => card.id));
    });

    it('refuses a token signed with another secret: 400 INVALID_PAGE_TOKEN', async () => {
      const first = await request(app(options([OTHER_SECRET]))).get('/v1/vault/credit-cards');
      const res = await request(app()).get(pathOf(rels(first.body as Body).next!));
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(res.body.error.innererror.code).toBe('INVALID_PAGE_TOKEN');
    });

    it('during a rotation signs with the first secret and accepts the old one', async () => {
      const rotated = app(options([OTHER_SECRET, SECRET]));
      const old = await request(app()).get('/v1/vault/credit-cards');
      const followed = await request(rotated).get(pathOf(rels(old.body as Body).next!));
      expect(followed.status).toBe(200);
      const fresh = await request(rotated).get('/v1/vault/credit-cards');
      const byOld = await request(app()).get(pathOf(rels(fresh.body as Body).next!));
      expect(byOld.body.error.innererror.code).toBe('INVALID_PAGE_TOKEN');
      const byNew = await request(app(options([OTHER_SECRET]))).get(
        pathOf(rels(fresh.body as Body).next!),
      );
      expect(byNew.status).toBe(200);
    });
  });

  describe('a token that does not belong to the request', () => {
    async function tokenFor(search: string): Promise<string> {
      const res = await request(app()).get(`/v1/vault/credit-cards?${search}`);
      return tokenOf(rels(res.body as Body).next!);
    }

    it.each([
      ['another sort property order', 'sort_by=create_time', 'sort_by=create_time&sort_order=desc'],
      ['no sort', 'sort_by=create_time', ''],
      ['another filter value', 'state=ok', 'state=expired'],
      ['a filter added', 'state=ok', 'state=ok&payer_id=P-ODD'],
      [
        'another time bound',
        'create_time_after=2023-01-01T00:00:00Z',
        'create_time_after=2023-01-02T00:00:00Z',
      ],
    ])('answers 400 PAGE_TOKEN_MISMATCH for %s', async (_, issued, sent) => {
      const token = await tokenFor(issued);
      const res = await request(app()).get(
        `/v1/vault/credit-cards?${sent === '' ? '' : `${sent}&`}page_token=${token}`,
      );
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(res.body.error.innererror.code).toBe('PAGE_TOKEN_MISMATCH');
    });

    it('answers 400 PAGE_TOKEN_MISMATCH for a token of another collection', async () => {
      const token = await tokenFor('');
      const res = await request(app(options(), '/v1/customers/customers')).get(
        `/v1/customers/customers?page_token=${token}`,
      );
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(res.body.error.innererror.code).toBe('PAGE_TOKEN_MISMATCH');
    });

    it('accepts filters sent in another order (the binding is canonical)', async () => {
      const token = await tokenFor('state=ok&payer_id=P-ODD&page_size=2');
      const res = await request(app()).get(
        `/v1/vault/credit-cards?payer_id=P-ODD&state=ok&page_size=2&page_token=${token}`,
      );
      expect(res.status).toBe(200);
    });
  });

  describe('forged tokens', () => {
    async function validToken(): Promise<string> {
      const res = await request(app()).get('/v1/vault/credit-cards?page_size=2');
      return tokenOf(rels(res.body as Body).next!);
    }

    function reencode(token: string, change: (payload: Record<string, unknown>) => void): string {
      const [version, payload, signature] = token.split('.') as [string, string, string];
      const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
      change(decoded);
      return `${version}.${Buffer.from(JSON.stringify(decoded)).toString('base64url')}.${signature}`;
    }

    it.each([
      ['garbage', () => 'garbage'],
      ['a SQL-looking value', () => "x'; DROP TABLE cards; --"],
      [
        'a moved position',
        async () => reencode(await validToken(), (p) => (p.i = ['s', 'CARD-20'])),
      ],
      ['a cut signature', async () => (await validToken()).slice(0, -3)],
      ['a signature with bad characters', async () => `${(await validToken()).slice(0, -1)}*`],
      ['another version', async () => (await validToken()).replace(/^v1/, 'v2')],
      [
        'a __proto__ payload',
        async () => {
          const [version, payload, signature] = (await validToken()).split('.');
          const text = Buffer.from(payload!, 'base64url').toString('utf8');
          const altered = `{"__proto__":{"b":"x"},${text.slice(1)}`;
          return `${version}.${Buffer.from(altered).toString('base64url')}.${signature}`;
        },
      ],
    ])('answers 400 INVALID_PAGE_TOKEN for %s', async (_, make) => {
      const token = await make();
      const res = await request(app()).get(
        `/v1/vault/credit-cards?page_size=2&page_token=${encodeURIComponent(token)}`,
      );
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(res.body.error.innererror.code).toBe('INVALID_PAGE_TOKEN');
      expect(JSON.stringify(res.body)).not.toContain('DROP');
    });

    it('answers 400 PARAMETER_TOO_LONG for a huge token', async () => {
      const res = await request(app()).get(`/v1/vault/credit-cards?page_token=${'a'.repeat(5000)}`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(res.body.error.innererror.code).toBe('PARAMETER_TOO_LONG');
    });

    it('answers 400 UNKNOWN_PARAMETER for page_token on a route without continuation', async () => {
      const { continuation: _, ...plain } = options();
      const res = await request(app(plain)).get('/v1/vault/credit-cards?page_token=abc');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
    });
  });

  it('answers 500 when a source function returns a source that cannot page by keyset', async () => {
    const res = await request(app({ ...options(), source: () => memoryDataSource(cards) })).get(
      '/v1/vault/credit-cards',
    );
    expectErrorEnvelope(res, 500);
  });
});

describe('paginate continuation options', () => {
  it.each([
    ['a short secret', { secrets: ['short'] }],
    ['no secrets', { secrets: [] }],
    ['a missing secrets list', {}],
    ['an unknown option', { secrets: [SECRET], secret: SECRET }],
    ['an empty collection name', { secrets: [SECRET], collection: '' }],
  ])('refuses %s at construction', (_, continuation) => {
    expect(() =>
      paginate({ source: keyset, continuation: continuation as { secrets: string[] } }),
    ).toThrow(TypeError);
  });

  it('does not echo a refused secret', () => {
    expect(() => paginate({ source: keyset, continuation: { secrets: ['tiny-secret'] } })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('tiny-secret') }),
    );
  });

  it('needs a source, and an object source must page by keyset', () => {
    expect(() => paginate({ continuation: { secrets: [SECRET] } })).toThrow(
      expect.objectContaining({ code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS' }),
    );
    expect(() =>
      paginate({ source: memoryDataSource(cards), continuation: { secrets: [SECRET] } }),
    ).toThrow(expect.objectContaining({ code: 'ERR_RESOURCEFUL_INVALID_OPTION' }));
  });
});

describe('memoryDataSource with a key', () => {
  it('refuses a key that is not a property name', () => {
    expect(() => memoryDataSource(cards, { key: '' })).toThrow(TypeError);
    expect(() => memoryDataSource(cards, { key: 1 as unknown as string })).toThrow(TypeError);
  });

  it('orders ties by the key in the sort direction, offset pages too', () => {
    const source = memoryDataSource([...cards].reverse(), { key: 'id' });
    const query = parseCollectionQuery('sort_by=create_time&sort_order=desc&page_size=3', {
      sortable: ['create_time'],
    });
    expect(source.fetchPage(query)).toEqual([cards[19], cards[14], cards[9]]);
  });

  it('refuses to place a record whose key is not a string or number', () => {
    const source = memoryDataSource([{ id: { nested: true } }], { key: 'id' });
    expect(() => source.positionOf({ id: { nested: true } }, parseCollectionQuery(''))).toThrow(
      TypeError,
    );
  });
});
