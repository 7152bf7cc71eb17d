import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { buildFixture } from './fixture.js';

const BASE = 'http://api.test';

describeEachExpress('resource-oriented operations', (express) => {
  const setup = () => buildFixture(express, { publicBaseUrl: BASE });

  it('answers 201 with Location and a self link (GET) that reads the record back', async () => {
    const { app } = setup();
    const res = await request(app).post('/v1/risk/decisions').send({ code: 'R-1' });
    expect(res.status).toBe(201);
    const self = `${BASE}/v1/risk/decisions/${res.body.id}`;
    expect(res.headers.location).toBe(self);
    expect(res.body).toEqual({
      id: res.body.id,
      code: 'R-1',
      links: [{ href: self, rel: 'self', method: 'GET' }],
    });
    const read = await request(app).get(`/v1/risk/decisions/${res.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(res.body);
    expect(read.headers.etag).toMatch(/^"/);
  });

  it('answers 404 naming the record for an unknown id', async () => {
    const { app } = setup();
    expectErrorEnvelope(await request(app).get('/v1/risk/decisions/NOPE'), 404, {
      target: 'decision_id',
    });
  });

  describe('bad bodies', () => {
    it.each([
      ['a missing field', {}, 'code'],
      ['a wrong type', { code: 7 }, 'code'],
      ['an over-long value', { code: 'x'.repeat(51) }, 'code'],
    ])('answers 400 naming the field for %s and stores nothing', async (_, body, target) => {
      const fixture = setup();
      const res = await request(fixture.app).post('/v1/risk/decisions').send(body);
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target });
      expect(fixture.decisions.size).toBe(0);
    });
  });

  it('replays a repeated Service-Request-Id and stores one record', async () => {
    const fixture = setup();
    const send = () =>
      request(fixture.app)
        .post('/v1/risk/decisions')
        .set('Service-Request-Id', 'decide-1')
        .send({ code: 'R-2' });
    const first = await send();
    const again = await send();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(fixture.decisions.size).toBe(1);
  });

  it('refuses reuse of a Service-Request-Id with another body', async () => {
    const { app } = setup();
    await request(app)
      .post('/v1/risk/decisions')
      .set('Service-Request-Id', 'd-2')
      .send({ code: 'A' });
    const res = await request(app)
      .post('/v1/risk/decisions')
      .set('Service-Request-Id', 'd-2')
      .send({ code: 'B' });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
  });

  it('creates one record per concurrent call with distinct ids', async () => {
    const fixture = setup();
    const results = await Promise.all(
      ['A', 'B', 'C'].map((code) => request(fixture.app).post('/v1/risk/decisions').send({ code })),
    );
    expect(results.map((res) => res.status)).toEqual([201, 201, 201]);
    expect(new Set(results.map((res) => res.body.id)).size).toBe(3);
    expect(fixture.decisions.size).toBe(3);
  });
});
