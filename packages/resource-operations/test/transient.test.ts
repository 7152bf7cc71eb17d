import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildFixture } from './fixture.js';

describeEachExpress('transient operations', (express) => {
  const setup = () => buildFixture(express);

  it('answers 200 with the result, without Location or ETag', async () => {
    const { app } = setup();
    const res = await request(app).post('/v1/risk/evaluate').send({ code: 'R-1' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'VALID' });
    expect(res.headers.location).toBeUndefined();
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
  });

  it('computes from the body each time', async () => {
    const { app } = setup();
    const res = await request(app).post('/v1/risk/evaluate').send({ code: 'BAD-1' });
    expect(res.body).toEqual({ status: 'INVALID' });
  });

  describe('bad bodies', () => {
    it.each([
      ['a missing field', {}, 'code'],
      ['a wrong type', { code: null }, 'code'],
    ])('answers 400 naming the field for %s', async (_, body, target) => {
      const fixture = setup();
      const res = await request(fixture.app).post('/v1/risk/evaluate').send(body);
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target });
      expect(fixture.calls.evaluate).toBeUndefined();
    });
  });

  it('replays a repeated Service-Request-Id without computing again', async () => {
    const fixture = setup();
    const send = () =>
      request(fixture.app)
        .post('/v1/risk/evaluate')
        .set('Service-Request-Id', 'ev-1')
        .send({ code: 'X' });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(fixture.calls.evaluate).toBe(1);
  });

  it('answers concurrent calls independently', async () => {
    const fixture = setup();
    const results = await Promise.all(
      ['A', 'BAD'].map((code) => request(fixture.app).post('/v1/risk/evaluate').send({ code })),
    );
    expect(results.map((res) => res.body.status)).toEqual(['VALID', 'INVALID']);
  });
});
