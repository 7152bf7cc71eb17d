/**
 * A lone surrogate (`"\ud800"` in a JSON string) in what a client sends. PostgreSQL's text
 * columns keep it as U+FFFD, so a record holding one sorted and filtered differently on
 * PostgreSQL than in memory. Every store refuses it alike (I-JSON, RFC 7493 §2.1: strings are
 * well-formed Unicode): 400 naming the field, nothing stored. This suite runs in the in-memory
 * pass and again in the PostgreSQL pass.
 */
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const CUSTOMERS = '/v1/customers/customers';
const CUSTOMER = `${CUSTOMERS}/CUST-SEED1`;
const JSON_TYPE = 'application/json';

describeEachExpress('lone surrogates in requests', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });

  describe('in bodies', () => {
    it.each([
      ['a high surrogate', '\\ud800'],
      ['a low surrogate', 'x\\udc00'],
      ['a pair in the wrong order', '\\udc00\\ud800'],
    ])(
      'answers 400 naming the field for a created string with %s, storing nothing',
      async (_, text) => {
        const server = app();
        const before = (await request(server).get(`${CUSTOMERS}?page_size=100`)).body.items;
        const res = await request(server)
          .post(CUSTOMERS)
          .set('Content-Type', JSON_TYPE)
          .send(`{"merchant_customer_id":"m-1","merchant_id":"M","last_name":"${text}"}`);
        expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'last_name' });
        const after = (await request(server).get(`${CUSTOMERS}?page_size=100`)).body.items;
        expect(after).toEqual(before);
      },
    );

    it('answers 400 to a merge patch that writes one, leaving the resource as it was', async () => {
      const server = app();
      const before = await request(server).get(CUSTOMER);
      const res = await request(server)
        .patch(CUSTOMER)
        .set('Content-Type', 'application/merge-patch+json')
        .send('{"last_name":"\\ud800"}');
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'last_name' });
      const after = await request(server).get(CUSTOMER);
      expect(after.body).toEqual(before.body);
      expect(after.headers.etag).toBe(before.headers.etag);
    });

    it('keeps a surrogate pair (a character beyond U+FFFF) and U+FFFD as the text they are', async () => {
      const res = await request(app())
        .post(CUSTOMERS)
        .set('Content-Type', JSON_TYPE)
        .send(
          '{"merchant_customer_id":"m-1","merchant_id":"M","last_name":"\\ud83d\\ude00\\ufffd"}',
        );
      expect(res.status).toBe(201);
      expect(res.body.last_name).toBe('\u{1F600}\uFFFD');
    });
  });
});
