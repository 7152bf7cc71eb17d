import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  type RunningServer,
} from '@resourceful/test-support';
import {
  buildClientSchema,
  getIntrospectionQuery,
  type IntrospectionQuery,
  printSchema,
} from 'graphql';
import { serverAudits } from 'graphql-http';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../src/app.js';

const BASE = 'http://api.test';

describeEachExpress('GET and POST /graphql', (express) => {
  const app = createApp({ express, publicBaseUrl: BASE });
  let server: RunningServer;

  beforeAll(async () => {
    server = await listen(createApp({ express, publicBaseUrl: BASE }));
  });
  afterAll(() => server.close());

  const query = (source: string) => request(app).post('/graphql').send({ query: source });

  it('reads a card exactly as GET /v1/vault/credit-cards/{id} answers it, masked number included', async () => {
    const rest = (await request(app).get('/v1/vault/credit-cards/CARD-SEED1')).body;
    const res = await query(`{ credit_card(id: "CARD-SEED1") {
      id state payer_id type number expire_month expire_year first_name last_name valid_until
      billing_address { line1 city country_code state postal_code } create_time update_time
      links { href rel method } } }`);
    expect(res.status).toBe(200);
    const card = res.body.data.credit_card;
    // GraphQL answers every selected field, null where REST leaves one out.
    const withoutNulls = JSON.parse(JSON.stringify(card, (_k, v) => (v === null ? undefined : v)));
    expect(withoutNulls).toEqual(rest);
    expect(card.number).toMatch(/^x+\d{4}$/);
  });

  it('lists a page as the REST list does, with links to the REST collection', async () => {
    const rest = (
      await request(app).get('/v1/customers/customers?page=1&page_size=2&total_required=true')
    ).body;
    const res = await query(
      '{ customers(page: 1, page_size: 2, total_required: true) { items { id merchant_id } total_items total_pages links { rel } } }',
    );
    expect(res.body.data.customers.items.map((c: { id: string }) => c.id)).toEqual(
      rest.items.map((c: { id: string }) => c.id),
    );
    expect(res.body.data.customers.total_items).toBe(rest.total_items);
    expect(res.body.data.customers.links.map((l: { rel: string }) => l.rel)).toEqual(
      rest.links.map((l: { rel: string }) => l.rel),
    );
  });

  it('answers null for a resource that does not exist', async () => {
    const res = await query('{ webhook(id: "WH-NOPE") { id } }');
    expect(res.body).toEqual({ data: { webhook: null } });
  });

  it('answers a GET with ?query=', async () => {
    const res = await request(app)
      .get('/graphql')
      .query({ query: '{ credit_card(id: "CARD-SEED2") { id type } }' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: { credit_card: { id: 'CARD-SEED2', type: 'mastercard' } } });
  });

  it('answers the spec’s introspection query', async () => {
    const res = await query('{ __schema { types { kind name possibleTypes { name } } } }');
    const resource = res.body.data.__schema.types.find(
      (t: { name: string }) => t.name === 'Resource',
    );
    expect(resource.possibleTypes.map((t: { name: string }) => t.name).sort()).toEqual([
      'BillingAgreement',
      'Capture',
      'CreditCard',
      'CreditCardSummary',
      'Customer',
      'Payment',
      'PaymentDecision',
      'Refund',
      'Webhook',
    ]);
  });

  it('serves an SDL equal to the schema rebuilt from the full introspection query', async () => {
    const sdl = (await request(app).get('/graphql/schema.graphql')).text;
    const res = await query(
      getIntrospectionQuery({ specifiedByUrl: true, schemaDescription: true }),
    );
    expect(printSchema(buildClientSchema(res.body.data as IntrospectionQuery))).toBe(sdl);
    expect(sdl).toContain(
      'maestro @deprecated(reason: "Maestro is being retired by Mastercard; new cards are mastercard.")',
    );
  });

  it('refuses an abusive query with a GraphQL error, not a 5xx', async () => {
    const aliases = Array.from(
      { length: 60 },
      (_, i) => `a${i}: credit_cards(page_size: 100) { items { id number } }`,
    ).join(' ');
    // GraphQL over HTTP: 400 for application/graphql-response+json; the legacy
    // application/json answers 200 with the errors.
    const res = await request(app)
      .post('/graphql')
      .set('Accept', 'application/graphql-response+json')
      .send({ query: `{ ${aliases} }` });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].extensions.code).toBe('QUERY_TOO_COSTLY');
    const legacy = await query(`{ ${aliases} }`);
    expect(legacy.status).toBe(200);
    expect(legacy.body).toEqual({
      errors: [expect.objectContaining({ extensions: { code: 'QUERY_TOO_COSTLY' } })],
    });
  });

  it('passes every MUST and every SHOULD of graphql-http’s server audit', async () => {
    const failures: string[] = [];
    let audits = 0;
    for (const audit of serverAudits({ url: `${server.url}/graphql` })) {
      // The MAY audits are options the specification leaves open; MUST and SHOULD all hold.
      if (!/^(MUST|SHOULD)\b/.test(audit.name)) continue;
      audits++;
      const result = await audit.fn();
      if (result.status !== 'ok') failures.push(`${audit.name}: ${result.reason}`);
    }
    expect(audits).toBeGreaterThan(30);
    expect(failures).toEqual([]);
  });
});

describeEachExpress('the create_credit_card mutation', (express) => {
  const mutation =
    'mutation Create($input: CreditCardCreateInput!) { create_credit_card(input: $input) { id number state links { rel href } } }';
  const input = {
    payer_id: 'user9',
    type: 'visa',
    number: '4111111111111111',
    expire_month: '1',
    expire_year: '2032',
  };

  it('creates a card that GET then reads, with the masked number', async () => {
    const app = createApp({ express, publicBaseUrl: BASE });
    const res = await request(app).post('/graphql').send({ query: mutation, variables: { input } });
    const created = res.body.data.create_credit_card;
    expect(created.number).toBe('xxxxxxxxxxxx1111');
    const rest = await request(app).get(`/v1/vault/credit-cards/${created.id}`);
    expect(rest.status).toBe(200);
    expect(rest.body.number).toBe(created.number);
  });

  it('refuses an input the REST create refuses, naming the field, and stores nothing', async () => {
    const app = createApp({ express, publicBaseUrl: BASE });
    const before = (await request(app).get('/v1/vault/credit-cards?total_required=true')).body
      .total_items;
    const res = await request(app)
      .post('/graphql')
      .send({ query: mutation, variables: { input: { ...input, expire_month: '13' } } });
    expect(res.body.errors[0].extensions).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'input.expire_month',
      details: [expect.objectContaining({ target: 'input.expire_month' })],
      http: { status: 400 },
    });
    const after = (await request(app).get('/v1/vault/credit-cards?total_required=true')).body
      .total_items;
    expect(after).toBe(before);
  });

  it('runs once for a repeated Service-Request-Id, replaying the first answer', async () => {
    const app = createApp({ express, publicBaseUrl: BASE });
    const send = () =>
      request(app)
        .post('/graphql')
        .set('Service-Request-Id', 'gql-create-1')
        .send({ query: mutation, variables: { input } });
    const first = await send();
    const second = await send();
    expect(second.body).toEqual(first.body);
    expect(second.headers['idempotent-replayed']).toBe('true');
    const list = (
      await request(app).get('/v1/vault/credit-cards?payer_id=user9&total_required=true')
    ).body;
    expect(list.total_items).toBe(1);
  });

  it('refuses a Service-Request-Id reused with another input, creating nothing more', async () => {
    const app = createApp({ express, publicBaseUrl: BASE });
    const send = (payer: string) =>
      request(app)
        .post('/graphql')
        .set('Service-Request-Id', 'gql-create-2')
        .send({ query: mutation, variables: { input: { ...input, payer_id: payer } } });
    expect((await send('user10')).status).toBe(200);
    const reused = await send('user11');
    expect(reused.status).toBe(422);
    const list = (
      await request(app).get('/v1/vault/credit-cards?payer_id=user11&total_required=true')
    ).body;
    expect(list.total_items).toBe(0);
  });

  it('answers 415 and 406 with the error envelope, as every 4xx of the service, and runs nothing', async () => {
    const app = createApp({ express, publicBaseUrl: BASE });
    const before = (await request(app).get('/v1/vault/credit-cards?total_required=true')).body
      .total_items;
    const unsupported = await request(app)
      .post('/graphql')
      .set('Content-Type', 'text/plain')
      .send(JSON.stringify({ query: mutation, variables: { input } }));
    expectErrorEnvelope(unsupported, 415, {
      code: 'UNSUPPORTED_MEDIA_TYPE',
      target: 'Content-Type',
    });
    expect(unsupported.headers['x-request-id']).toEqual(expect.any(String));
    for (const test of [
      request(app).get(`/graphql?query=${encodeURIComponent('{ __typename }')}`),
      request(app)
        .post('/graphql')
        .set('Content-Type', 'application/json')
        .send({ query: mutation }),
    ]) {
      const refused = await test.set('Accept', 'application/xml');
      expectErrorEnvelope(refused, 406, { code: 'NOT_ACCEPTABLE', target: 'Accept' });
      expect(
        refused.body.error.details.map((detail: { message: string }) => detail.message),
      ).toEqual(['application/graphql-response+json', 'application/json']);
    }
    expect(
      (await request(app).get('/v1/vault/credit-cards?total_required=true')).body.total_items,
    ).toBe(before);
  });
});
