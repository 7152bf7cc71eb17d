import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const BASE = 'http://api.test';
type LinkBody = { links: { rel: string; href: string; method: string }[] };
const rels = (body: LinkBody) => body.links.map((link) => link.rel);
const href = (body: LinkBody, rel: string) => body.links.find((link) => link.rel === rel)?.href;
const pathOf = (url: string) => new URL(url).pathname + new URL(url).search;

/** A clock that moves one second on every reading. */
function steppingClock(start = Date.parse('2026-01-01T00:00:00Z')) {
  let time = start;
  return () => {
    time += 1000;
    return new Date(time);
  };
}

describeEachExpress('complex operations', (express) => {
  const app = () => createApp({ express, publicBaseUrl: BASE });
  const AGREEMENT = '/v1/payments/billing-agreements/AGREEMENT-SEED01';

  describe('billing agreement actions (sub-resource actions)', () => {
    it('suspend answers 200 with the agreement, which then offers re-activate', async () => {
      const res = await request(app()).post(`${AGREEMENT}/suspend`).send({ note: 'Paused.' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: 'AGREEMENT-SEED01', state: 'SUSPENDED' });
      expect(res.body.links).toEqual([
        { href: `${BASE}${AGREEMENT}`, rel: 'self', method: 'GET' },
        { href: `${BASE}${AGREEMENT}`, rel: 'patch', method: 'PATCH' },
        { href: `${BASE}${AGREEMENT}/re-activate`, rel: 're-activate', method: 'POST' },
        { href: `${BASE}${AGREEMENT}/history`, rel: 'history', method: 'GET' },
      ]);
    });

    it('an active agreement offers suspend and not re-activate', async () => {
      const res = await request(app()).get(AGREEMENT);
      expect(rels(res.body)).toEqual(['self', 'patch', 'suspend', 'history']);
    });

    it('re-activate answers 200 after a suspend and 204 when already active', async () => {
      const server = app();
      expect((await request(server).post(`${AGREEMENT}/re-activate`).send({})).status).toBe(204);
      await request(server).post(`${AGREEMENT}/suspend`).send({});
      const res = await request(server).post(`${AGREEMENT}/re-activate`).send({ note: 'Back.' });
      expect(res.status).toBe(200);
      expect(res.body.state).toBe('ACTIVE');
    });

    it('answers 204 without a body when the agreement is already suspended', async () => {
      const server = app();
      await request(server).post(`${AGREEMENT}/suspend`).send({ note: 'first' });
      const again = await request(server).post(`${AGREEMENT}/suspend`).send({ note: 'second' });
      expect(again.status).toBe(204);
      expect(again.text).toBe('');
    });

    it('records suspend and re-activate in the history, newest first', async () => {
      const server = createApp({ express, publicBaseUrl: BASE, now: steppingClock() });
      await request(server).post(`${AGREEMENT}/suspend`).send({ note: 'one' });
      await request(server).post(`${AGREEMENT}/suspend`).send({ note: 'two' });
      await request(server).post(`${AGREEMENT}/re-activate`).send({ note: 'three' });
      const agreement = await request(server).get(AGREEMENT);
      const res = await request(server).get(pathOf(href(agreement.body, 'history') as string));
      expect(res.status).toBe(200);
      expect(res.body.items).toMatchObject([
        {
          action: 're-activate',
          outcome: 'STATE_CHANGED',
          request: { note: 'three' },
          state_before: 'SUSPENDED',
          state_after: 'ACTIVE',
        },
        { action: 'suspend', outcome: 'NO_CHANGE', request: { note: 'two' } },
        { action: 'suspend', outcome: 'STATE_CHANGED', state_before: 'ACTIVE' },
      ]);
    });

    it('moves update_time on a change and keeps it on a 204', async () => {
      const server = createApp({ express, publicBaseUrl: BASE, now: steppingClock() });
      const before = (await request(server).get(AGREEMENT)).body.update_time;
      const changed = await request(server).post(`${AGREEMENT}/suspend`).send({});
      expect(Date.parse(changed.body.update_time)).toBeGreaterThan(Date.parse(before));
      await request(server).post(`${AGREEMENT}/suspend`).send({});
      const after = (await request(server).get(AGREEMENT)).body.update_time;
      expect(after).toBe(changed.body.update_time);
    });

    it('serialises two concurrent suspends: one 200, one 204, both in the history', async () => {
      const server = app();
      const calls = await Promise.all(
        ['a', 'b'].map((note) => request(server).post(`${AGREEMENT}/suspend`).send({ note })),
      );
      expect(calls.map((res) => res.status).sort()).toEqual([200, 204]);
      const history = await request(server).get(`${AGREEMENT}/history`);
      expect(history.body.items.map((e: { outcome: string }) => e.outcome)).toEqual([
        'NO_CHANGE',
        'STATE_CHANGED',
      ]);
    });

    it('replays a repeated Service-Request-Id and records the call once', async () => {
      const server = app();
      const send = () =>
        request(server)
          .post(`${AGREEMENT}/suspend`)
          .set('Service-Request-Id', 'suspend-1')
          .send({ note: 'once' });
      const first = await send();
      const again = await send();
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      const history = await request(server).get(`${AGREEMENT}/history`);
      expect(history.body.items).toHaveLength(1);
    });

    describe('with Prefer: return=… (as PUT and PATCH honour it)', () => {
      it.each([
        ['suspend', 'SUSPENDED', []],
        ['re-activate', 'ACTIVE', ['suspend']],
      ] as const)(
        '%s answers 204 to "return=minimal" and changes the state',
        async (action, state, before) => {
          const server = app();
          for (const first of before) await request(server).post(`${AGREEMENT}/${first}`).send({});
          const res = await request(server)
            .post(`${AGREEMENT}/${action}`)
            .set('Prefer', 'return=minimal')
            .send({ note: 'minimal' });
          expect(res.status).toBe(204);
          expect(res.text).toBe('');
          expect(res.headers['preference-applied']).toBe('return=minimal');
          expect(res.headers.vary).toMatch(/\bPrefer\b/);
          const read = await request(server).get(AGREEMENT);
          expect(read.body.state).toBe(state);
          expect(res.headers.etag).toBe(read.headers.etag);
        },
      );

      it('re-activate of an active agreement answers 200 with it to "return=representation"', async () => {
        const res = await request(app())
          .post(`${AGREEMENT}/re-activate`)
          .set('Prefer', 'return=representation')
          .send({});
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ id: 'AGREEMENT-SEED01', state: 'ACTIVE' });
        expect(res.headers['preference-applied']).toBe('return=representation');
      });

      it('takes the preference as a query parameter too', async () => {
        const res = await request(app())
          .post(`${AGREEMENT}/suspend?Prefer=return%3Dminimal`)
          .send({});
        expect(res.status).toBe(204);
        expect(res.headers['preference-applied']).toBe('return=minimal');
      });

      it('replays a "return=minimal" answer as sent for a repeated Service-Request-Id', async () => {
        const server = app();
        const send = () =>
          request(server)
            .post(`${AGREEMENT}/suspend`)
            .set('Service-Request-Id', 'suspend-minimal')
            .set('Prefer', 'return=minimal')
            .send({});
        const first = await send();
        const again = await send();
        expect([first.status, again.status]).toEqual([204, 204]);
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(again.headers['preference-applied']).toBe('return=minimal');
        expect((await request(server).get(`${AGREEMENT}/history`)).body.items).toHaveLength(1);
      });
    });

    it('answers 404 for a missing agreement and 400 naming the field for a bad note', async () => {
      const missing = await request(app()).post('/v1/payments/billing-agreements/NOPE/suspend');
      expectErrorEnvelope(missing, 404, { code: 'NOT_FOUND', target: 'agreement_id' });
      for (const body of [{ note: 42 }, { note: 'x'.repeat(501) }]) {
        const bad = await request(app()).post(`${AGREEMENT}/re-activate`).send(body);
        expectErrorEnvelope(bad, 400, { code: 'VALIDATION_ERROR', target: 'note' });
      }
      const unknown = await request(app()).post(`${AGREEMENT}/suspend`).send({ reason: 'x' });
      expectErrorEnvelope(unknown, 400, { code: 'VALIDATION_ERROR' });
    });
  });

  describe('POST /v1/payments/captures/{id}/refund (composite)', () => {
    const refund = (
      server: ReturnType<typeof app>,
      capture: string,
      total: string,
      currency = 'USD',
    ) =>
      request(server)
        .post(`/v1/payments/captures/${capture}/refund`)
        .send({ amount: { total, currency } });

    it('answers 201 with Location and links self, parent_payment and capture, each readable', async () => {
      const server = app();
      const res = await refund(server, 'CAPTURE-SEED2', '5.5');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        state: 'completed',
        capture_id: 'CAPTURE-SEED2',
        parent_payment: 'PAY-SEED2',
        amount: { total: '5.50', currency: 'USD' },
      });
      expect(res.headers.location).toBe(`${BASE}/v1/payments/refunds/${res.body.id}`);
      expect(res.body.links).toEqual([
        { href: res.headers.location, rel: 'self', method: 'GET' },
        { href: `${BASE}/v1/payments/payments/PAY-SEED2`, rel: 'parent_payment', method: 'GET' },
        { href: `${BASE}/v1/payments/captures/CAPTURE-SEED2`, rel: 'capture', method: 'GET' },
      ]);
      const self = await request(server).get(pathOf(res.body.links[0].href));
      expect(self.body).toEqual(res.body);
      const payment = await request(server).get(pathOf(res.body.links[1].href));
      expect(payment.status).toBe(200);
      expect(payment.body).toMatchObject({ id: 'PAY-SEED2', amount: { total: '25.50' } });
      const capture = await request(server).get(pathOf(res.body.links[2].href));
      expect(capture.status).toBe(200);
    });

    it('moves the capture from completed to partially_refunded to refunded', async () => {
      const server = createApp({ express, publicBaseUrl: BASE, now: steppingClock() });
      const path = '/v1/payments/captures/CAPTURE-SEED1';
      const start = (await request(server).get(path)).body;
      expect(start).toMatchObject({
        state: 'completed',
        amount: { total: '10.00', currency: 'USD' },
        refunded_amount: { total: '0.00', currency: 'USD' },
        remaining_amount: { total: '10.00', currency: 'USD' },
      });
      expect(rels(start)).toEqual(['self', 'parent_payment', 'refunds', 'refund']);

      await refund(server, 'CAPTURE-SEED1', '6.00');
      const partial = (await request(server).get(path)).body;
      expect(partial).toMatchObject({
        state: 'partially_refunded',
        refunded_amount: { total: '6.00' },
        remaining_amount: { total: '4.00' },
      });
      expect(Date.parse(partial.update_time)).toBeGreaterThan(Date.parse(start.update_time));
      expect(rels(partial)).toContain('refund');

      await refund(server, 'CAPTURE-SEED1', '4.00');
      const full = (await request(server).get(path)).body;
      expect(full).toMatchObject({
        state: 'refunded',
        refunded_amount: { total: '10.00' },
        remaining_amount: { total: '0.00' },
      });
      expect(Date.parse(full.update_time)).toBeGreaterThan(Date.parse(partial.update_time));
      expect(rels(full)).toEqual(['self', 'parent_payment', 'refunds']);
    });

    it('adds 0.10 and 0.20 exactly: the 0.30 capture is then fully refunded', async () => {
      const server = app();
      expect((await refund(server, 'CAPTURE-SEED4', '0.10')).status).toBe(201);
      expect((await refund(server, 'CAPTURE-SEED4', '0.20')).status).toBe(201);
      const capture = await request(server).get('/v1/payments/captures/CAPTURE-SEED4');
      expect(capture.body).toMatchObject({
        state: 'refunded',
        refunded_amount: { total: '0.30' },
        remaining_amount: { total: '0.00' },
      });
    });

    it('keeps each currency to its decimal places: JPY none, KWD three', async () => {
      const server = app();
      const yen = await refund(server, 'CAPTURE-SEED5', '499', 'JPY');
      expect(yen.body.amount).toEqual({ total: '499', currency: 'JPY' });
      const dinar = await refund(server, 'CAPTURE-SEED6', '0.125', 'KWD');
      expect(dinar.body.amount).toEqual({ total: '0.125', currency: 'KWD' });
      const capture = await request(server).get('/v1/payments/captures/CAPTURE-SEED6');
      expect(capture.body.remaining_amount).toEqual({ total: '1.125', currency: 'KWD' });
      expectErrorEnvelope(await refund(server, 'CAPTURE-SEED5', '1.5', 'JPY'), 400, {
        code: 'VALIDATION_ERROR',
        target: 'amount.total',
      });
      expectErrorEnvelope(await refund(server, 'CAPTURE-SEED1', '1.001'), 400, {
        code: 'VALIDATION_ERROR',
        target: 'amount.total',
      });
    });

    describe('business rules: 422 with an innererror code', () => {
      it.each([
        [
          'a zero amount',
          'CAPTURE-SEED1',
          '0.00',
          'USD',
          'REFUND_AMOUNT_NOT_POSITIVE',
          'amount.total',
        ],
        [
          'a negative amount',
          'CAPTURE-SEED1',
          '-1.00',
          'USD',
          'REFUND_AMOUNT_NOT_POSITIVE',
          'amount.total',
        ],
        [
          'another currency',
          'CAPTURE-SEED1',
          '1.00',
          'EUR',
          'CURRENCY_MISMATCH',
          'amount.currency',
        ],
        [
          'more than is left',
          'CAPTURE-SEED1',
          '10.01',
          'USD',
          'REFUND_EXCEEDS_CAPTURE',
          'amount.total',
        ],
      ])('refuses %s', async (_, capture, total, currency, code, target) => {
        const server = app();
        const res = await refund(server, capture, total, currency);
        expectErrorEnvelope(res, 422, { code: 'UNPROCESSABLE_ENTITY', target });
        expect(res.body.error.innererror).toMatchObject({ code });
        const after = await request(server).get(`/v1/payments/captures/${capture}`);
        expect(after.body.state).toBe('completed');
      });

      it('refuses any refund of a fully refunded capture', async () => {
        const server = app();
        await refund(server, 'CAPTURE-SEED1', '10.00');
        const res = await refund(server, 'CAPTURE-SEED1', '0.01');
        expectErrorEnvelope(res, 422, { target: 'capture_id' });
        expect(res.body.error.innererror).toMatchObject({ code: 'CAPTURE_FULLY_REFUNDED' });
      });
    });

    describe('without an amount: the whole remainder', () => {
      const bodiless = (server: ReturnType<typeof app>, capture: string) =>
        request(server).post(`/v1/payments/captures/${capture}/refund`);

      it('refunds all of a capture when the POST has no body', async () => {
        const server = app();
        const res = await bodiless(server, 'CAPTURE-SEED2');
        expect(res.status).toBe(201);
        expect(res.body.amount).toEqual({ total: '25.50', currency: 'USD' });
        const capture = (await request(server).get('/v1/payments/captures/CAPTURE-SEED2')).body;
        expect(capture).toMatchObject({ state: 'refunded', refunded_amount: { total: '25.50' } });
      });

      it('refunds what is left after a partial refund, for an empty object too', async () => {
        const server = app();
        expect((await refund(server, 'CAPTURE-SEED5', '500', 'JPY')).status).toBe(201);
        const res = await request(server)
          .post('/v1/payments/captures/CAPTURE-SEED5/refund')
          .send({});
        expect(res.status).toBe(201);
        expect(res.body.amount).toEqual({ total: '1000', currency: 'JPY' });
        const capture = (await request(server).get('/v1/payments/captures/CAPTURE-SEED5')).body;
        expect(capture).toMatchObject({ state: 'refunded', refunded_amount: { total: '1500' } });
      });

      it('answers 422 CAPTURE_FULLY_REFUNDED when nothing is left', async () => {
        const server = app();
        await refund(server, 'CAPTURE-SEED1', '10.00');
        const res = await bodiless(server, 'CAPTURE-SEED1');
        expectErrorEnvelope(res, 422, { target: 'capture_id' });
        expect(res.body.error.innererror).toMatchObject({ code: 'CAPTURE_FULLY_REFUNDED' });
      });

      it('refunds the remainder once when two bodiless refunds race', async () => {
        const server = app();
        const answers = await Promise.all([
          bodiless(server, 'CAPTURE-SEED3'),
          bodiless(server, 'CAPTURE-SEED3'),
        ]);
        expect(answers.map((res) => res.status).sort()).toEqual([201, 422]);
        const refunds = await request(server).get('/v1/payments/captures/CAPTURE-SEED3/refunds');
        expect(refunds.body.items.map((item: { amount: unknown }) => item.amount)).toEqual([
          { total: '99.99', currency: 'USD' },
        ]);
      });
    });

    describe('malformed input: 400 naming the field', () => {
      it.each([
        ['exponent notation', { amount: { total: '1e3', currency: 'USD' } }, 'amount.total'],
        ['a number instead of a string', { amount: { total: 5, currency: 'USD' } }, 'amount.total'],
        [
          'an unsupported currency',
          { amount: { total: '1.00', currency: 'XYZ' } },
          'amount.currency',
        ],
        ['a huge amount', { amount: { total: '9'.repeat(16), currency: 'USD' } }, 'amount.total'],
        ['a null amount', { amount: null }, 'amount'],
        ['an amount that is a string', { amount: '1.00' }, 'amount'],
      ])('%s', async (_, body, target) => {
        const res = await request(app())
          .post('/v1/payments/captures/CAPTURE-SEED1/refund')
          .send(body);
        expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target });
      });
    });

    it('answers 404 for a missing capture', async () => {
      expectErrorEnvelope(await refund(app(), 'NOPE', '1.00'), 404, { target: 'capture_id' });
    });

    it('replays a repeated Service-Request-Id: one refund', async () => {
      const server = app();
      const send = () =>
        request(server)
          .post('/v1/payments/captures/CAPTURE-SEED3/refund')
          .set('Service-Request-Id', 'refund-1')
          .send({ amount: { total: '1.00', currency: 'USD' } });
      const first = await send();
      const again = await send();
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      const list = await request(server).get('/v1/payments/captures/CAPTURE-SEED3/refunds');
      expect(list.body.items).toHaveLength(1);
    });

    it('serialises concurrent refunds so that together they never exceed the capture', async () => {
      const server = app();
      const results = await Promise.all(
        Array.from({ length: 5 }, () => refund(server, 'CAPTURE-SEED1', '3.00')),
      );
      expect(results.filter((res) => res.status === 201)).toHaveLength(3);
      expect(results.filter((res) => res.status === 422)).toHaveLength(2);
      const capture = await request(server).get('/v1/payments/captures/CAPTURE-SEED1');
      expect(capture.body.refunded_amount.total).toBe('9.00');
    });

    it('lists the refunds of a capture, paged, from its refunds link', async () => {
      const server = app();
      for (const total of ['1.00', '2.00', '3.00']) await refund(server, 'CAPTURE-SEED3', total);
      const capture = await request(server).get('/v1/payments/captures/CAPTURE-SEED3');
      const res = await request(server).get(
        `${pathOf(href(capture.body, 'refunds') as string)}?page_size=2`,
      );
      expect(res.status).toBe(200);
      expect(res.body.total_items).toBe(3);
      expect(res.body.items.map((r: { amount: { total: string } }) => r.amount.total)).toEqual([
        '1.00',
        '2.00',
      ]);
      expect(rels(res.body.items[0])).toEqual(['self', 'parent_payment', 'capture']);
      expect(rels(res.body)).toContain('next');
      expectErrorEnvelope(await request(server).get('/v1/payments/captures/NOPE/refunds'), 404, {
        target: 'capture_id',
      });
    });
  });

  describe('GET /v1/payments/refund-summary (read-only computed)', () => {
    it('sums the captures and refunds of a currency', async () => {
      const server = app();
      await request(server)
        .post('/v1/payments/captures/CAPTURE-SEED4/refund')
        .send({ amount: { total: '0.10', currency: 'USD' } });
      const res = await request(server).get('/v1/payments/refund-summary?currency=USD');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        currency: 'USD',
        capture_count: 4,
        refund_count: 1,
        captured_amount: { total: '135.79', currency: 'USD' },
        refunded_amount: { total: '0.10', currency: 'USD' },
        remaining_amount: { total: '135.69', currency: 'USD' },
      });
      expect(res.headers.etag).toMatch(/^"/);
    });

    it('selects captures by creation time', async () => {
      const server = app();
      const all = await request(server).get('/v1/payments/captures?page_size=10');
      const last = all.body.items.find((c: { id: string }) => c.id === 'CAPTURE-SEED3');
      const res = await request(server).get(
        `/v1/payments/refund-summary?currency=USD&start_time=${encodeURIComponent(last.create_time)}`,
      );
      expect(res.body).toMatchObject({ capture_count: 2, start_time: last.create_time });
    });

    it.each([
      ['no currency', '', 'currency', 'VALIDATION_ERROR'],
      ['an unknown parameter', '?currency=USD&page=2', 'page', 'INVALID_REQUEST'],
      ['a repeated parameter', '?currency=USD&currency=EUR', 'currency', 'INVALID_REQUEST'],
      ['a bad time', '?currency=USD&start_time=yesterday', 'start_time', 'VALIDATION_ERROR'],
      [
        'an end before the start',
        '?currency=USD&start_time=2026-02-01T00:00:00Z&end_time=2026-01-01T00:00:00Z',
        'end_time',
        'VALIDATION_ERROR',
      ],
    ])('answers 400 naming the parameter for %s', async (_, query, target, code) => {
      const res = await request(app()).get(`/v1/payments/refund-summary${query}`);
      expectErrorEnvelope(res, 400, { code, target });
    });
  });

  describe('risk', () => {
    it('POST /v1/risk/decisions answers 201 with a self link, readable by GET', async () => {
      const server = app();
      const res = await request(server).post('/v1/risk/decisions').send({ code: 'R-1' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ code: 'R-1', status: 'APPROVED' });
      expect(res.headers.location).toBe(`${BASE}/v1/risk/decisions/${res.body.id}`);
      expect(res.body.links).toEqual([
        { href: `${BASE}/v1/risk/decisions/${res.body.id}`, rel: 'self', method: 'GET' },
      ]);
      const read = await request(server).get(`/v1/risk/decisions/${res.body.id}`);
      expect(read.body).toEqual(res.body);
    });

    it('POST /v1/risk/evaluate answers 200 VALID, stores nothing, sends no Location or ETag', async () => {
      const res = await request(app()).post('/v1/risk/evaluate').send({ code: 'R-2' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'VALID' });
      expect(res.headers.location).toBeUndefined();
      expect(res.headers.etag).toBeUndefined();
    });

    it('answers 400 naming code when it is missing', async () => {
      for (const path of ['/v1/risk/evaluate', '/v1/risk/decisions']) {
        const res = await request(app()).post(path).send({});
        expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'code' });
      }
    });
  });
});
