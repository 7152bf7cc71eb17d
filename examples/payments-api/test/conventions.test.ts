import { createServer, type IncomingHttpHeaders } from 'node:http';
import { createClusterCredentials } from '@resourceful/k8s-service-proxy';
import { complexOperationRoutes } from '@resourceful/resource-operations';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  refusedPort,
} from '@resourceful/test-support';
import { checkRoutes } from '@resourceful/versioned-router/check-routes';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { createApp, RELAY_PATH } from '../src/app.js';
import { DOCS_ASSETS, DOCS_PATH } from '../src/description/docs.js';
import { README_PATH } from '../src/readme.js';

const card = {
  payer_id: 'user12345',
  type: 'visa',
  number: '4111111111111111',
  expire_month: '11',
  expire_year: '2031',
};

describeEachExpress('the example follows the conventions', (express) => {
  const app = () => createApp({ express, publicBaseUrl: 'http://api.test' });

  describe('versions', () => {
    it('answers 400 UNSUPPORTED_VERSION for /v2 and /v9, listing v1', async () => {
      for (const path of ['/v2/vault/credit-cards', '/v9/customers/customers']) {
        const res = await request(app()).get(path);
        expectErrorEnvelope(res, 400, { code: 'UNSUPPORTED_VERSION' });
        expect(res.body.error.details.map((d: { target: string }) => d.target)).toEqual(['v1']);
      }
    });

    it('serves /v1.0 as /v1', async () => {
      const res = await request(app()).get('/v1.0/vault/credit-cards/CARD-SEED1');
      expect(res.status).toBe(200);
    });

    it('lists the served versions at /api', async () => {
      const res = await request(app()).get('/api');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ versions: ['v1'] });
    });

    it('keeps other unknown paths a 404', async () => {
      const res = await request(app()).get('/vault/credit-cards');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });
  });

  it('has no route that breaks the path rules', () => {
    const server = app();
    const findings = checkRoutes(server, {
      complexOperations: [
        // The declared operations (actions, refund, decisions, evaluate, refund summary) come
        // from the router; the search is collection-pagination's and is named here.
        ...complexOperationRoutes(server),
        '/v1/payments/search-billing-agreements',
      ],
      // the documentation linked from OPTIONS and the reference page's files, not resources
      ignore: [
        README_PATH,
        ...Object.keys(DOCS_ASSETS).map((file) => `${DOCS_PATH}/assets/${file}`),
      ],
    });
    expect(findings).toEqual([]);
  });

  describe('Prefer on create', () => {
    it('answers 201 with an empty body under return=minimal, Location kept', async () => {
      const res = await request(app())
        .post('/v1/vault/credit-cards')
        .set('Prefer', 'return=minimal')
        .send(card);
      expect(res.status).toBe(201);
      expect(res.text).toBe('');
      expect(res.headers.location).toMatch(/^http:\/\/api\.test\/v1\/vault\/credit-cards\/CARD-/);
      expect(res.headers['preference-applied']).toBe('return=minimal');
      expect(res.headers.vary).toMatch(/Prefer/);
    });

    it('answers 201 with the card under return=representation', async () => {
      const res = await request(app())
        .post('/v1/customers/customers')
        .set('Prefer', 'return=representation')
        .send({ merchant_customer_id: 'c-9', merchant_id: 'M-1' });
      expect(res.status).toBe(201);
      expect(res.body.merchant_customer_id).toBe('c-9');
      expect(res.headers['preference-applied']).toBe('return=representation');
    });

    it('reads the preference from the Prefer query parameter', async () => {
      const res = await request(app())
        .post('/v1/risk/decisions?Prefer=return%3Dminimal')
        .send({ code: 'R-1' });
      expect(res.status).toBe(201);
      expect(res.text).toBe('');
    });
  });

  describe('Service-Request-Id', () => {
    it('creates once and replays the first response to a repeat', async () => {
      const server = app();
      const first = await request(server)
        .post('/v1/vault/credit-cards')
        .set('Service-Request-Id', 'req-card-1')
        .send(card);
      const repeat = await request(server)
        .post('/v1/vault/credit-cards')
        .set('Service-Request-Id', 'req-card-1')
        .send(card);
      expect(first.status).toBe(201);
      expect(repeat.status).toBe(201);
      expect(repeat.body).toEqual(first.body);
      expect(repeat.headers.location).toBe(first.headers.location);
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(repeat.headers.vary).toBe(first.headers.vary);
      expect(repeat.headers.vary).toMatch(/Prefer/);
      const list = await request(server).get('/v1/vault/credit-cards?page_size=100');
      const ids = list.body.items.map((item: { id: string }) => item.id);
      expect(ids.filter((id: string) => id === first.body.id)).toHaveLength(1);
      expect(ids).toHaveLength(4);
    });

    it('answers 422 when the same id comes with another body', async () => {
      const server = app();
      await request(server)
        .post('/v1/risk/decisions')
        .set('Service-Request-Id', 'r-2')
        .send({ code: 'A' });
      const res = await request(server)
        .post('/v1/risk/decisions')
        .set('Service-Request-Id', 'r-2')
        .send({ code: 'B' });
      expectErrorEnvelope(res, 422, { code: 'UNPROCESSABLE_ENTITY' });
    });

    it('answers 400 naming the header for an id with bad characters', async () => {
      const res = await request(app())
        .post('/v1/risk/decisions')
        .set('Service-Request-Id', 'bad id \u00e9')
        .send({ code: 'A' });
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Service-Request-Id' });
    });

    it('creates exactly one webhook from 20 concurrent identical POSTs', async () => {
      const server = await listen(app());
      try {
        const body = JSON.stringify({
          url: 'https://hooks.example.com/x',
          event_types: [{ name: 'PAYMENT.SALE.COMPLETED' }],
        });
        const answers = await Promise.all(
          Array.from({ length: 20 }, () =>
            fetch(`${server.url}/v1/notifications/webhooks`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', 'Service-Request-Id': 'wh-burst' },
              body,
            }).then((res) => res.status),
          ),
        );
        expect(answers.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
        expect(answers.every((status) => status === 201 || status === 409)).toBe(true);
        const list = await fetch(`${server.url}/v1/notifications/webhooks?page_size=100`);
        const { items } = (await list.json()) as { items: { url: string }[] };
        expect(items.filter((item) => item.url === 'https://hooks.example.com/x')).toHaveLength(1);
      } finally {
        await server.close();
      }
    });
  });

  describe(`the cluster relay at ${RELAY_PATH}`, () => {
    it('is off without credentials', async () => {
      const res = await request(app()).get(`${RELAY_PATH}/anything`);
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    });

    it('relays through the service proxy path, with no credential to a plain http:// control plane (as kubectl)', async () => {
      let seen: { url?: string; headers: IncomingHttpHeaders } | undefined;
      const controlPlane = await listen(
        createServer((req, res) => {
          seen = { url: req.url, headers: req.headers };
          res.setHeader('Content-Type', 'application/json');
          res.end('{"balance":"10.00"}');
        }),
      );
      const warnings: string[] = [];
      const credentials = createClusterCredentials({
        server: controlPlane.url,
        token: 'relay-token',
        onWarning: (message) => warnings.push(message),
      });
      try {
        const relayed = createApp({
          express,
          serviceRelay: { credentials, namespace: 'payments', service: 'ledger', port: 'http' },
        });
        const res = await request(relayed)
          .get(`${RELAY_PATH}/balances/ACC-1?currency=USD`)
          .set('Authorization', 'Bearer client-token');
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ balance: '10.00' });
        expect(seen?.url).toBe(
          '/api/v1/namespaces/payments/services/ledger:http/proxy/balances/ACC-1?currency=USD',
        );
        // Neither the relay's token (cleartext) nor the client's own (never relayed).
        expect(seen?.headers.authorization).toBeUndefined();
        expect(warnings).toEqual([expect.stringMatching(/no credentials are sent/)]);
      } finally {
        credentials.close();
        await controlPlane.close();
      }
    });

    it('answers 502 UPSTREAM_ERROR when the control plane is down', async () => {
      const down = `http://127.0.0.1:${await refusedPort()}`;
      const credentials = createClusterCredentials({ server: down, token: 't' });
      try {
        const relayed = createApp({
          express,
          serviceRelay: { credentials, namespace: 'payments', service: 'ledger' },
        });
        const res = await request(relayed).get(`${RELAY_PATH}/x`);
        expectErrorEnvelope(res, 502, { code: 'UPSTREAM_ERROR' });
      } finally {
        credentials.close();
      }
    });
  });
});
