import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

describeEachExpress('complex operations', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });

  describe('POST /v1/payments/billing-agreements/{id}/suspend (sub-resource action)', () => {
    it('answers 200 with the agreement when the state changes', async () => {
      const server = app();
      const res = await request(server)
        .post('/v1/payments/billing-agreements/AGREEMENT-SEED01/suspend')
        .send({ note: 'Customer asked to pause.' });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: 'AGREEMENT-SEED01', state: 'SUSPENDED' });
      // A suspended agreement no longer offers the action.
      expect(res.body.links.map((l: { rel: string }) => l.rel)).toEqual([
        'self',
        'patch',
        'history',
      ]);
    });

    it('answers 204 without a body when the agreement is already suspended', async () => {
      const server = app();
      const path = '/v1/payments/billing-agreements/AGREEMENT-SEED01/suspend';
      await request(server).post(path).send({ note: 'first' });
      const again = await request(server).post(path).send({ note: 'second' });
      expect(again.status).toBe(204);
      expect(again.text).toBe('');
    });

    it('accepts a call without a body', async () => {
      const res = await request(app()).post(
        '/v1/payments/billing-agreements/AGREEMENT-SEED02/suspend',
      );
      expect(res.status).toBe(200);
    });

    it('records every call in the history linked from the agreement', async () => {
      const server = app();
      const path = '/v1/payments/billing-agreements/AGREEMENT-SEED03';
      await request(server).post(`${path}/suspend`).send({ note: 'one' });
      await request(server).post(`${path}/suspend`).send({ note: 'two' });
      const agreement = await request(server).get(path);
      const history = agreement.body.links.find((l: { rel: string }) => l.rel === 'history');
      expect(history).toEqual({
        href: `http://api.test${path}/history`,
        rel: 'history',
        method: 'GET',
      });
      const res = await request(server).get(`${path}/history`);
      expect(res.status).toBe(200);
      expect(res.body.items.map((e: { note: string }) => e.note)).toEqual(['one', 'two']);
      expect(res.body.items[0]).toMatchObject({
        action: 'suspend',
        state_before: 'ACTIVE',
        state_after: 'SUSPENDED',
      });
    });

    it('answers 404 for a missing agreement and 400 for a bad note', async () => {
      const missing = await request(app()).post('/v1/payments/billing-agreements/NOPE/suspend');
      expectErrorEnvelope(missing, 404, { code: 'NOT_FOUND', target: 'agreement_id' });
      const bad = await request(app())
        .post('/v1/payments/billing-agreements/AGREEMENT-SEED01/suspend')
        .send({ note: 42 });
      expectErrorEnvelope(bad, 400, { code: 'VALIDATION_ERROR', target: 'note' });
    });
  });

  describe('POST /v1/payments/captures/{id}/refund (composite)', () => {
    it('creates a refund with links to itself and the capture, readable by GET', async () => {
      const server = app();
      const res = await request(server)
        .post('/v1/payments/captures/CAPTURE-SEED2/refund')
        .send({ amount: { total: '5.50', currency: 'USD' } });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        state: 'completed',
        capture_id: 'CAPTURE-SEED2',
        parent_payment: 'PAY-SEED2',
        amount: { total: '5.50', currency: 'USD' },
      });
      expect(res.headers.location).toBe(`http://api.test/v1/payments/refunds/${res.body.id}`);
      const rels = res.body.links.map((l: { rel: string }) => l.rel);
      expect(rels).toEqual(['self', 'capture']);
      const read = await request(server).get(`/v1/payments/refunds/${res.body.id}`);
      expect(read.body).toEqual(res.body);
    });

    it('refuses refunds beyond the captured amount with 422', async () => {
      const server = app();
      const path = '/v1/payments/captures/CAPTURE-SEED1/refund';
      const first = await request(server)
        .post(path)
        .send({ amount: { total: '6.00', currency: 'USD' } });
      expect(first.status).toBe(201);
      const second = await request(server)
        .post(path)
        .send({ amount: { total: '4.01', currency: 'USD' } });
      expectErrorEnvelope(second, 422, { code: 'UNPROCESSABLE_ENTITY', target: 'amount.total' });
    });

    it('answers 400 for a malformed amount or another currency', async () => {
      const path = '/v1/payments/captures/CAPTURE-SEED1/refund';
      const bad = await request(app())
        .post(path)
        .send({ amount: { total: '1e3', currency: 'USD' } });
      expectErrorEnvelope(bad, 400, { target: 'amount.total' });
      const currency = await request(app())
        .post(path)
        .send({ amount: { total: '1.00', currency: 'EUR' } });
      expectErrorEnvelope(currency, 400, { target: 'amount.currency' });
    });

    it('answers 404 for a missing capture', async () => {
      const res = await request(app())
        .post('/v1/payments/captures/NOPE/refund')
        .send({ amount: { total: '1.00', currency: 'USD' } });
      expectErrorEnvelope(res, 404, { target: 'capture_id' });
    });
  });

  describe('risk', () => {
    it('POST /v1/risk/decisions answers 201 with a self link, readable by GET', async () => {
      const server = app();
      const res = await request(server).post('/v1/risk/decisions').send({ code: 'R-1' });
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({ code: 'R-1', status: 'APPROVED' });
      expect(res.body.links).toEqual([
        { href: `http://api.test/v1/risk/decisions/${res.body.id}`, rel: 'self', method: 'GET' },
      ]);
      const read = await request(server).get(`/v1/risk/decisions/${res.body.id}`);
      expect(read.status).toBe(200);
    });

    it('POST /v1/risk/evaluate answers 200 VALID and stores nothing', async () => {
      const res = await request(app()).post('/v1/risk/evaluate').send({ code: 'R-2' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'VALID' });
      expect(res.headers.location).toBeUndefined();
    });

    it('answers 400 naming code when it is missing', async () => {
      const res = await request(app()).post('/v1/risk/evaluate').send({});
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'code' });
    });
  });
});
