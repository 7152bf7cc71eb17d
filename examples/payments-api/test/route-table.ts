/**
 * @module The example's routes as the tests walk them: read from the app's own router (so a new
 * route is covered the day it is added), with seeded or freshly made records standing in for
 * the path parameters.
 */
import type { ExpressModule } from '@resourceful/test-support';
import { listRoutes } from '@resourceful/versioned-router/check-routes';
import request from 'supertest';
import { expect } from 'vitest';
import { type AppOptions, createApp } from '../src/app.js';

/** Path → methods registered, from the app's router (what a client may call). */
export function routeTable(options: AppOptions): Map<string, Set<string>> {
  const table = new Map<string, Set<string>>();
  for (const { method, path } of listRoutes(createApp({ ...options, seed: false }))) {
    const methods = table.get(path) ?? new Set<string>();
    methods.add(method);
    table.set(path, methods);
  }
  return table;
}

/** The paths with a GET route, in registration order. */
export function getRoutes(options: AppOptions): string[] {
  return [...routeTable(options)].filter(([, methods]) => methods.has('GET')).map(([path]) => path);
}

/** Seeded records stand in for `:id` after the collection they belong to. */
export const SEEDED: Readonly<Record<string, string>> = {
  'credit-cards': 'CARD-SEED1',
  customers: 'CUST-SEED1',
  'billing-agreements': 'AGREEMENT-SEED01',
  webhooks: 'WH-SEED1',
  captures: 'CAPTURE-SEED1',
  payments: 'PAY-SEED1',
};

/** Query parameters a route requires. */
export const REQUIRED_QUERY: Readonly<Record<string, string>> = {
  '/v1/payments/refund-summary': '?currency=USD',
};

/** `path` with each `:param` replaced by the id of the collection before it. */
export function concrete(path: string, ids: Readonly<Record<string, string>>): string {
  const segments = path.split('/');
  return segments
    .map((segment, index) =>
      segment.startsWith(':') ? (ids[segments[index - 1] ?? ''] ?? 'UNKNOWN-ID') : segment,
    )
    .join('/');
}

/**
 * An app with a refund of `CAPTURE-SEED1` (so its `refunds` sub-collection has an item), a
 * decision made and the seeded agreement suspended (an entry in its `history`), so that every
 * GET route has something to answer.
 */
export async function appWithRecords(express: ExpressModule) {
  const app = createApp({ express, publicBaseUrl: 'http://api.test' });
  const refund = await request(app)
    .post(`/v1/payments/captures/${SEEDED.captures}/refund`)
    .send({ amount: { total: '1.00', currency: 'USD' } });
  const decision = await request(app).post('/v1/risk/decisions').send({ code: 'R-1' });
  const suspended = await request(app)
    .post(`/v1/payments/billing-agreements/${SEEDED['billing-agreements']}/suspend`)
    .send({ note: 'Paused by the tests.' });
  expect([refund.status, decision.status, suspended.status]).toEqual([201, 201, 200]);
  return {
    app,
    ids: { ...SEEDED, refunds: String(refund.body.id), decisions: String(decision.body.id) },
  };
}
