import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  type CollectionEnvelope,
  memoryDataSource,
  type SearchCollectionOptions,
  type StandardSchemaV1,
  searchCollection,
} from '../src/index.js';

interface Agreement {
  id: string;
  state: 'ACTIVE' | 'SUSPENDED';
  create_time: string;
}

const agreements: Agreement[] = Array.from({ length: 12 }, (_, index) => ({
  id: `I-${String(index + 1).padStart(2, '0')}`,
  state: index % 3 === 0 ? 'SUSPENDED' : 'ACTIVE',
  create_time: new Date(Date.UTC(2024, index, 1)).toISOString(),
}));

const Criteria = z
  .object({
    status: z.enum(['ACTIVE', 'SUSPENDED']).optional(),
    create_time_before: z.iso.datetime().optional(),
    create_time_after: z.iso.datetime().optional(),
  })
  .strict();

type Criteria = z.infer<typeof Criteria>;

const options: SearchCollectionOptions<Criteria, Agreement> = {
  criteria: Criteria,
  source: (criteria) =>
    memoryDataSource(
      agreements.filter(
        (agreement) =>
          (criteria.status === undefined || agreement.state === criteria.status) &&
          (criteria.create_time_before === undefined ||
            agreement.create_time < criteria.create_time_before) &&
          (criteria.create_time_after === undefined ||
            agreement.create_time > criteria.create_time_after),
      ),
    ),
  defaultPageSize: 3,
};

type Body = CollectionEnvelope<Agreement>;

function rels(body: Body): Record<string, string> {
  return Object.fromEntries(body.links.map((link) => [link.rel, link.href]));
}

describeEachExpress('searchCollection', (express) => {
  function app(overrides: Partial<SearchCollectionOptions<Criteria, Agreement>> = {}) {
    const app = express();
    app.post(
      '/v1/payments/search-billing-agreements',
      express.json({ limit: '10kb' }),
      searchCollection({ ...options, ...overrides }),
    );
    app.use(errorHandler());
    return app;
  }

  const path = '/v1/payments/search-billing-agreements';

  it('answers 200 with the matching page and POST links', async () => {
    const res = await request(app()).post(`${path}?page=2`).send({ status: 'ACTIVE' });
    expect(res.status).toBe(200);
    const body = res.body as Body;
    expect(body.items.map((agreement) => agreement.id)).toEqual(['I-06', 'I-08', 'I-09']);
    expect(body).toMatchObject({ total_items: 8, total_pages: 3 });
    expect(body.links.map((link) => [link.rel, link.method])).toEqual([
      ['self', 'POST'],
      ['first', 'POST'],
      ['previous', 'POST'],
      ['next', 'POST'],
      ['last', 'POST'],
    ]);
    expect(rels(body).next).toMatch(
      /\/v1\/payments\/search-billing-agreements\?page=3&page_size=3$/,
    );
  });

  it('searches everything with an empty body or no body at all', async () => {
    const empty = await request(app()).post(path).send({});
    const none = await request(app()).post(path);
    expect(empty.body.total_items).toBe(12);
    expect(none.status).toBe(200);
    expect(none.body.total_items).toBe(12);
  });

  it('answers 200 with empty items when nothing matches', async () => {
    const res = await request(app())
      .post(path)
      .send({ create_time_before: '2000-01-01T00:00:00Z' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ items: [], total_items: 0, total_pages: 0 });
  });

  it('answers 400 VALIDATION_ERROR naming the invalid criterion', async () => {
    const res = await request(app()).post(path).send({ status: 'DELETED' });
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'status' });
  });

  it('answers 400 VALIDATION_ERROR naming an unknown criterion of a strict schema', async () => {
    const res = await request(app()).post(path).send({ vendor: 'x' });
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'vendor' });
    expect(res.body.error.details[0].message).toMatch(/vendor/);
  });

  it('names each unknown criterion in its own detail', async () => {
    const res = await request(app()).post(path).send({ vendor: 'x', colour: 'red' });
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
    expect(res.body.error.details.map((detail: { target?: string }) => detail.target)).toEqual([
      'vendor',
      'colour',
    ]);
  });

  it.each(['[]', '"ACTIVE"', 'null'])(
    'answers 400 VALIDATION_ERROR for the body %s',
    async (body) => {
      const res = await request(app())
        .post(path)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(res.status).toBe(400);
      expect(['VALIDATION_ERROR', 'MALFORMED_REQUEST']).toContain(res.body.error.code);
    },
  );

  it('answers 400 VALIDATION_ERROR for a null body that a lenient parser let through', async () => {
    const server = express();
    server.post(path, express.json({ strict: false }), searchCollection(options));
    server.use(errorHandler());
    const res = await request(server)
      .post(path)
      .set('Content-Type', 'application/json')
      .send('null');
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
  });

  it('answers 400 for a __proto__ criterion without polluting anything', async () => {
    const res = await request(app())
      .post(path)
      .set('Content-Type', 'application/json')
      .send('{"__proto__": {"polluted": true}, "status": "ACTIVE"}');
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('answers 400 MALFORMED_REQUEST for malformed JSON', async () => {
    const res = await request(app())
      .post(path)
      .set('Content-Type', 'application/json')
      .send('{"status":');
    expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
  });

  it('reads criteria of a +json media type that the JSON parser accepts', async () => {
    const server = express();
    server.post(
      path,
      express.json({ type: ['application/json', 'application/*+json'] }),
      searchCollection(options),
    );
    server.use(errorHandler());
    const res = await request(server)
      .post(path)
      .set('Content-Type', 'application/vnd.api+json')
      .send('{"status":"SUSPENDED"}');
    expect(res.status).toBe(200);
    expect((res.body as Body).total_items).toBe(4);
  });

  it('answers 415, and never searches without the criteria, for a +json type the parser skipped', async () => {
    const source = vi.fn(options.source);
    const res = await request(app({ source }))
      .post(path)
      .set('Content-Type', 'application/vnd.api+json')
      .send('{"status":"SUSPENDED"}');
    expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
    expect(res.headers['accept-post']).toBe('application/json');
    expect(source).not.toHaveBeenCalled();
  });

  it('answers 415 for criteria that are not JSON', async () => {
    const res = await request(app())
      .post(path)
      .set('Content-Type', 'text/plain')
      .send('status=ACTIVE');
    expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
  });

  it.each([
    ['page=0', 'page'],
    ['page_size=101', 'page_size'],
    ['page=1&page=2', 'page'],
    ['page=1&offset=3', 'offset'],
    ['status=ACTIVE', 'status'],
  ])('answers 400 INVALID_REQUEST for ?%s', async (search, target) => {
    const source = vi.fn(options.source);
    const res = await request(app({ source })).post(`${path}?${search}`).send({});
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target });
    expect(source).not.toHaveBeenCalled();
  });

  it('pages with limit and offset too', async () => {
    const res = await request(app()).post(`${path}?offset=10&limit=5`).send({});
    expect((res.body as Body).items.map((agreement) => agreement.id)).toEqual(['I-11', 'I-12']);
    expect(rels(res.body as Body).previous).toMatch(/\?offset=5&limit=5$/);
  });

  it('skips counting unless asked with totals: "on-request"', async () => {
    const res = await request(app({ totals: 'on-request' }))
      .post(path)
      .send({});
    expect(Object.keys(res.body)).toEqual(['items', 'links']);
    expect(rels(res.body as Body).next).toBeDefined();
  });

  it('maps items with summary', async () => {
    const res = await request(app({ summary: (agreement) => ({ id: agreement.id }) }))
      .post(`${path}?page_size=1`)
      .send({});
    expect(res.body.items).toEqual([{ id: 'I-01' }]);
  });
});

describe('searchCollection options', () => {
  it('names its middleware', () => {
    expect(searchCollection(options).name).toBe('searchCollectionMiddleware');
  });

  it.each([
    [{ ...options, criteria: undefined }, /criteria/],
    [{ ...options, criteria: {} }, /criteria/],
    [
      { ...options, criteria: { safeParse: () => ({ success: true, data: {} }) } },
      /Standard Schema/,
    ],
    [{ ...options, source: memoryDataSource([]) }, /source/],
    [{ ...options, sortable: ['x'] }, /unknown option "sortable"/],
    [{ ...options, maxPageSize: 0 }, /maxPageSize/],
  ])('throws a TypeError at construction for bad options (%#)', (bad, message) => {
    expect(() => searchCollection(bad as unknown as typeof options)).toThrow(message);
  });

  it.each([
    [{ ...options, criteria: undefined }, 'ERR_RESOURCEFUL_MISSING_OPTION', 'criteria'],
    [{ ...options, criteria: z.string().parse }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'criteria'],
    [{ ...options, source: undefined }, 'ERR_RESOURCEFUL_MISSING_OPTION', 'source'],
    [{ ...options, soruce: options.source }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION', 'soruce'],
  ])('gives bad options a stable code (%#)', (bad, code, option) => {
    expect(() => searchCollection(bad as unknown as typeof options)).toThrow(
      expect.objectContaining({ code, option, factory: 'searchCollection' }),
    );
  });

  it('fails loudly (500) when no JSON parser ran before it', async () => {
    const { default: express } = await import('express');
    const app = express();
    app.post('/search', searchCollection(options));
    app.use(errorHandler());
    const res = await request(app).post('/search').send({ status: 'ACTIVE' });
    expectErrorEnvelope(res, 500);
  });
});

// The same criteria in valibot, and behind an asynchronous Standard Schema.
const ValibotCriteria = v.strictObject({
  status: v.optional(v.picklist(['ACTIVE', 'SUSPENDED'])),
  create_time_before: v.optional(v.pipe(v.string(), v.isoTimestamp())),
  create_time_after: v.optional(v.pipe(v.string(), v.isoTimestamp())),
});

const AsyncCriteria: StandardSchemaV1<unknown, Criteria> = {
  '~standard': {
    version: 1,
    vendor: 'test',
    validate: async (value) => Criteria['~standard'].validate(value),
  },
};

describeEachExpress('searchCollection with other Standard Schemas', (express) => {
  const path = '/v1/payments/search-billing-agreements';
  function app(criteria: StandardSchemaV1<unknown, Criteria>) {
    const app = express();
    app.post(path, express.json(), searchCollection({ ...options, criteria }));
    app.use(errorHandler());
    return app;
  }

  describe.each([
    ['valibot', ValibotCriteria],
    ['an asynchronous schema', AsyncCriteria],
  ] as [string, StandardSchemaV1<unknown, Criteria>][])('with %s', (_name, criteria) => {
    it('searches with the validated criteria', async () => {
      const res = await request(app(criteria)).post(path).send({ status: 'ACTIVE' });
      expect(res.status).toBe(200);
      expect(res.body.total_items).toBe(8);
    });

    it('answers 400 VALIDATION_ERROR naming the invalid criterion', async () => {
      const res = await request(app(criteria)).post(path).send({ status: 'DELETED' });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'status' });
    });

    it('answers 400 VALIDATION_ERROR naming an unknown criterion', async () => {
      const res = await request(app(criteria)).post(path).send({ vendor: 'x' });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'vendor' });
    });
  });
});
