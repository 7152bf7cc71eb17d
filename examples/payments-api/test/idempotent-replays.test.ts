/**
 * Every POST of the example is idempotent with `Service-Request-Id`: a repeat gets the stored
 * answer as first sent (status, body and every header but the per-response ones: `Date`,
 * `X-Request-Id`, the connection's, and `Idempotent-Replayed` on the replay), for each kind of
 * operation, under Express 4 and 5, with the memory store and with Redis.
 */
import { type IdempotencyStore, redisStore } from '@resourceful/service-request-idempotency';
import {
  describeEachExpress,
  expectReplayOf,
  hasRedisServer,
  useRedisServer,
} from '@resourceful/test-support';
import { listRoutes } from '@resourceful/versioned-router/check-routes';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { GRAPHQL_PATH } from '../src/description/graphql.js';

const BASE = 'http://api.test';
const AGREEMENT = '/v1/payments/billing-agreements/AGREEMENT-SEED01';

/** One call per POST route: the kind of operation, the path called, its body. */
const CALLS: Record<string, { kind: string; path: string; body: unknown }> = {
  '/v1/vault/credit-cards': {
    kind: 'create',
    path: '/v1/vault/credit-cards',
    body: {
      payer_id: 'user12345',
      type: 'visa',
      number: '4111111111111111',
      expire_month: '11',
      expire_year: '2031',
      first_name: 'Ada',
      last_name: 'Lovelace',
    },
  },
  '/v1/customers/customers': {
    kind: 'create',
    path: '/v1/customers/customers',
    body: { merchant_customer_id: 'c-9', merchant_id: 'M-1' },
  },
  '/v1/payments/billing-agreements': {
    kind: 'create',
    path: '/v1/payments/billing-agreements',
    body: { description: 'Monthly plan' },
  },
  '/v1/notifications/webhooks': {
    kind: 'create',
    path: '/v1/notifications/webhooks',
    body: { url: 'https://hooks.example/a', event_types: [{ name: 'PAYMENT.SALE.COMPLETED' }] },
  },
  '/v1/payments/search-billing-agreements': {
    kind: 'search',
    path: '/v1/payments/search-billing-agreements?page_size=2',
    body: { status: 'ACTIVE' },
  },
  '/v1/payments/billing-agreements/:id/suspend': {
    kind: 'sub-resource action (200)',
    path: `${AGREEMENT}/suspend`,
    body: { note: 'travel' },
  },
  '/v1/payments/billing-agreements/:id/re-activate': {
    kind: 'sub-resource action (204)',
    path: `${AGREEMENT}/re-activate`,
    body: {},
  },
  '/v1/payments/captures/:capture_id/refund': {
    kind: 'composite',
    path: '/v1/payments/captures/CAPTURE-SEED3/refund',
    body: { amount: { total: '1.00', currency: 'USD' } },
  },
  '/v1/risk/decisions': {
    kind: 'resource-oriented',
    path: '/v1/risk/decisions',
    body: { code: 'R-1' },
  },
  '/v1/risk/evaluate': { kind: 'transient', path: '/v1/risk/evaluate', body: { code: 'R-1' } },
};

/** Calls that replay a refusal: a business rule (422) and malformed input (400). */
const REFUSALS: { kind: string; path: string; body: unknown; status: number }[] = [
  {
    kind: 'composite refused by a business rule',
    path: '/v1/payments/captures/CAPTURE-SEED3/refund',
    body: { amount: { total: '0.00', currency: 'USD' } },
    status: 422,
  },
  { kind: 'transient with a bad body', path: '/v1/risk/evaluate', body: { code: 7 }, status: 400 },
];

/** Variants of the request: plain, gzip, XML, and a create under `Prefer: return=minimal`. */
const VARIANTS: [string, Record<string, string>][] = [
  ['identity JSON', { 'Accept-Encoding': 'identity' }],
  ['gzip', { 'Accept-Encoding': 'gzip' }],
  ['XML', { Accept: 'application/xml', 'Accept-Encoding': 'identity' }],
];

const redisAvailable = hasRedisServer();

describe('the replay table', () => {
  it('covers every POST route of the example', () => {
    const posts = listRoutes(createApp({ seed: false }))
      .filter((route) => route.method === 'POST')
      .map((route) => route.path)
      .filter((path) => path.startsWith('/v1/') && !path.startsWith('/v1/cluster/'));
    expect(posts.sort()).toEqual(Object.keys(CALLS).sort());
  });
});

describeEachExpress('Service-Request-Id replays', (express) => {
  const stores: [string, () => IdempotencyStore | undefined][] = [['memory', () => undefined]];
  const redis = redisAvailable ? useRedisServer() : undefined;
  // One store for the suite, on a test Redis without appendonly: its warning is expected.
  let shared: IdempotencyStore | undefined;
  if (redisAvailable) {
    stores.push([
      'Redis',
      () => {
        if (shared === undefined) throw new Error('the Redis store was not created');
        return shared;
      },
    ]);
  }

  beforeAll(async () => {
    if (redis === undefined) return;
    shared = redisStore({ client: await redis.clients.connect(), onWarning: () => undefined });
  });

  describe.each(stores)('with the %s store', (storeName, store) => {
    const app = () => {
      const idempotencyStore = store();
      return createApp({
        express,
        publicBaseUrl: BASE,
        ...(idempotencyStore === undefined ? {} : { idempotencyStore }),
      });
    };
    let sequence = 0;
    const id = () => `replay-${storeName}-${express.name}-${++sequence}-${Date.now()}`;

    describe.each(VARIANTS)('asked for %s', (_variant, headers) => {
      it.each(Object.values(CALLS).map((call) => [call.kind, call] as const))(
        'replays a %s answer with the header set it first sent',
        async (kind, { path, body }) => {
          const server = app();
          if (kind === 'sub-resource action (204)') {
            // Already active: re-activate changes nothing.
            expect(
              (
                await request(server)
                  .post(path)
                  .send(body as object)
              ).status,
            ).toBe(204);
          }
          const key = id();
          const send = () =>
            request(server)
              .post(path)
              .set(headers)
              .set('Service-Request-Id', key)
              .send(body as object);
          const first = await send();
          expect(first.status, first.text).toBeLessThan(300);
          expectReplayOf(first, await send());
        },
      );
    });

    it.each(REFUSALS.map((call) => [call.kind, call] as const))(
      'replays a %s with its status, code and headers',
      async (_kind, call) => {
        const server = app();
        const key = id();
        const send = () =>
          request(server)
            .post(call.path)
            .set('Service-Request-Id', key)
            .send(call.body as object);
        const first = await send();
        expect(first.status).toBe(call.status);
        expectReplayOf(first, await send());
      },
    );

    it('replays a create under Prefer: return=minimal: 201, Location, no body', async () => {
      const server = app();
      const key = id();
      const send = () =>
        request(server)
          .post('/v1/risk/decisions')
          .set('Prefer', 'return=minimal')
          .set('Service-Request-Id', key)
          .send({ code: 'R-2' });
      const first = await send();
      expect(first.status).toBe(201);
      expect(first.text).toBe('');
      expectReplayOf(first, await send());
    });

    it('replays each 201 with the Location and ETag of the record created', async () => {
      const server = app();
      for (const call of Object.values(CALLS)) {
        const key = id();
        const send = () =>
          request(server)
            .post(call.path)
            .set('Service-Request-Id', key)
            .send(call.body as object);
        const first = await send();
        if (first.status !== 201) continue;
        const again = await send();
        expect(again.headers.location).toBe(first.headers.location);
        expect(again.headers.etag).toBe(first.headers.etag);
        // The tag is the one the record's GET carries: a client can PATCH with it.
        const read = await request(server).get(new URL(String(first.headers.location)).pathname);
        expect(read.status).toBe(200);
        expect(again.headers.etag, call.kind).toBe(read.headers.etag);
      }
    });

    it('replays a GraphQL create mutation with the header set it first sent', async () => {
      const server = app();
      const key = id();
      const send = () =>
        request(server).post(GRAPHQL_PATH).set('Service-Request-Id', key).send({
          query: 'mutation { create_payment_decision(input: { code: "R-4" }) { id code } }',
        });
      const first = await send();
      expect(first.status, first.text).toBe(200);
      expect(first.body.data.create_payment_decision.code).toBe('R-4');
      expectReplayOf(first, await send());
    });

    it('sends no ETag on a transient answer, first or replayed', async () => {
      const server = app();
      const key = id();
      const send = () =>
        request(server)
          .post('/v1/risk/evaluate')
          .set('Service-Request-Id', key)
          .send({ code: 'R-3' });
      expect((await send()).headers.etag).toBeUndefined();
      const again = await send();
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.headers.etag).toBeUndefined();
    });
  });
});
