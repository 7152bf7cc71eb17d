import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

interface Link {
  href: string;
  rel: string;
  method: string;
}

const rels = (links: Link[]) => links.map((link) => link.rel).sort();
const linkTo = (links: Link[], rel: string) => links.find((link) => link.rel === rel);

describeEachExpress('collections', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'https://api.example.com' });

  describe('GET /v1/vault/credit-cards', () => {
    it('answers the collection envelope with absolute links', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?page_size=2');
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual([
        'items',
        'links',
        'total_items',
        'total_pages',
      ]);
      expect(res.body).toMatchObject({ total_items: 3, total_pages: 2 });
      expect(res.body.items).toHaveLength(2);
      expect(rels(res.body.links)).toEqual(['first', 'last', 'next', 'self']);
      expect(linkTo(res.body.links, 'next')).toEqual({
        href: 'https://api.example.com/v1/vault/credit-cards?page=2&page_size=2',
        rel: 'next',
        method: 'GET',
      });
    });

    it('lists summaries: masked number, no billing address, a self link', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards');
      for (const card of res.body.items) {
        expect(card.number).toMatch(/^x+\d{4}$/);
        expect(card.billing_address).toBeUndefined();
        expect(card.links.map((l: Link) => l.rel)).toEqual(['self']);
      }
    });

    it("lists each card's fields in the single card's order, with its self link", async () => {
      const server = app();
      const list = await request(server).get('/v1/vault/credit-cards');
      for (const summary of list.body.items) {
        const single = await request(server).get(`/v1/vault/credit-cards/${summary.id}`);
        const { billing_address: _address, links, ...fields } = single.body;
        expect(Object.keys(summary)).toEqual([...Object.keys(fields), 'links']);
        expect(summary).toEqual({ ...fields, links: [linkTo(links, 'self')] });
      }
    });

    it('sorts, filters by payer_id and selects by create_time', async () => {
      const sorted = await request(app()).get(
        '/v1/vault/credit-cards?sort_by=expire_year&sort_order=asc',
      );
      expect(sorted.body.items.map((c: { expire_year: string }) => c.expire_year)).toEqual([
        '2029',
        '2030',
        '2031',
      ]);
      const filtered = await request(app()).get('/v1/vault/credit-cards?payer_id=user12345');
      expect(filtered.body.total_items).toBe(2);
      const recent = await request(app()).get(
        `/v1/vault/credit-cards?create_time_after=${encodeURIComponent(new Date(Date.now() - 90 * 60_000).toISOString())}`,
      );
      expect(recent.body.total_items).toBe(1);
    });

    it('accepts the other convention: limit and offset, sortby and order', async () => {
      const res = await request(app()).get(
        '/v1/vault/credit-cards?limit=1&offset=1&sortby=last_name&order=desc',
      );
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(1);
    });

    it('answers 200 with no items past the last page, never 404', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?page=9');
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([]);
      expect(res.body.total_items).toBe(3);
    });

    it.each([
      ['page=0', 'page'],
      ['page=abc', 'page'],
      ['page_size=1000', 'page_size'],
      ['sort_by=number', 'sort_by'],
      ['sort_order=sideways', 'sort_order'],
      ['create_time_after=yesterday', 'create_time_after'],
      ['page=1&offset=2', 'offset'],
      ['page=1&page=2', 'page'],
      ['number=4111', 'number'],
    ])('answers 400 naming the parameter for ?%s', async (query, target) => {
      const res = await request(app()).get(`/v1/vault/credit-cards?${query}`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target });
    });

    it('allows Prefer as a query parameter on lists', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards?Prefer=return%3Dminimal');
      expect(res.status).toBe(200);
    });
  });

  describe('other lists', () => {
    it('pages customers, webhooks, billing agreements and captures', async () => {
      const server = app();
      for (const [path, total] of [
        ['/v1/customers/customers', 3],
        ['/v1/notifications/webhooks', 1],
        ['/v1/payments/billing-agreements', 25],
        ['/v1/payments/captures', 6],
      ] as const) {
        const res = await request(server).get(path);
        expect(res.status, path).toBe(200);
        expect(res.body.total_items, path).toBe(total);
      }
    });

    it('links the middle page of billing agreements both ways', async () => {
      const res = await request(app()).get(
        '/v1/payments/billing-agreements?page=2&page_size=10&state=ACTIVE',
      );
      expect(res.body).toMatchObject({ total_items: 20, total_pages: 2 });
      expect(rels(res.body.links)).toEqual(['first', 'last', 'previous', 'self']);
      expect(linkTo(res.body.links, 'previous')?.href).toBe(
        'https://api.example.com/v1/payments/billing-agreements?state=ACTIVE&page=1&page_size=10',
      );
    });

    it('pages the event types of a webhook as a sub-collection', async () => {
      const res = await request(app()).get(
        '/v1/notifications/webhooks/WH-SEED1/event-types?page_size=2',
      );
      expect(res.status).toBe(200);
      expect(res.body.total_items).toBe(3);
      expect(res.body.items[0]).toEqual({
        name: 'PAYMENT.SALE.COMPLETED',
        description: 'A sale completed.',
      });
      expect(linkTo(res.body.links, 'next')?.href).toContain(
        '/v1/notifications/webhooks/WH-SEED1/event-types?',
      );
    });

    it('answers 404 for the event types of a missing webhook', async () => {
      const res = await request(app()).get('/v1/notifications/webhooks/WH-NOPE/event-types');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND', target: 'webhook_id' });
    });
  });

  describe('POST /v1/payments/search-billing-agreements', () => {
    it('answers 200 with items and POST links, paged by the query', async () => {
      const res = await request(app())
        .post('/v1/payments/search-billing-agreements?page=1&page_size=5')
        .send({ status: 'ACTIVE' });
      expect(res.status).toBe(200);
      expect(res.body.items).toHaveLength(5);
      expect(res.body.total_items).toBe(20);
      for (const item of res.body.items) expect(item.state).toBe('ACTIVE');
      const next = linkTo(res.body.links, 'next');
      expect(next).toEqual({
        href: 'https://api.example.com/v1/payments/search-billing-agreements?page=2&page_size=5',
        rel: 'next',
        method: 'POST',
      });
      expect(linkTo(res.body.links, 'last')?.method).toBe('POST');
    });

    it('filters by create_time_before', async () => {
      const res = await request(app())
        .post('/v1/payments/search-billing-agreements?page_size=100')
        .send({ create_time_before: new Date(Date.now() - 20.5 * 3_600_000).toISOString() });
      expect(res.body.total_items).toBe(5);
    });

    it('answers 400 naming the criterion for a bad status or an unknown field', async () => {
      const bad = await request(app())
        .post('/v1/payments/search-billing-agreements')
        .send({ status: 'GONE' });
      expectErrorEnvelope(bad, 400, { target: 'status' });
      const unknown = await request(app())
        .post('/v1/payments/search-billing-agreements')
        .send({ vendor: 'x' });
      expect(unknown.status).toBe(400);
    });
  });

  it('pages the history of a billing agreement', async () => {
    const server = app();
    const path = '/v1/payments/billing-agreements/AGREEMENT-SEED02';
    for (const note of ['a', 'b', 'c'])
      await request(server).post(`${path}/suspend`).send({ note });
    const res = await request(server).get(`${path}/history?page_size=2`);
    expect(res.body.total_items).toBe(3);
    // Newest first.
    expect(res.body.items.map((e: { request: { note: string } }) => e.request.note)).toEqual([
      'c',
      'b',
    ]);
  });
});
