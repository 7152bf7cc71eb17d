/**
 * The note of `suspend` / `re-activate` is kept in the agreement's history. On PostgreSQL the
 * history's `doc` is json, whose operators refuse a U+0000 or lone-surrogate escape: a note
 * holding one was recorded, and every later action on the agreement then failed with 500 (its
 * record is checked against the one before). So the note is held to the rule of every stored
 * string (`src/storable-strings.ts`), in memory too: 400 naming `note`, nothing recorded.
 * This suite runs in the in-memory pass and again in the PostgreSQL pass.
 */
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const AGREEMENT = '/v1/payments/billing-agreements/AGREEMENT-SEED01';

describeEachExpress('an action note the stores cannot keep', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });

  describe.each([
    ['U+0000', '\\u0000'],
    ['a lone surrogate', 'a\\ud800'],
  ])('holding %s', (_, escaped) => {
    it('answers 400 naming note, records nothing, and later actions run', async () => {
      const server = app();
      const action = (name: string, body: string) =>
        request(server)
          .post(`${AGREEMENT}/${name}`)
          .set('Content-Type', 'application/json')
          .send(body);
      const refused = await action('suspend', `{"note":"${escaped}"}`);
      expectErrorEnvelope(refused, 400, { code: 'VALIDATION_ERROR', target: 'note' });
      const history = await request(server).get(`${AGREEMENT}/history`);
      expect(history.body.items).toEqual([]);
      expect((await request(server).get(AGREEMENT)).body.state).toBe('ACTIVE');

      // Also when a first action was recorded: the next one is checked against it.
      expect((await action('suspend', '{"note":"pause"}')).status).toBe(200);
      const again = await action('re-activate', `{"note":"${escaped}"}`);
      expectErrorEnvelope(again, 400, { code: 'VALIDATION_ERROR', target: 'note' });
      expect((await action('re-activate', '{"note":"resume"}')).status).toBe(200);
      const after = await request(server).get(`${AGREEMENT}/history`);
      expect(after.body.items.map((item: { request: unknown }) => item.request)).toEqual([
        { note: 'resume' },
        { note: 'pause' },
      ]);
    });
  });
});
