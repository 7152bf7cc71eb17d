import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { cardPath, maskNumber } from '../src/resources/credit-cards.js';

const validCard = {
  payer_id: 'user12345',
  type: 'visa',
  number: '4111111111111111',
  expire_month: '11',
  expire_year: '2031',
  first_name: 'Ada',
  last_name: 'Lovelace',
};

const fixedNow = () => new Date('2026-11-21T10:00:00Z');

describeEachExpress('credit cards', (express) => {
  const app = () => createApp({ express, now: fixedNow });

  describe('POST /v1/vault/credit-cards', () => {
    it('answers 201 with the card, a self link and Location', async () => {
      const res = await request(app()).post('/v1/vault/credit-cards').send(validCard);
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toMatchObject({
        state: 'ok',
        payer_id: 'user12345',
        type: 'visa',
        create_time: '2026-11-21T10:00:00.000Z',
        update_time: '2026-11-21T10:00:00.000Z',
        valid_until: '2031-11-30T23:59:59Z',
      });
      expect(res.body.id).toMatch(/^CARD-[0-9A-Z]{16}$/);
      const self = res.body.links.find((l: { rel: string }) => l.rel === 'self');
      expect(self).toEqual({
        href: `${res.request.url.replace(/\/v1\/.*/, '')}/v1/vault/credit-cards/${res.body.id}`,
        rel: 'self',
        method: 'GET',
      });
      expect(res.headers.location).toBe(self.href);
    });

    it('masks the number on output', async () => {
      const res = await request(app()).post('/v1/vault/credit-cards').send(validCard);
      expect(res.body.number).toBe('xxxxxxxxxxxx1111');
      expect(res.text).not.toContain('4111111111111111');
    });

    it('ignores id and computed fields sent by the client', async () => {
      const res = await request(app())
        .post('/v1/vault/credit-cards')
        .send({
          ...validCard,
          id: 'CARD-MINE',
          state: 'hacked',
          create_time: '1999-01-01T00:00:00Z',
        });
      expect(res.status).toBe(201);
      expect(res.body.id).not.toBe('CARD-MINE');
      expect(res.body.state).toBe('ok');
      expect(res.body.create_time).toBe('2026-11-21T10:00:00.000Z');
    });

    it('answers 400 naming each invalid field', async () => {
      const res = await request(app())
        .post('/v1/vault/credit-cards')
        .send({ ...validCard, number: '4111-1111', expire_month: '13', type: 'diners-club' });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
      const targets = res.body.error.details.map((d: { target: string }) => d.target).sort();
      expect(targets).toEqual(['expire_month', 'number', 'type']);
    });

    it('answers 400 naming a missing required field', async () => {
      const { payer_id: _omitted, ...withoutPayer } = validCard;
      const res = await request(app()).post('/v1/vault/credit-cards').send(withoutPayer);
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'payer_id' });
    });

    it('answers 400 naming a nested field of billing_address', async () => {
      const res = await request(app())
        .post('/v1/vault/credit-cards')
        .send({ ...validCard, billing_address: { line1: 'x', city: 'y', country_code: 'usa' } });
      expectErrorEnvelope(res, 400, { target: 'billing_address.country_code' });
    });

    it('answers 400 MALFORMED_REQUEST for malformed JSON and stores nothing', async () => {
      const server = app();
      const before = await request(server).get('/v1/vault/credit-cards');
      const res = await request(server)
        .post('/v1/vault/credit-cards')
        .set('Content-Type', 'application/json')
        .send('{"payer_id": "user12345",');
      expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
      const after = await request(server).get('/v1/vault/credit-cards');
      expect(after.body.items).toHaveLength(before.body.items.length);
    });

    it('answers 415 for a body that is not JSON', async () => {
      const res = await request(app())
        .post('/v1/vault/credit-cards')
        .set('Content-Type', 'text/plain')
        .send('number=4111111111111111');
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
    });

    it('answers 413 for a body over 100 kB', async () => {
      const res = await request(app())
        .post('/v1/vault/credit-cards')
        .send({ ...validCard, first_name: 'x'.repeat(200_000) });
      expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
    });

    it('answers 400 for a JSON array or scalar body', async () => {
      for (const body of ['[]', '"card"', '42', 'null']) {
        const res = await request(app())
          .post('/v1/vault/credit-cards')
          .set('Content-Type', 'application/json')
          .send(body);
        expect(res.status, body).toBe(400);
      }
    });

    it('answers 400 FORBIDDEN_KEY to a __proto__ key in the body, as PUT does, creating nothing', async () => {
      const server = app();
      const before = (await request(server).get('/v1/vault/credit-cards?page_size=100')).body.items
        .length;
      const res = await request(server)
        .post('/v1/vault/credit-cards')
        .set('Content-Type', 'application/json')
        .send(`{"__proto__":{"polluted":true},${JSON.stringify(validCard).slice(1)}`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: '__proto__' });
      expect(res.body.error.innererror).toMatchObject({ code: 'FORBIDDEN_KEY' });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect(
        (await request(server).get('/v1/vault/credit-cards?page_size=100')).body.items.length,
      ).toBe(before);
    });
  });

  describe('GET /v1/vault/credit-cards/{id}', () => {
    it('answers 200 with the masked card', async () => {
      // A fixed base URL: supertest listens on a new port per request, and links carry the host.
      const server = createApp({ express, now: fixedNow, publicBaseUrl: 'http://api.test' });
      const created = await request(server).post('/v1/vault/credit-cards').send(validCard);
      const res = await request(server).get(`/v1/vault/credit-cards/${created.body.id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(created.body);
    });

    it('answers 404 NOT_FOUND for a missing card', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards/CARD-NOPE');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });
  });

  describe('GET /v1/vault/credit-cards', () => {
    it('lists the seeded cards, masked', async () => {
      const res = await request(app()).get('/v1/vault/credit-cards');
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeGreaterThanOrEqual(3);
      for (const card of res.body.items) expect(card.number).toMatch(/^x+\d{4}$/);
    });
  });

  it('answers 404 NOT_FOUND for an unknown route', async () => {
    const res = await request(app()).get('/v1/vault/nothing-here');
    expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
  });

  it('builds links from the configured public base URL', async () => {
    const res = await request(createApp({ express, publicBaseUrl: 'https://api.example.com/' }))
      .post('/v1/vault/credit-cards')
      .send(validCard);
    expect(res.headers.location).toBe(
      `https://api.example.com/v1/vault/credit-cards/${res.body.id}`,
    );
  });

  it('builds links from X-Forwarded-* when proxies are trusted', async () => {
    const res = await request(createApp({ express, trustProxy: true }))
      .post('/v1/vault/credit-cards')
      .set('X-Forwarded-Proto', 'https')
      .set('X-Forwarded-Host', 'payments.example.org')
      .send(validCard);
    expect(res.headers.location).toMatch(
      /^https:\/\/payments\.example\.org\/v1\/vault\/credit-cards\//,
    );
  });
});

describe('card numbers and paths in answers', () => {
  it('masks every digit but the last four, at every length', () => {
    expect(maskNumber('411111111111')).toBe('xxxxxxxx1111');
    expect(maskNumber('4111111111111111234')).toBe('xxxxxxxxxxxxxxx1234');
    expect(maskNumber('4'.repeat(40))).toBe(`${'x'.repeat(36)}4444`);
    expect(maskNumber('123')).toBe('123');
  });

  it('percent-encodes an id only where it has characters outside the unreserved set', () => {
    expect(cardPath('CARD-5KX7Q2M4ZP8R1HJW')).toBe('/v1/vault/credit-cards/CARD-5KX7Q2M4ZP8R1HJW');
    expect(cardPath('a b/c?d%é')).toBe(`/v1/vault/credit-cards/${encodeURIComponent('a b/c?d%é')}`);
  });
});
