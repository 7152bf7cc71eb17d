import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildFixture } from './fixture.js';

const BASE = 'http://api.test';

describeEachExpress('composite operations', (express) => {
  const setup = () => buildFixture(express, { publicBaseUrl: BASE });

  describe('status and links', () => {
    it('answers 201 with Location, self and related links, each readable', async () => {
      const { app } = setup();
      const res = await request(app).post('/v1/orders/ORD-1/refund').send({ amount: 4 });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ order_id: 'ORD-1', amount: 4 });
      const self = `${BASE}/v1/refunds/${res.body.id}`;
      expect(res.headers.location).toBe(self);
      expect(res.body.links).toEqual([
        { href: self, rel: 'self', method: 'GET' },
        { href: `${BASE}/v1/orders/ORD-1`, rel: 'order', method: 'GET' },
      ]);
      for (const link of res.body.links) {
        const read = await request(app).get(new URL(link.href).pathname);
        expect(read.status).toBe(200);
      }
      const read = await request(app).get(`/v1/refunds/${res.body.id}`);
      expect(read.body).toEqual(res.body);
    });

    it('answers 201 with an empty body under Prefer: return=minimal, Location kept', async () => {
      const { app } = setup();
      const res = await request(app)
        .post('/v1/orders/ORD-1/refund')
        .set('Prefer', 'return=minimal')
        .send({ amount: 1 });
      expect(res.status).toBe(201);
      expect(res.text).toBe('');
      expect(res.headers.location).toMatch(/\/v1\/refunds\/REF-1$/);
    });

    it('offers the operation link on the source only while it is possible', async () => {
      const { app } = setup();
      const before = await request(app).get('/v1/orders/ORD-1');
      expect(before.body.links).toEqual([
        { href: `${BASE}/v1/orders/ORD-1/refund`, rel: 'refund', method: 'POST' },
      ]);
      await request(app).post('/v1/orders/ORD-1/refund').send({ amount: 10 });
      const after = await request(app).get('/v1/orders/ORD-1');
      expect(after.body.links).toEqual([]);
    });

    it('answers 404 naming the parameter for a missing source or created record', async () => {
      const { app } = setup();
      expectErrorEnvelope(
        await request(app).post('/v1/orders/NOPE/refund').send({ amount: 1 }),
        404,
        { target: 'order_id' },
      );
      expectErrorEnvelope(await request(app).get('/v1/refunds/NOPE'), 404, {
        target: 'refund_id',
      });
    });

    it('passes the business refusal of create through, creating nothing', async () => {
      const fixture = setup();
      const res = await request(fixture.app).post('/v1/orders/ORD-1/refund').send({ amount: 11 });
      expectErrorEnvelope(res, 422, { target: 'amount' });
      expect(fixture.refunds.size).toBe(0);
    });
  });

  describe('bad bodies', () => {
    it.each([
      ['a missing field', {}, 'amount'],
      ['a wrong type', { amount: '4' }, 'amount'],
      ['a negative amount', { amount: -1 }, 'amount'],
      ['a huge amount', { amount: 1e308 }, 'amount'],
    ])('answers 400 naming the field for %s', async (_, body, target) => {
      const fixture = setup();
      const res = await request(fixture.app).post('/v1/orders/ORD-1/refund').send(body);
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target });
      expect(fixture.calls.refund).toBeUndefined();
    });

    it('answers 400 for malformed JSON', async () => {
      const { app } = setup();
      const res = await request(app)
        .post('/v1/orders/ORD-1/refund')
        .set('Content-Type', 'application/json')
        .send('{"amount":');
      expect(res.status).toBe(400);
    });
  });

  describe('idempotent repeat and concurrency', () => {
    it('replays the 201 for a repeated Service-Request-Id and creates once', async () => {
      const fixture = setup();
      const send = () =>
        request(fixture.app)
          .post('/v1/orders/ORD-1/refund')
          .set('Service-Request-Id', 'refund-1')
          .send({ amount: 3 });
      const first = await send();
      const again = await send();
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(again.headers.location).toBe(first.headers.location);
      expect(fixture.refunds.size).toBe(1);
    });

    it('serialises concurrent calls on one source: they cannot together exceed it', async () => {
      const fixture = setup();
      const results = await Promise.all(
        [6, 6].map((amount) =>
          request(fixture.app).post('/v1/orders/ORD-1/refund').send({ amount }),
        ),
      );
      expect(results.map((res) => res.status).sort()).toEqual([201, 422]);
      expect(fixture.orders.get('ORD-1')?.refunded).toBe(6);
    });

    it('honours If-Match against the source representation', async () => {
      const { app } = setup();
      const read = await request(app).get('/v1/orders/ORD-1');
      await request(app).post('/v1/orders/ORD-1/refund').send({ amount: 1 });
      const res = await request(app)
        .post('/v1/orders/ORD-1/refund')
        .set('If-Match', read.headers.etag as string)
        .send({ amount: 1 });
      expectErrorEnvelope(res, 412, { target: 'If-Match' });
    });
  });
});
