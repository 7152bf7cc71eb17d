import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildFixture } from './fixture.js';

// express.json() reads application/json only; a body of any other media type reaches the
// operation unread. It must be refused, never taken for "no body" and run on `{}`.
describeEachExpress('a body that is not application/json', (express) => {
  const setup = () => buildFixture(express);

  describe('when "Content-Type: text/plain" is sent to an action with a body schema', () => {
    it('answers 415 naming Content-Type, with Accept-Post, and neither acts nor records', async () => {
      const fixture = setup();
      const res = await request(fixture.app)
        .post('/v1/accounts/ACC-1/suspend')
        .set('Content-Type', 'text/plain')
        .send('{"note":"hi"}');
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
      expect(res.headers['accept-post']).toBe('application/json');
      expect(fixture.accounts.get('ACC-1')?.state).toBe('ACTIVE');
      expect(fixture.calls.suspend).toBeUndefined();
      expect(await fixture.history.count('ACC-1')).toBe(0);
    });
  });

  describe('when a form body is sent', () => {
    it.each([
      ['a resource-oriented operation', '/v1/risk/decisions', 'decide'],
      ['a transient operation', '/v1/risk/evaluate', 'evaluate'],
      ['a composite operation', '/v1/orders/ORD-1/refund', 'refund'],
    ])('answers 415 to %s and runs nothing', async (_, path, call) => {
      const fixture = setup();
      const res = await request(fixture.app)
        .post(path)
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('code=R-1&amount=1');
      expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
      expect(fixture.calls[call]).toBeUndefined();
      expect(fixture.decisions.size).toBe(0);
      expect(fixture.refunds.size).toBe(0);
      expect(fixture.orders.get('ORD-1')?.refunded).toBe(0);
    });
  });

  describe('when an action without a body schema gets a body of another media type', () => {
    it('answers 400 BODY_NOT_ACCEPTED', async () => {
      const fixture = setup();
      const res = await request(fixture.app)
        .post('/v1/accounts/ACC-1/close')
        .set('Content-Type', 'text/plain')
        .send('please');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
      expect(res.body.error.innererror).toEqual({ code: 'BODY_NOT_ACCEPTED' });
    });
  });

  describe('when no body is sent', () => {
    it('still takes "Content-Length: 0" with any Content-Type as no body', async () => {
      const fixture = setup();
      const res = await request(fixture.app)
        .post('/v1/accounts/ACC-1/suspend')
        .set('Content-Type', 'text/plain')
        .set('Content-Length', '0');
      expect(res.status).toBe(200);
      expect(fixture.accounts.get('ACC-1')?.state).toBe('SUSPENDED');
    });
  });

  describe('when the body is application/json', () => {
    it('is read as before (a +json suffix the app does not parse is refused)', async () => {
      const fixture = setup();
      const ok = await request(fixture.app).post('/v1/risk/evaluate').send({ code: 'R-1' });
      expect(ok.status).toBe(200);
      const other = await request(fixture.app)
        .post('/v1/risk/evaluate')
        .set('Content-Type', 'application/vnd.example+json')
        .send('{"code":"R-1"}');
      expectErrorEnvelope(other, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
      expect(fixture.calls.evaluate).toBe(1);
    });
  });
});
