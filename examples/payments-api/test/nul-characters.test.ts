/**
 * U+0000 in what a client sends. PostgreSQL's text and jsonb cannot hold it, so the example
 * refuses it in stored strings on every store alike (400 naming the field, nothing stored) and
 * finds nothing for an id or a filter value containing it (no stored string can contain it).
 * This suite runs in the in-memory pass and again in the PostgreSQL pass.
 */
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const CARD = '/v1/vault/credit-cards/CARD-SEED1';
const CARDS = '/v1/vault/credit-cards';

const validCard = {
  payer_id: 'user12345',
  type: 'visa',
  number: '4417119669820331',
  expire_month: '11',
  expire_year: '2030',
  first_name: 'Joe',
  last_name: 'Shopper',
};

describeEachExpress('U+0000 in requests', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });

  describe('in ids and filters', () => {
    it.each([
      ['an id that is one NUL', `${CARDS}/%00`],
      ['an id containing a NUL', `${CARDS}/CARD-SEED1%00`],
    ])('answers 404 for %s', async (_, path) => {
      expectErrorEnvelope(await request(app()).get(path), 404);
    });

    it('answers an empty page for a filter value containing a NUL', async () => {
      const res = await request(app()).get(`${CARDS}?payer_id=x%00y`);
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([]);
    });
  });

  describe('in bodies', () => {
    it('answers 400 naming the field for a created string containing a NUL, storing nothing', async () => {
      const server = app();
      const before = (await request(server).get(`${CARDS}?page_size=100`)).body.items.length;
      const res = await request(server)
        .post(CARDS)
        .send({ ...validCard, first_name: 'Jo\u0000e' });
      expectErrorEnvelope(res, 400, { target: 'first_name' });
      const after = (await request(server).get(`${CARDS}?page_size=100`)).body.items.length;
      expect(after).toBe(before);
    });

    it('answers 400 naming the field for a nested string containing a NUL', async () => {
      const res = await request(app())
        .post(CARDS)
        .send({
          ...validCard,
          billing_address: {
            line1: '52 N Main\u0000 St',
            city: 'Johnstown',
            country_code: 'US',
            postal_code: '43210',
            state: 'OH',
          },
        });
      expectErrorEnvelope(res, 400, { target: 'billing_address.line1' });
    });

    it('answers 400 to a JSON Patch that writes a NUL, leaving the resource as it was', async () => {
      const server = app();
      const before = await request(server).get(CARD);
      const res = await request(server)
        .patch(CARD)
        .set('Content-Type', 'application/json-patch+json')
        .send(JSON.stringify([{ op: 'replace', path: '/first_name', value: '\u0000' }]));
      expectErrorEnvelope(res, 400, { target: 'first_name' });
      const after = await request(server).get(CARD);
      expect(after.body).toEqual(before.body);
      expect(after.headers.etag).toBe(before.headers.etag);
    });

    it('keeps a backslash followed by u0000 as the text it is', async () => {
      const res = await request(app())
        .post(CARDS)
        .send({ ...validCard, first_name: 'Jo\\u0000e' });
      expect(res.status).toBe(201);
      expect(res.body.first_name).toBe('Jo\\u0000e');
    });
  });
});
