/**
 * The stored card number is masked on output; no write may tell a client whether a number it
 * guessed is the stored one. PATCH and PUT judge the number as the client reads it (masked):
 * the masked value is "unchanged" and passes a `test`; the real number is as wrong as any other.
 */
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const CARD = '/v1/vault/credit-cards/CARD-SEED1';
// What the seed stores for CARD-SEED1, and what every read of it shows.
const STORED_NUMBER = '4417119669820331';
const MASKED_NUMBER = 'xxxxxxxxxxxx0331';
const PATCH_TYPE = 'application/json-patch+json';
const MERGE_TYPE = 'application/merge-patch+json';

describeEachExpress('a card number guessed through a write', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });

  describe('a JSON Patch "test" of /number', () => {
    it('fails with 409 for the stored number, as for any number the card does not show', async () => {
      const server = app();
      for (const value of [STORED_NUMBER, '4417119669820332']) {
        const res = await request(server)
          .patch(CARD)
          .set('Content-Type', PATCH_TYPE)
          .send([{ op: 'test', path: '/number', value }]);
        expectErrorEnvelope(res, 409, { code: 'CONFLICT', target: '[0]' });
      }
    });

    it('holds for the masked number a GET shows', async () => {
      const res = await request(app())
        .patch(CARD)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'test', path: '/number', value: MASKED_NUMBER }]);
      expect(res.status).toBe(204);
    });

    it('of the whole card compares the card as a GET shows it', async () => {
      const server = app();
      const { links: _links, ...card } = (await request(server).get(CARD)).body;
      expect(card.number).toBe(MASKED_NUMBER);
      const shown = await request(server)
        .patch(CARD)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'test', path: '', value: card }]);
      expect(shown.status).toBe(204);
      const guessed = await request(server)
        .patch(CARD)
        .set('Content-Type', PATCH_TYPE)
        .send([{ op: 'test', path: '', value: { ...card, number: STORED_NUMBER } }]);
      expectErrorEnvelope(guessed, 409, { code: 'CONFLICT', target: '[0]' });
    });
  });

  describe('a merge patch of number', () => {
    it('answers 400 READ_ONLY_FIELD for the stored number, as for any other', async () => {
      const server = app();
      for (const number of [STORED_NUMBER, '4417119669820332']) {
        const res = await request(server)
          .patch(CARD)
          .set('Content-Type', MERGE_TYPE)
          .send({ number });
        expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target: 'number' });
      }
    });

    it('changes nothing with the masked number (204, same ETag)', async () => {
      const server = app();
      const before = await request(server).get(CARD);
      const res = await request(server)
        .patch(CARD)
        .set('Content-Type', MERGE_TYPE)
        .send({ number: MASKED_NUMBER });
      expect(res.status).toBe(204);
      expect(res.headers.etag).toBe(before.headers.etag);
    });
  });

  describe('a PUT', () => {
    it('answers 400 READ_ONLY_FIELD for the stored number, as the README says for any other value', async () => {
      const server = app();
      const { links: _links, ...card } = (await request(server).get(CARD)).body;
      const res = await request(server)
        .put(CARD)
        .send({ ...card, number: STORED_NUMBER });
      expectErrorEnvelope(res, 400, { code: 'READ_ONLY_FIELD', target: 'number' });
    });

    it('keeps the stored number when the masked one is sent back or it is left out', async () => {
      const server = app();
      const { links: _links, ...card } = (await request(server).get(CARD)).body;
      const sentBack = await request(server)
        .put(CARD)
        .send({ ...card, first_name: 'Liz' });
      expect(sentBack.status).toBe(204);
      const {
        links: _again,
        number: _number,
        ...withoutNumber
      } = (await request(server).get(CARD)).body;
      const leftOut = await request(server)
        .put(CARD)
        .send({ ...withoutNumber, first_name: 'Beth' });
      expect(leftOut.status).toBe(204);
      // The stored number is still the one created: the masked value passes a test of it.
      const test = await request(server)
        .patch(CARD)
        .set('Content-Type', PATCH_TYPE)
        .send([
          { op: 'test', path: '/number', value: MASKED_NUMBER },
          { op: 'test', path: '/first_name', value: 'Beth' },
        ]);
      expect(test.status).toBe(204);
    });
  });
});
