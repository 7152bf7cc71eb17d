/**
 * The ugly cases of each complex operation kind in the example: bodies that are not what the
 * schema wants (nothing changes, nothing is recorded), concurrent calls, and concurrent
 * duplicates under one `Service-Request-Id` (the operation runs once).
 */
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const BASE = 'http://api.test';
const AGREEMENT = '/v1/payments/billing-agreements/AGREEMENT-SEED01';
const CAPTURE = '/v1/payments/captures/CAPTURE-SEED1';

/** Raw JSON texts that are not a valid operation body, with the answer expected. */
const BAD_BODIES: [string, string, string][] = [
  ['malformed JSON', '{"code":', 'MALFORMED_REQUEST'],
  ['a JSON string', '"R-1"', 'MALFORMED_REQUEST'],
  ['null', 'null', 'MALFORMED_REQUEST'],
  ['an array', '[{"code":"R-1"}]', 'VALIDATION_ERROR'],
];

describeEachExpress('complex operations: the ugly cases', (express) => {
  const app = () => createApp({ express, publicBaseUrl: BASE });
  const post = (server: ReturnType<typeof app>, path: string, raw: string) =>
    request(server).post(path).set('Content-Type', 'application/json').send(raw);

  describe('sub-resource action', () => {
    it.each([
      ...BAD_BODIES,
      // json-patch-update's checks, as on PUT and PATCH: refused before the schema sees it.
      ['a __proto__ key', '{"__proto__":{"note":"x"}}', 'INVALID_REQUEST'],
      ['a constructor key', '{"constructor":{"prototype":{"note":"x"}}}', 'INVALID_REQUEST'],
      [
        'a body 30 000 levels deep',
        `{"note":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
        'INVALID_REQUEST',
      ],
      ['a note of another type', '{"note":["x"]}', 'VALIDATION_ERROR'],
      ['a huge note', JSON.stringify({ note: 'x'.repeat(50_000) }), 'VALIDATION_ERROR'],
    ])('answers 400 to %s, changing and recording nothing', async (_, raw, code) => {
      const server = app();
      expectErrorEnvelope(await post(server, `${AGREEMENT}/suspend`, raw), 400, { code });
      expect((await request(server).get(AGREEMENT)).body.state).toBe('ACTIVE');
      expect((await request(server).get(`${AGREEMENT}/history`)).body.items).toEqual([]);
    });

    it('serialises concurrent suspend and re-activate calls: every call recorded, states chained', async () => {
      const server = app();
      const calls = await Promise.all(
        ['suspend', 're-activate', 'suspend', 're-activate'].map((action) =>
          request(server).post(`${AGREEMENT}/${action}`).send({}),
        ),
      );
      for (const res of calls) expect([200, 204]).toContain(res.status);
      const history = await request(server).get(
        `${AGREEMENT}/history?page_size=10&sort_by=create_time&sort_order=asc`,
      );
      const items: { state_before: string; state_after: string }[] = history.body.items;
      expect(items).toHaveLength(4);
      // One call at a time: each call starts from the state the previous one left.
      expect(items[0]?.state_before).toBe('ACTIVE');
      for (let i = 1; i < items.length; i++) {
        expect(items[i]?.state_before).toBe(items[i - 1]?.state_after);
      }
      const last = items.at(-1)?.state_after;
      expect((await request(server).get(AGREEMENT)).body.state).toBe(last);
    });

    it('runs concurrent duplicates under one Service-Request-Id once', async () => {
      const server = app();
      const calls = await Promise.all(
        Array.from({ length: 4 }, () =>
          request(server)
            .post(`${AGREEMENT}/suspend`)
            .set('Service-Request-Id', 'dup-suspend')
            .send({ note: 'once' }),
        ),
      );
      expectOneRunOthersReplayedOrInProgress(calls, 200);
      expect((await request(server).get(`${AGREEMENT}/history`)).body.items).toHaveLength(1);
    });
  });

  describe('composite operation (refund)', () => {
    it.each([
      ...BAD_BODIES,
      [
        'a __proto__ key',
        '{"__proto__":{"amount":{"total":"1.00","currency":"USD"}}}',
        'INVALID_REQUEST',
      ],
      [
        'a __proto__ key in the amount',
        '{"amount":{"total":"1.00","currency":"USD","__proto__":{"total":"0"}}}',
        'INVALID_REQUEST',
      ],
    ])('answers 400 to %s, refunding nothing', async (_, raw, code) => {
      const server = app();
      expectErrorEnvelope(await post(server, `${CAPTURE}/refund`, raw), 400, { code });
      const capture = await request(server).get(CAPTURE);
      expect(capture.body).toMatchObject({
        state: 'completed',
        refunded_amount: { total: '0.00' },
      });
    });

    it('runs concurrent duplicates under one Service-Request-Id once', async () => {
      const server = app();
      const calls = await Promise.all(
        Array.from({ length: 4 }, () =>
          request(server)
            .post(`${CAPTURE}/refund`)
            .set('Service-Request-Id', 'dup-refund')
            .send({ amount: { total: '1.00', currency: 'USD' } }),
        ),
      );
      expectOneRunOthersReplayedOrInProgress(calls, 201);
      const refunds = await request(server).get(`${CAPTURE}/refunds`);
      expect(refunds.body.items).toHaveLength(1);
      expect((await request(server).get(CAPTURE)).body.refunded_amount.total).toBe('1.00');
    });
  });

  describe('resource-oriented operation (decisions)', () => {
    it.each([
      ...BAD_BODIES,
      ['an empty code', '{"code":""}', 'VALIDATION_ERROR'],
      ['a code of another type', '{"code":7}', 'VALIDATION_ERROR'],
      ['a too long code', JSON.stringify({ code: 'x'.repeat(101) }), 'VALIDATION_ERROR'],
    ])('answers 400 to %s', async (_, raw, code) => {
      const res = await post(app(), '/v1/risk/decisions', raw);
      expectErrorEnvelope(res, 400, { code });
      expect(res.headers.location).toBeUndefined();
    });

    it('creates one record per concurrent call, each readable at its Location', async () => {
      const server = app();
      const calls = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          request(server)
            .post('/v1/risk/decisions')
            .send({ code: `R-${i}` }),
        ),
      );
      expect(calls.map((res) => res.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(calls.map((res) => res.body.id)).size).toBe(5);
      for (const res of calls) {
        const read = await request(server).get(new URL(String(res.headers.location)).pathname);
        expect(read.body).toEqual(res.body);
      }
    });

    it('runs concurrent duplicates under one Service-Request-Id once', async () => {
      const server = app();
      const calls = await Promise.all(
        Array.from({ length: 4 }, () =>
          request(server)
            .post('/v1/risk/decisions')
            .set('Service-Request-Id', 'dup-decision')
            .send({ code: 'R-1' }),
        ),
      );
      expectOneRunOthersReplayedOrInProgress(calls, 201);
      const created = calls.filter((res) => res.status === 201);
      expect(new Set(created.map((res) => res.body.id)).size).toBe(1);
    });
  });

  describe('transient operation (evaluate)', () => {
    it.each([
      ...BAD_BODIES,
      ['a code of another type', '{"code":{"nested":true}}', 'VALIDATION_ERROR'],
    ])('answers 400 to %s', async (_, raw, code) => {
      expectErrorEnvelope(await post(app(), '/v1/risk/evaluate', raw), 400, { code });
    });

    it('answers concurrent calls independently, each with its result', async () => {
      const server = app();
      const calls = await Promise.all(
        Array.from({ length: 5 }, (_, i) =>
          request(server)
            .post('/v1/risk/evaluate')
            .send({ code: `R-${i}` }),
        ),
      );
      for (const res of calls) {
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ status: 'VALID' });
        expect(res.headers.etag).toBeUndefined();
      }
    });
  });

  describe('read-only computed resource (refund summary)', () => {
    it('answers a repeated read with the same ETag, and 304 to If-None-Match', async () => {
      const server = app();
      const path = '/v1/payments/refund-summary?currency=USD';
      const first = await request(server).get(path);
      const again = await request(server).get(path);
      expect(again.headers.etag).toBe(first.headers.etag);
      const revalidated = await request(server)
        .get(path)
        .set('If-None-Match', String(first.headers.etag));
      expect(revalidated.status).toBe(304);
    });

    it('changes its ETag once a refund changes the totals', async () => {
      const server = app();
      const path = '/v1/payments/refund-summary?currency=USD';
      const before = await request(server).get(path);
      await request(server)
        .post(`${CAPTURE}/refund`)
        .send({ amount: { total: '1.00', currency: 'USD' } });
      const after = await request(server).get(path);
      expect(after.headers.etag).not.toBe(before.headers.etag);
      expect(after.body.refund_count).toBe(before.body.refund_count + 1);
    });
  });
});

/**
 * Concurrent duplicates: one ran (status `ran`), each other either waited for it and got the
 * replay, or was told the first is still running (409 REQUEST_IN_PROGRESS).
 */
function expectOneRunOthersReplayedOrInProgress(calls: request.Response[], ran: number): void {
  const firsts = calls.filter(
    (res) => res.status === ran && res.headers['idempotent-replayed'] === undefined,
  );
  expect(firsts).toHaveLength(1);
  for (const res of calls) {
    if (res === firsts[0]) continue;
    if (res.status === 409) {
      expect(res.body.error.innererror.code).toBe('REQUEST_IN_PROGRESS');
    } else {
      expect(res.status).toBe(ran);
      expect(res.headers['idempotent-replayed']).toBe('true');
      expect(res.body).toEqual(firsts[0]?.body);
    }
  }
}
