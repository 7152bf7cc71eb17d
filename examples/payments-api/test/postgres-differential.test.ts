/**
 * The same requests to the example in memory and on PostgreSQL, with one clock and one request
 * id: every answer's status, headers and body bytes are the same. Reads of every list shape,
 * then a sequence of conditional writes whose answers and results must agree step by step.
 * Continuation tokens are the exception, by design: opaque, they carry each store's text of the
 * position (an ISO string in memory, PostgreSQL's timestamptz text), so with page-token secrets
 * the pages are compared by their items.
 */
import {
  describeEachExpress,
  hasPostgresServer,
  type PostgresPool,
  startPostgresPool,
} from '@resourceful/test-support';
import type pg from 'pg';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appReady, createApp } from '../src/app.js';

const START = new Date('2026-11-23T12:00:00.000Z');
const SECRET = 'a page-token secret of more than thirty-two characters';

interface Step {
  method: 'GET' | 'HEAD' | 'PATCH' | 'PUT' | 'DELETE' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
}

/** Status, headers and the body's bytes. */
function answerOf(res: request.Response) {
  return { status: res.status, headers: res.headers, body: res.text ?? '' };
}

describe.skipIf(!hasPostgresServer())('the example in memory and on PostgreSQL', () => {
  let postgres: PostgresPool;
  let pool: pg.Pool;
  let schemas = 0;

  beforeAll(async () => {
    postgres = await startPostgresPool();
    pool = postgres.pool;
  });

  afterAll(() => postgres?.close());

  describeEachExpress('answer alike', (express) => {
    async function pair(pageTokenSecrets?: string[]) {
      const common = {
        express,
        now: () => START,
        pageTokenSecrets,
        // Links from one base: supertest gives every request a server on another port.
        publicBaseUrl: 'https://api.example.test',
      };
      const memory = createApp({ ...common, database: false });
      const postgres = createApp({
        ...common,
        database: { pool, schema: `differential_${++schemas}` },
      });
      await Promise.all([appReady(memory), appReady(postgres)]);
      return { memory, postgres };
    }

    async function send(app: Parameters<typeof request>[0], step: Step) {
      let req = request(app)[
        step.method === 'HEAD' ? 'head' : (step.method.toLowerCase() as 'get')
      ](step.path);
      // One id for both: error envelopes and answers carry it.
      req = req.set('X-Request-Id', 'differential-check');
      for (const [name, value] of Object.entries(step.headers ?? {})) req = req.set(name, value);
      if (step.body !== undefined) req = req.send(JSON.stringify(step.body));
      return answerOf(await req);
    }

    it.each([
      '/v1/vault/credit-cards',
      '/v1/vault/credit-cards?page_size=2',
      '/v1/vault/credit-cards?page=2&page_size=2&sort_by=last_name',
      '/v1/vault/credit-cards?sort_by=expire_year&sort_order=asc&total_required=true',
      '/v1/vault/credit-cards?payer_id=user12345&create_time_after=2026-11-23T09:30:00Z',
      '/v1/vault/credit-cards?offset=1&limit=1',
      '/v1/vault/credit-cards?offset=20000',
      '/v1/vault/credit-cards?sort_by=number',
      "/v1/vault/credit-cards?payer_id=x'%20OR%20'1'='1",
      '/v1/vault/credit-cards/CARD-SEED2',
      '/v1/vault/credit-cards/CARD-NOPE',
      '/v1/customers/customers?sort_by=last_name&sort_order=desc&page_size=2',
      '/v1/customers/customers/CUST-SEED3',
      '/v1/notifications/webhooks',
      '/v1/notifications/webhooks/WH-SEED1',
      '/v1/notifications/webhooks/WH-SEED1/event-types?page_size=2',
      '/v1/payments/billing-agreements?page_size=3',
      '/v1/payments/billing-agreements?state=SUSPENDED&sort_by=update_time&sort_order=asc',
      '/v1/payments/billing-agreements?offset=20000',
      '/v1/payments/billing-agreements/AGREEMENT-SEED05',
      '/v1/payments/billing-agreements/AGREEMENT-NOPE/history',
      '/v1/payments/captures?parent_payment=PAY-SEED2&total_required=true',
      '/v1/payments/captures/CAPTURE-SEED3',
      '/v1/payments/captures/CAPTURE-SEED3/refunds',
      '/v1/payments/payments/PAY-SEED1',
      '/v1/payments/refund-summary?currency=USD',
    ])('GET %s', async (path) => {
      const { memory, postgres } = await pair();
      const variants: Record<string, string>[] = [
        {},
        { Accept: 'application/xml' },
        { 'Accept-Encoding': 'gzip' },
      ];
      for (const headers of variants) {
        const step: Step = { method: 'GET', path, headers };
        expect(await send(postgres, step)).toEqual(await send(memory, step));
      }
    });

    it.each([
      '/v1/vault/credit-cards?page_size=1',
      '/v1/customers/customers?page_size=2&sort_by=last_name',
      '/v1/customers/customers?page_size=1&sort_by=update_time&sort_order=asc',
    ])('with page tokens, the pages that %s and its next links reach', async (first) => {
      const { memory, postgres } = await pair([SECRET]);
      const walk = async (app: typeof memory) => {
        const pages: unknown[] = [];
        let path: string | undefined = first;
        while (path !== undefined && pages.length < 20) {
          const body = JSON.parse((await send(app, { method: 'GET', path })).body) as {
            items: unknown[];
            links: { rel: string; href: string }[];
          };
          pages.push(body.items);
          const next = body.links.find((link) => link.rel === 'next')?.href;
          path = next?.slice('https://api.example.test'.length);
        }
        return pages;
      };
      const [inMemory, onPostgres] = [await walk(memory), await walk(postgres)];
      expect(inMemory.length).toBeGreaterThan(1);
      expect(onPostgres).toEqual(inMemory);
    });

    it('a sequence of conditional writes, step by step', async () => {
      const { memory, postgres } = await pair();
      const card = '/v1/vault/credit-cards/CARD-SEED1';
      const customer = '/v1/customers/customers/CUST-SEED1';
      const hook = '/v1/notifications/webhooks/WH-NEW';
      const tagOf = async (path: string) =>
        String((await request(memory).get(path)).headers.etag ?? '"none"');
      const json = { 'Content-Type': 'application/json' };
      const patch = { 'Content-Type': 'application/json-patch+json' };
      const steps: (() => Promise<Step>)[] = [
        async () => ({
          method: 'PATCH',
          path: card,
          headers: { ...patch, 'If-Match': await tagOf(card) },
          body: [{ op: 'replace', path: '/first_name', value: 'Patched' }],
        }),
        async () => ({
          method: 'PATCH',
          path: card,
          headers: { ...patch, 'If-Match': '"stale"' },
          body: [{ op: 'replace', path: '/first_name', value: 'Stale' }],
        }),
        async () => ({ method: 'GET', path: card }),
        async () => ({
          method: 'PUT',
          path: customer,
          headers: { ...json, 'If-Match': await tagOf(customer), Prefer: 'return=representation' },
          body: { merchant_customer_id: 'm-1', merchant_id: 'MERCHANT-1', first_name: 'Put' },
        }),
        async () => ({
          method: 'PATCH',
          path: hook,
          headers: { ...patch, 'If-None-Match': '*' },
          body: [
            { op: 'add', path: '/url', value: 'https://hooks.example.com/new' },
            { op: 'add', path: '/event_types', value: [{ name: 'PAYMENT.SALE.COMPLETED' }] },
          ],
        }),
        async () => ({
          method: 'PATCH',
          path: hook,
          headers: { ...patch, 'If-None-Match': '*' },
          body: [{ op: 'add', path: '/url', value: 'https://hooks.example.com/again' }],
        }),
        async () => ({ method: 'GET', path: hook }),
        async () => ({ method: 'DELETE', path: card, headers: { 'If-Match': '"stale"' } }),
        async () => ({ method: 'DELETE', path: card, headers: { 'If-Match': await tagOf(card) } }),
        async () => ({ method: 'DELETE', path: card }),
        async () => ({ method: 'GET', path: '/v1/vault/credit-cards?total_required=true' }),
        async () => ({ method: 'GET', path: '/v1/notifications/webhooks?sort_by=url' }),
      ];
      for (const next of steps) {
        const step = await next();
        const [inMemory, onPostgres] = [await send(memory, step), await send(postgres, step)];
        expect({ step, answer: onPostgres }).toEqual({ step, answer: inMemory });
      }
    });

    it('actions, their history and refunds, step by step', async () => {
      const { memory, postgres } = await pair();
      const agreement = '/v1/payments/billing-agreements/AGREEMENT-SEED01';
      const capture = '/v1/payments/captures/CAPTURE-SEED1';
      const tagOf = async (path: string) =>
        String((await request(memory).get(path)).headers.etag ?? '"none"');
      const json = { 'Content-Type': 'application/json' };
      const steps: (() => Promise<Step>)[] = [
        async () => ({
          method: 'POST',
          path: `${agreement}/suspend`,
          headers: { ...json, 'If-Match': await tagOf(agreement) },
          body: { note: 'first' },
        }),
        async () => ({ method: 'POST', path: `${agreement}/suspend`, headers: json, body: {} }),
        async () => ({
          method: 'POST',
          path: `${agreement}/re-activate`,
          headers: { ...json, 'If-Match': '"stale"' },
          body: {},
        }),
        async () => ({ method: 'POST', path: `${agreement}/re-activate`, headers: json, body: {} }),
        // Every call in one millisecond (one clock): only the call number orders them.
        async () => ({ method: 'GET', path: `${agreement}/history` }),
        async () => ({ method: 'GET', path: `${agreement}/history?sort_by=create_time` }),
        async () => ({
          method: 'GET',
          path: `${agreement}/history?sort_by=create_time&sort_order=desc&outcome=NO_CHANGE`,
        }),
        async () => ({
          method: 'POST',
          path: `${capture}/refund`,
          headers: json,
          body: { amount: { total: '4.00', currency: 'USD' } },
        }),
        async () => ({
          method: 'POST',
          path: `${capture}/refund`,
          headers: json,
          body: { amount: { total: '7.00', currency: 'USD' } },
        }),
        async () => ({ method: 'GET', path: capture }),
        async () => ({ method: 'GET', path: `${capture}/refunds` }),
        async () => ({ method: 'GET', path: '/v1/payments/refund-summary?currency=USD' }),
        async () => ({
          method: 'POST',
          path: '/v1/payments/search-billing-agreements?page_size=2',
          headers: json,
          body: { status: 'ACTIVE', description: 'plan 1' },
        }),
      ];
      for (const next of steps) {
        const step = await next();
        const [inMemory, onPostgres] = [await send(memory, step), await send(postgres, step)];
        expect({ step, answer: withoutNewIds(onPostgres) }).toEqual({
          step,
          answer: withoutNewIds(inMemory),
        });
      }
    });
  });
});

/**
 * A created refund's id is random in either mode: replaced by one placeholder, and the ETag of
 * an answer that carried one left out (it is the tag of those bytes).
 */
function withoutNewIds(answer: ReturnType<typeof answerOf>) {
  const newId = /REFUND-[0-9A-HJKMNP-TV-Z]{16}/g;
  if (!newId.test(answer.body)) return answer;
  const headers: Record<string, unknown> = { ...answer.headers };
  delete headers.etag;
  if (typeof headers.location === 'string') {
    headers.location = headers.location.replace(newId, 'REFUND-NEW');
  }
  return { ...answer, headers, body: answer.body.replace(newId, 'REFUND-NEW') };
}
