import { describeEachExpress, expectReplayOf } from '@resourceful/test-support';
import request from 'supertest';
import { expect, it } from 'vitest';
import { buildFixture } from './fixture.js';

/**
 * A repeated `Service-Request-Id` gets the stored answer, whatever kind of operation sent it:
 * the same status, body and headers (but `Date`, the connection and `Idempotent-Replayed`).
 */
describeEachExpress('Service-Request-Id replays of each operation kind', (express) => {
  const cases: [string, string, unknown, number][] = [
    [
      'a sub-resource action that changed the state',
      '/v1/accounts/ACC-1/suspend',
      { note: 'a' },
      200,
    ],
    [
      'a sub-resource action that changed nothing',
      '/v1/accounts/ACC-2/suspend',
      { note: 'a' },
      204,
    ],
    ['a business refusal of an action', '/v1/accounts/ACC-LOCKED/re-activate', {}, 422],
    ['a composite operation', '/v1/orders/ORD-1/refund', { amount: 2 }, 201],
    ['a refused composite operation', '/v1/orders/ORD-1/refund', { amount: 11 }, 422],
    ['a resource-oriented operation', '/v1/risk/decisions', { code: 'R-1' }, 201],
    ['a transient operation', '/v1/risk/evaluate', { code: 'R-1' }, 200],
  ];

  it.each(cases)('replays %s with the header set it first sent', async (_, path, body, status) => {
    const fixture = buildFixture(express, { publicBaseUrl: 'http://api.test' });
    fixture.accounts.set('ACC-LOCKED', { id: 'ACC-LOCKED', state: 'SUSPENDED', version: 1 });
    const send = () =>
      request(fixture.app)
        .post(path)
        .set('Service-Request-Id', `replay-${path}`)
        .send(body as object);
    const first = await send();
    expect(first.status, first.text).toBe(status);
    expectReplayOf(first, await send());
  });

  it('sends no ETag on a transient answer, first or replayed', async () => {
    const { app } = buildFixture(express);
    const send = () =>
      request(app).post('/v1/risk/evaluate').set('Service-Request-Id', 'e-1').send({ code: 'R' });
    expect((await send()).headers.etag).toBeUndefined();
    expect((await send()).headers.etag).toBeUndefined();
  });

  it('replays a 201 with the Location and ETag of the created record as first sent', async () => {
    const { app } = buildFixture(express, { publicBaseUrl: 'http://api.test' });
    const send = () =>
      request(app).post('/v1/risk/decisions').set('Service-Request-Id', 'd-1').send({ code: 'R' });
    const first = await send();
    const again = await send();
    expect(again.headers.location).toBe(first.headers.location);
    expect(again.headers.etag).toBe(first.headers.etag);
    const read = await request(app).get(new URL(String(first.headers.location)).pathname);
    expect(again.headers.etag).toBe(read.headers.etag);
  });

  it('replays an action 200 with the ETag its resource GET then carries', async () => {
    // A fixed base: links built from the Host would differ between supertest's servers.
    const { app } = buildFixture(express, { publicBaseUrl: 'http://api.test' });
    const send = () =>
      request(app).post('/v1/accounts/ACC-1/suspend').set('Service-Request-Id', 's-1').send({});
    const first = await send();
    const read = await request(app).get('/v1/accounts/ACC-1');
    expect(first.headers.etag).toBe(read.headers.etag);
    expect((await send()).headers.etag).toBe(read.headers.etag);
  });
});
