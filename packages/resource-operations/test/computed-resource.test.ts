import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildFixture } from './fixture.js';

describeEachExpress('read-only computed resources', (express) => {
  const setup = () => buildFixture(express);

  it('answers 200 with the computed body, an ETag and 304 on revalidation', async () => {
    const { app } = setup();
    const res = await request(app).get('/v1/orders-summary');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ order_count: 1, refunded_total: 0 });
    expect(res.headers.location).toBeUndefined();
    const again = await request(app)
      .get('/v1/orders-summary')
      .set('If-None-Match', res.headers.etag as string);
    expect(again.status).toBe(304);
  });

  it('reads its parameters through the schema', async () => {
    const { app } = setup();
    await request(app).post('/v1/orders/ORD-1/refund').send({ amount: 10 });
    const refunded = await request(app).get('/v1/orders-summary?state=refunded&min_total=5');
    expect(refunded.body).toEqual({ order_count: 1, refunded_total: 10 });
    const none = await request(app).get('/v1/orders-summary?min_total=11');
    expect(none.body).toEqual({ order_count: 0, refunded_total: 0 });
  });

  it('accepts the declared header parameters it does not read', async () => {
    const { app } = setup();
    expect((await request(app).get('/v1/orders-summary?Prefer=return%3Dminimal')).status).toBe(200);
  });

  describe('bad parameters', () => {
    it.each([
      ['an unknown parameter', '?colour=red', 'colour', 'INVALID_REQUEST', 'UNKNOWN_PARAMETER'],
      [
        'a repeated parameter',
        '?state=open&state=open',
        'state',
        'INVALID_REQUEST',
        'REPEATED_PARAMETER',
      ],
      ['an empty parameter', '?state=', 'state', 'INVALID_REQUEST', 'EMPTY_PARAMETER'],
      [
        'an over-long parameter',
        `?state=${'x'.repeat(1025)}`,
        'state',
        'INVALID_REQUEST',
        'PARAMETER_TOO_LONG',
      ],
      ['a bracketed name', '?state[a]=1', 'state[a]', 'INVALID_REQUEST', 'UNKNOWN_PARAMETER'],
      ['__proto__', '?__proto__=1', '__proto__', 'INVALID_REQUEST', 'UNKNOWN_PARAMETER'],
    ])('answers 400 naming the parameter for %s', async (_, query, target, code, inner) => {
      const res = await request(setup().app).get(`/v1/orders-summary${query}`);
      expectErrorEnvelope(res, 400, { code, target });
      expect(res.body.error.innererror).toEqual({ code: inner });
    });

    it.each([
      ['a value outside the enum', '?state=closed', 'state'],
      ['a non-number', '?min_total=ten', 'min_total'],
      ['a huge number', '?min_total=1e400', 'min_total'],
    ])('answers 400 VALIDATION_ERROR for %s', async (_, query, target) => {
      const res = await request(setup().app).get(`/v1/orders-summary${query}`);
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target });
    });
  });

  it('computes every read afresh, never replaying one under a Service-Request-Id', async () => {
    const { app } = setup();
    const read = () => request(app).get('/v1/orders-summary').set('Service-Request-Id', 'sum-1');
    const before = await read();
    await request(app).post('/v1/orders/ORD-1/refund').send({ amount: 4 });
    const after = await read();
    expect(before.body).toEqual({ order_count: 1, refunded_total: 0 });
    expect(after.body).toEqual({ order_count: 1, refunded_total: 4 });
    expect(after.headers['idempotent-replayed']).toBeUndefined();
    expect(after.headers.etag).not.toBe(before.headers.etag);
  });

  it('answers concurrent reads each from its own parameters', async () => {
    const { app } = setup();
    const queries = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 0 : 11));
    const answers = await Promise.all(
      queries.map((min) => request(app).get(`/v1/orders-summary?min_total=${min}`)),
    );
    expect(answers.map((res) => res.body.order_count)).toEqual(
      queries.map((min) => (min === 0 ? 1 : 0)),
    );
  });

  it('answers HEAD like GET without a body', async () => {
    const res = await request(setup().app).head('/v1/orders-summary');
    expect(res.status).toBe(200);
    expect(res.text).toBeUndefined();
  });
});
