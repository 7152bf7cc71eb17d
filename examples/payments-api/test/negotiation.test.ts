import { gunzipSync } from 'node:zlib';
import { checkContentNegotiationOrder } from '@resourceful/content-negotiation';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  parseXmlMirror,
  type RunningServer,
} from '@resourceful/test-support';
import fc from 'fast-check';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { DOCS_PATH, OPENAPI_PATH } from '../src/description/docs.js';
import { README_PATH } from '../src/readme.js';
import { EVENT_TYPE_DESCRIPTIONS } from '../src/resources/webhooks.js';
import { appWithRecords, concrete, getRoutes, REQUIRED_QUERY, SEEDED } from './route-table.js';

const PATCH_TYPE = 'application/json-patch+json';

/**
 * The API description (OpenAPI document, reference page) and the README are mounted before
 * content negotiation: they have fixed media types of their own.
 */
const NOT_NEGOTIATED = [OPENAPI_PATH, DOCS_PATH, README_PATH];

function isNegotiated(path: string): boolean {
  return !NOT_NEGOTIATED.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** Every readable resource and collection: each GET route of the example, from its router. */
const READ_ROUTES = getRoutes({}).filter(isNegotiated);

/** Seeded records in place of the path parameters (the property test's paths). */
const READS = READ_ROUTES.map((path) => concrete(path, SEEDED) + (REQUIRED_QUERY[path] ?? ''));

describeEachExpress('content negotiation in the example', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });

  it('sits where it belongs: before the body parsers, conditional requests and the API', () => {
    // createApp runs assertContentNegotiationOrder too: a wrong order would throw at start-up.
    expect(checkContentNegotiationOrder(app())).toEqual([]);
  });

  describe('the XML of every resource mirrors its JSON', () => {
    it('reads every GET route of the example, the capture’s refunds among them', () => {
      expect(READ_ROUTES).toContain('/v1/payments/captures/:id/refunds');
      expect(READ_ROUTES).toContain('/v1/payments/refunds/:id');
      expect(READ_ROUTES.length).toBeGreaterThanOrEqual(15);
    });

    it.each(READ_ROUTES)('GET %s', async (route) => {
      const { app: server, ids } = await appWithRecords(express);
      const path = concrete(route, ids) + (REQUIRED_QUERY[route] ?? '');
      const json = await request(server).get(path);
      const xml = await request(server).get(path).set('Accept', 'application/xml');
      expect(json.status).toBe(200);
      expect(xml.status).toBe(200);
      expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
      const mirrored = parseXmlMirror(xml.text);
      expect(mirrored).toEqual(json.body);
      // Collections hold something: an empty list would mirror without showing an item's shape.
      const items = (json.body as { items?: unknown[] }).items;
      if (items !== undefined) expect(items.length, path).toBeGreaterThan(0);
    });

    it('leaves the reference page and the README in their own media types', async () => {
      const server = app();
      for (const path of [DOCS_PATH, README_PATH]) {
        const res = await request(server).get(path).set('Accept', 'application/xml');
        expect(res.status, path).toBe(200);
        expect(res.headers['content-type'], path).not.toMatch(/xml/);
      }
    });

    it('answers 406 for the OpenAPI document in XML, which it does not have', async () => {
      const res = await request(app()).get(OPENAPI_PATH).set('Accept', 'application/xml');
      expectErrorEnvelope(res, 406, { code: 'NOT_ACCEPTABLE', target: 'Accept' });
    });

    it.each([
      ['POST /v1/risk/decisions', '/v1/risk/decisions', { code: 'R-1' }],
      ['POST /v1/risk/evaluate', '/v1/risk/evaluate', { code: 'R-2' }],
      [
        'POST /v1/payments/captures/{id}/refund',
        '/v1/payments/captures/CAPTURE-SEED2/refund',
        { amount: { total: '1.00', currency: 'USD' } },
      ],
      [
        'POST /v1/customers/customers',
        '/v1/customers/customers',
        { merchant_customer_id: 'M-9', merchant_id: 'MERCHANT-1' },
      ],
    ])('%s, and the GET of what it created', async (_title, path, body) => {
      const server = app();
      const xml = await request(server).post(path).set('Accept', 'application/xml').send(body);
      expect(xml.status).toBeLessThan(300);
      expect(xml.headers['content-type']).toBe('application/xml; charset=utf-8');
      const created = parseXmlMirror(xml.text) as { links?: { rel: string; href: string }[] };
      const self = created.links?.find((link) => link.rel === 'self');
      if (self !== undefined) {
        const json = await request(server).get(new URL(self.href).pathname);
        const again = await request(server)
          .get(new URL(self.href).pathname)
          .set('Accept', 'text/xml');
        expect(parseXmlMirror(again.text)).toEqual(json.body);
        expect(created).toEqual(json.body);
      }
    });

    it('POST /v1/payments/search-billing-agreements (a safe search: same answer twice)', async () => {
      const server = app();
      const path = '/v1/payments/search-billing-agreements?page_size=2';
      const json = await request(server).post(path).send({ status: 'ACTIVE' });
      const xml = await request(server)
        .post(path)
        .set('Accept', 'application/xml')
        .send({ status: 'ACTIVE' });
      expect(json.status).toBe(200);
      expect(parseXmlMirror(xml.text)).toEqual(json.body);
    });

    it('answers errors in XML to an XML client', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards/NOPE?accept=xml');
      expect(res.status).toBe(404);
      expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
      expect(parseXmlMirror(res.text)).toMatchObject({ error: { code: 'NOT_FOUND' } });
    });

    it('answers 406 in JSON for a media type it does not have', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards').set('Accept', 'image/png');
      expectErrorEnvelope(res, 406, { code: 'NOT_ACCEPTABLE' });
    });
  });

  describe('JSONP (enabled in the example)', () => {
    it('answers a GET with ?callback=', async () => {
      const res = await request(app()).get(
        '/v1/vault/credit-cards/CARD-SEED1?accept=jsonp&callback=show',
      );
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(res.text).toMatch(/^\/\*\*\/ typeof show === 'function' && show\(\{"id":"CARD-SEED1"/);
    });

    it.each(READ_ROUTES)('answers GET %s?accept=jsonp&callback= as a script', async (route) => {
      const { app: server, ids } = await appWithRecords(express);
      const path = concrete(route, ids) + (REQUIRED_QUERY[route] ?? '');
      const json = await request(server).get(path);
      const separator = path.includes('?') ? '&' : '?';
      const res = await request(server).get(`${path}${separator}accept=jsonp&callback=show`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('text/javascript; charset=utf-8');
      const call = /^\/\*\*\/ typeof show === 'function' && show\((.*)\);$/s.exec(res.text);
      // A list's own links keep ?accept=jsonp&callback=show; everything else is the JSON's.
      const { links: _scriptLinks, ...script } = JSON.parse(call![1]!);
      const { links: _jsonLinks, ...plain } = json.body;
      expect(script).toEqual(plain);
    });
  });

  describe('the ?accept= short form on lists, sub-collections and searches', () => {
    it.each(READ_ROUTES)('answers GET %s?accept=xml in XML', async (route) => {
      const { app: server, ids } = await appWithRecords(express);
      const path = concrete(route, ids) + (REQUIRED_QUERY[route] ?? '');
      const separator = path.includes('?') ? '&' : '?';
      const res = await request(server).get(`${path}${separator}accept=xml`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    });

    it('keeps ?accept=xml in a list’s next link, so the next page is XML too', async () => {
      const res = await request(app()).get('/v1/customers/customers?page_size=1&accept=xml');
      expect(res.status).toBe(200);
      const { links } = parseXmlMirror(res.text) as { links: { href: string; rel: string }[] };
      const next = links.find((link) => link.rel === 'next');
      expect(new URL(next!.href).searchParams.get('accept')).toBe('xml');
    });

    it('answers POST /v1/payments/search-billing-agreements?accept=xml in XML', async () => {
      const res = await request(app())
        .post('/v1/payments/search-billing-agreements?page_size=2&accept=xml')
        .send({ status: 'ACTIVE' });
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/xml; charset=utf-8');
    });
  });

  describe('webhook event types in English and French', () => {
    const path = '/v1/notifications/webhooks/WH-SEED1/event-types';

    it.each([
      ['fr', 'fr'],
      ['fr-FR, en;q=0.5', 'fr'],
      ['en', 'en'],
      ['de', 'en'],
    ])('Accept-Language: %s answers in %s', async (header, language) => {
      const res = await request(app()).get(path).set('Accept-Language', header);
      expect(res.status).toBe(200);
      expect(res.headers['content-language']).toBe(language);
      expect(res.headers.vary).toMatch(/Accept-Language/);
      const items = res.body.items as { name: string; description: string }[];
      expect(items.length).toBeGreaterThan(0);
      for (const item of items) {
        expect(item.description).toBe(
          EVENT_TYPE_DESCRIPTIONS[item.name]?.[language as 'en' | 'fr'],
        );
      }
    });
  });

  describe('ISO-8859-1', () => {
    it('creates a customer from a Latin-1 body and answers Latin-1 when asked', async () => {
      const server = app();
      const body = Buffer.from(
        '{"merchant_customer_id":"M-1","merchant_id":"MERCHANT-1","first_name":"Zoë"}',
        'latin1',
      );
      const created = await request(server)
        .post('/v1/customers/customers')
        .set('Content-Type', 'application/json; charset=iso-8859-1')
        .serialize((value: unknown) => value as string)
        .send(body);
      expect(created.status).toBe(201);
      expect(created.body.first_name).toBe('Zoë');
      const read = await request(server)
        .get(new URL(created.headers.location as string, 'http://api.test').pathname)
        .set('Accept-Charset', 'iso-8859-1')
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect(read.headers['content-type']).toBe('application/json; charset=ISO-8859-1');
      expect(JSON.parse((read.body as Buffer).toString('latin1')).first_name).toBe('Zoë');
    });
  });

  describe('read, then a conditional PATCH, in every representation (RFC 9110 §8.8.3)', () => {
    const cardPath = '/v1/vault/credit-cards/CARD-SEED1';

    it.each([
      ['gzip', 'application/json'],
      ['gzip', 'application/xml'],
      ['identity', 'application/xml'],
      ['br', 'text/xml'],
    ])('Accept-Encoding: %s, Accept: %s', async (encoding, accept) => {
      const server = app();
      const identity = await request(server).get(cardPath).set('Accept-Encoding', 'identity');
      const read = await request(server)
        .get(cardPath)
        .set('Accept-Encoding', encoding)
        .set('Accept', accept);
      const tag = String(read.headers.etag);
      expect(tag).not.toBe(identity.headers.etag);
      if (encoding !== 'identity') expect(read.headers['content-encoding']).toBe(encoding);

      const fresh = await request(server)
        .get(cardPath)
        .set('Accept-Encoding', encoding)
        .set('Accept', accept)
        .set('If-None-Match', tag);
      expect(fresh.status).toBe(304);

      const write = await request(server)
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .set('Accept-Encoding', encoding)
        .set('Accept', accept)
        .set('If-Match', tag)
        .send(JSON.stringify([{ op: 'replace', path: '/first_name', value: 'Ada' }]));
      expect(write.status).toBe(204);

      const after = await request(server)
        .get(cardPath)
        .set('Accept-Encoding', encoding)
        .set('Accept', accept);
      expect(after.headers.etag).toBe(write.headers.etag);

      const stale = await request(server)
        .patch(cardPath)
        .set('Content-Type', PATCH_TYPE)
        .set('If-Match', tag)
        .send(JSON.stringify([{ op: 'replace', path: '/first_name', value: 'Grace' }]));
      expect(stale.status).toBe(412);
    });
  });
});

describeEachExpress('the example under random Accept* values and codings', (express) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await listen(createApp({ express }));
  });

  afterAll(async () => {
    await server.close();
  });

  const value = fc.oneof(
    fc.stringMatching(/^[\x20-\x7e]{0,60}$/),
    fc.constantFrom(
      'application/xml',
      'text/xml;q=0.5, */*;q=0.1',
      'text/javascript',
      'image/png',
      'iso-8859-1',
      'latin1;q=0.9, utf-8;q=0.1',
      'fr',
      'gzip',
      'br;q=0.5, deflate',
      'identity;q=0',
    ),
  );
  const headers = fc.record(
    {
      accept: value,
      'accept-charset': value,
      'accept-language': value,
      'accept-encoding': value,
    },
    { requiredKeys: [] },
  );
  const path = fc.constantFrom(
    ...READS,
    '/v1/vault/credit-cards/NOPE',
    '/v1/nope?accept=xml',
    `${READS[1]}?callback=cb`,
  );

  it('never answers 5xx, whatever the Accept* headers', async () => {
    await fc.assert(
      fc.asyncProperty(path, headers, async (p, h) => {
        const res = await fetch(`http://127.0.0.1:${server.port}${p}`, { headers: h });
        expect(res.status, `${p} ${JSON.stringify(h)}`).toBeLessThan(500);
        const body = Buffer.from(await res.arrayBuffer());
        if (
          res.status >= 400 &&
          (res.headers.get('content-type') ?? '').startsWith('application/json')
        ) {
          expect(Object.keys(JSON.parse(body.toString('latin1')) as object)).toEqual(['error']);
        }
      }),
      { seed: 3, numRuns: 150 },
    );
  });

  it('decodes a gzip JSON body', async () => {
    const { gzipSync } = await import('node:zlib');
    const res = await fetch(`http://127.0.0.1:${server.port}/v1/risk/evaluate`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        'accept-encoding': 'gzip',
      },
      body: gzipSync(Buffer.from('{"code":"R-3"}')),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'VALID' });
    expect(gunzipSync).toBeTypeOf('function');
  });
});
