/**
 * GraphQL answers every described resource, sub-collection, search and complex operation from
 * the same data and representation functions as REST: each test reads one thing both ways and
 * compares the answers.
 */
import type { JsonSchema } from '@resourceful/api-description';
import { graphqlEnumValues } from '@resourceful/graphql-description';
import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { paymentsApi } from '../src/description/index.js';

const BASE = 'http://api.test';

/** The selection set of every field of a JSON Schema object, nested objects included. */
function selection(schema: JsonSchema): string {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  return Object.entries(properties)
    .map(([name, property]) => {
      const items = property.type === 'array' ? (property.items as JsonSchema) : property;
      return items.type === 'object' && items.properties !== undefined
        ? `${name} { ${selection(items)} }`
        : name;
    })
    .join(' ');
}

function representationOf(name: string): JsonSchema {
  const resource = paymentsApi.resources.find((r) => r.name === name);
  if (!resource) throw new Error(`no resource ${name}`);
  return resource.representation;
}

function itemsOf(resource: string, sub: string): JsonSchema {
  const found = paymentsApi.resources
    .find((r) => r.name === resource)
    ?.subCollections.find((s) => s.name === sub);
  if (!found) throw new Error(`no sub-collection ${resource}.${sub}`);
  return found.items.schema;
}

/** GraphQL answers every selected field, null where REST leaves one out. */
function withoutNulls(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value, (_key, v) => (v === null ? undefined : v)));
}

const PAGE = 'total_items total_pages links { href rel method }';
// GraphQL's lists send their arguments to the REST list parser as a query string in one order
// (paging, total_required, sort, filters); the REST requests below use that order, so the
// envelopes' links are equal text.

describeEachExpress('GraphQL answers as REST does', (express) => {
  const setup = () => {
    const app = createApp({ express, publicBaseUrl: BASE });
    const graphql = async (query: string, variables?: Record<string, unknown>) => {
      const res = await request(app).post('/graphql').send({ query, variables });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      // `data` is null when a field errs; the tests that expect errors read `errors`.
      return res.body as {
        data: Record<string, unknown>;
        errors?: { extensions?: { details?: unknown } }[];
      };
    };
    return { app, graphql };
  };

  it('reads a billing agreement, its action links included', async () => {
    const { app, graphql } = setup();
    const rest = (await request(app).get('/v1/payments/billing-agreements/AGREEMENT-SEED01')).body;
    const { data } = await graphql(
      `{ billing_agreement(id: "AGREEMENT-SEED01") { ${selection(representationOf('BillingAgreement'))} } }`,
    );
    expect(withoutNulls(data.billing_agreement)).toEqual(rest);
    expect(rest.links.map((l: { rel: string }) => l.rel)).toContain('suspend');
  });

  it('lists billing agreements as the REST list does, filtered and paged', async () => {
    const { app, graphql } = setup();
    const rest = (
      await request(app).get(
        '/v1/payments/billing-agreements?page=2&page_size=3&total_required=true&state=ACTIVE',
      )
    ).body;
    const { data } = await graphql(
      `{ billing_agreements(page: 2, page_size: 3, state: ACTIVE, total_required: true) {
        items { ${selection(representationOf('BillingAgreement'))} } ${PAGE} } }`,
    );
    expect(withoutNulls(data.billing_agreements)).toEqual(rest);
  });

  it('reads an agreement’s history as a field with paging arguments, as GET …/history answers', async () => {
    const { app, graphql } = setup();
    const agreement = '/v1/payments/billing-agreements/AGREEMENT-SEED02';
    expect((await request(app).post(`${agreement}/suspend`).send({ note: 'pause' })).status).toBe(
      200,
    );
    expect((await request(app).post(`${agreement}/suspend`).send({})).status).toBe(204);
    expect((await request(app).post(`${agreement}/re-activate`).send({})).status).toBe(200);
    const rest = (await request(app).get(`${agreement}/history?page_size=2&total_required=true`))
      .body;
    const { data } = await graphql(
      `{ billing_agreement(id: "AGREEMENT-SEED02") { history(page_size: 2, total_required: true) {
        items { ${selection(itemsOf('BillingAgreement', 'history'))} } ${PAGE} } } }`,
    );
    const history = (data.billing_agreement as { history: unknown }).history;
    // `re-activate` is no GraphQL name: the action enum is named in GraphQL's convention.
    const record = itemsOf('BillingAgreement', 'history').properties as Record<string, JsonSchema>;
    const actions = graphqlEnumValues(record.action?.enum as string[]);
    expect([...actions.values()]).toEqual(['SUSPEND', 'RE_ACTIVATE']);
    expect(withoutNulls(history)).toEqual({
      ...rest,
      items: rest.items.map((item: { action: string }) => ({
        ...item,
        action: actions.get(item.action),
      })),
    });
    expect(rest.total_items).toBe(3);
  });

  it('filters the history by outcome, as the REST history does', async () => {
    const { app, graphql } = setup();
    const agreement = '/v1/payments/billing-agreements/AGREEMENT-SEED03';
    await request(app).post(`${agreement}/suspend`).send({});
    await request(app).post(`${agreement}/suspend`).send({});
    const rest = (await request(app).get(`${agreement}/history?outcome=NO_CHANGE`)).body;
    const { data } = await graphql(
      `{ billing_agreement(id: "AGREEMENT-SEED03") { history(outcome: NO_CHANGE) {
        items { id outcome } links { href } } } }`,
    );
    const history = (data.billing_agreement as { history: { items: unknown[] } }).history;
    expect(history.items).toEqual(
      rest.items.map((r: { id: string; outcome: string }) => ({ id: r.id, outcome: r.outcome })),
    );
    expect(history.items).toHaveLength(1);
  });

  it('filters the history by action with the action enum, as the REST history filters by its text', async () => {
    const { app, graphql } = setup();
    const agreement = '/v1/payments/billing-agreements/AGREEMENT-SEED03';
    await request(app).post(`${agreement}/suspend`).send({});
    await request(app).post(`${agreement}/re-activate`).send({});
    await request(app).post(`${agreement}/re-activate`).send({});
    const { data: introspected } = await graphql(
      `{ __type(name: "BillingAgreementActionRecordAction") { kind enumValues { name description } } }`,
    );
    expect(introspected.__type).toEqual({
      kind: 'ENUM',
      enumValues: [
        { name: 'SUSPEND', description: '`suspend` in REST.' },
        { name: 'RE_ACTIVATE', description: '`re-activate` in REST.' },
      ],
    });
    const rest = (await request(app).get(`${agreement}/history?action=re-activate`)).body;
    const { data } = await graphql(
      `{ billing_agreement(id: "AGREEMENT-SEED03") { history(action: RE_ACTIVATE) {
        items { id action outcome } } } }`,
    );
    const history = (data.billing_agreement as { history: { items: unknown[] } }).history;
    expect(rest.items).toHaveLength(2);
    expect(history.items).toEqual(
      rest.items.map((r: { id: string; outcome: string }) => ({
        id: r.id,
        action: 'RE_ACTIVATE',
        outcome: r.outcome,
      })),
    );
    // The REST text is not a GraphQL enum value: refused by validation, as REST refuses `EXPIRE`.
    const refused = await request(app).post('/graphql').send({
      query:
        '{ billing_agreement(id: "AGREEMENT-SEED03") { history(action: "re-activate") { total_items } } }',
    });
    expect(refused.body.errors?.[0]?.message).toMatch(/BillingAgreementActionRecordAction/);
  });

  it('searches agreements as POST /v1/payments/search-billing-agreements does, links with POST', async () => {
    const { app, graphql } = setup();
    const criteria = { status: 'ACTIVE', create_time_before: '2100-01-01T00:00:00Z' };
    const rest = (
      await request(app)
        .post('/v1/payments/search-billing-agreements?page=2&page_size=2&total_required=true')
        .send(criteria)
    ).body;
    const { data } = await graphql(
      `query Search($criteria: BillingAgreementSearchCriteria) {
        search_billing_agreements(criteria: $criteria, page: 2, page_size: 2, total_required: true) {
          items { ${selection(representationOf('BillingAgreement'))} } ${PAGE} } }`,
      { criteria },
    );
    expect(withoutNulls(data.search_billing_agreements)).toEqual(rest);
    expect(rest.links[0].method).toBe('POST');
  });

  it('refuses search criteria the REST search refuses, naming the field', async () => {
    const { graphql } = setup();
    const res = await graphql(
      `{ search_billing_agreements(criteria: { description: "${'x'.repeat(201)}" }) { total_items } }`,
    );
    expect(res.errors?.[0]?.extensions).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'criteria.description',
      details: [expect.objectContaining({ target: 'criteria.description' })],
      http: { status: 400 },
    });
  });

  it('reads captures, one and a page, as REST does', async () => {
    const { app, graphql } = setup();
    const capture = selection(representationOf('Capture'));
    const one = (await request(app).get('/v1/payments/captures/CAPTURE-SEED1')).body;
    const page = (
      await request(app).get(
        '/v1/payments/captures?page_size=2&total_required=true&state=completed',
      )
    ).body;
    const { data } = await graphql(
      `{ capture(id: "CAPTURE-SEED1") { ${capture} }
         captures(page_size: 2, state: completed, total_required: true) { items { ${capture} } ${PAGE} } }`,
    );
    expect(withoutNulls(data.capture)).toEqual(one);
    expect(withoutNulls(data.captures)).toEqual(page);
  });

  it('reads a capture’s refunds as a field, and a refund, as REST does after a refund', async () => {
    const { app, graphql } = setup();
    const created = await request(app)
      .post('/v1/payments/captures/CAPTURE-SEED2/refund')
      .send({ amount: { total: '2.50', currency: 'USD' } });
    expect(created.status).toBe(201);
    const refunds = (await request(app).get('/v1/payments/captures/CAPTURE-SEED2/refunds')).body;
    const refund = (await request(app).get(`/v1/payments/refunds/${created.body.id}`)).body;
    const fields = selection(representationOf('Refund'));
    const { data } = await graphql(
      `{ capture(id: "CAPTURE-SEED2") { state remaining_amount { total } refunds { items { ${fields} } ${PAGE} } }
         refund(id: "${created.body.id}") { ${fields} } }`,
    );
    const capture = data.capture as { state: string; remaining_amount: { total: string } } & {
      refunds: unknown;
    };
    expect(withoutNulls(capture.refunds)).toEqual(refunds);
    expect(withoutNulls(data.refund)).toEqual(refund);
    expect(capture.state).toBe('partially_refunded');
    expect(capture.remaining_amount.total).toBe('23.00');
  });

  it('reads a payment as GET /v1/payments/payments/{id} does', async () => {
    const { app, graphql } = setup();
    const rest = (await request(app).get('/v1/payments/payments/PAY-SEED1')).body;
    const { data } = await graphql(
      `{ payment(id: "PAY-SEED1") { ${selection(representationOf('Payment'))} } }`,
    );
    expect(withoutNulls(data.payment)).toEqual(rest);
  });

  it('reads a webhook’s event types as a paged field, as GET …/event-types does', async () => {
    const { app, graphql } = setup();
    const rest = (
      await request(app).get(
        '/v1/notifications/webhooks/WH-SEED1/event-types?total_required=true&sort_by=name&page_size=2',
      )
    ).body;
    const { data } = await graphql(
      `{ webhook(id: "WH-SEED1") { event_types { name }
         event_types_page(sort_by: name, page_size: 2, total_required: true) { items { name description } ${PAGE} } } }`,
    );
    const webhook = data.webhook as { event_types: unknown[]; event_types_page: unknown };
    expect(withoutNulls(webhook.event_types_page)).toEqual(rest);
    expect(webhook.event_types.length).toBeGreaterThan(2);
  });

  it('reads the refund summary as a query field with the REST query’s arguments', async () => {
    const { app, graphql } = setup();
    const start = '2000-01-01T00:00:00Z';
    const rest = (
      await request(app).get(`/v1/payments/refund-summary?currency=USD&start_time=${start}`)
    ).body;
    const { data } = await graphql(
      `{ refund_summary(currency: "USD", start_time: "${start}") { ${selection(
        paymentsApi.operations.find((o) => o.operationId === 'refundSummary')
          ?.response as JsonSchema,
      )} } }`,
    );
    expect(withoutNulls(data.refund_summary)).toEqual(rest);
    expect(rest.capture_count).toBeGreaterThan(0);
  });

  it('refuses a refund summary query the REST route refuses, naming the parameter', async () => {
    const { app, graphql } = setup();
    const query = 'currency=USD&start_time=2026-02-01T00:00:00Z&end_time=2026-01-01T00:00:00Z';
    const rest = await request(app).get(`/v1/payments/refund-summary?${query}`);
    expect(rest.status).toBe(400);
    const res = await graphql(
      '{ refund_summary(currency: "USD", start_time: "2026-02-01T00:00:00Z", end_time: "2026-01-01T00:00:00Z") { capture_count } }',
    );
    expect(res.errors?.[0]?.extensions).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'end_time',
      details: [expect.objectContaining({ target: 'end_time' })],
      http: { status: 400 },
    });
  });

  it('evaluates a code as POST /v1/risk/evaluate does, keeping nothing', async () => {
    const { app, graphql } = setup();
    const rest = (await request(app).post('/v1/risk/evaluate').send({ code: 'R-9' })).body;
    const { data } = await graphql('{ evaluate_payment(input: { code: "R-9" }) { status } }');
    expect(data.evaluate_payment).toEqual(rest);
  });

  it('records a decision with the opt-in mutation, readable by REST and by the query field alike', async () => {
    const { app, graphql } = setup();
    const fields = selection(representationOf('PaymentDecision'));
    const { data } = await graphql(
      `mutation { create_payment_decision(input: { code: "R-42" }) { ${fields} } }`,
    );
    const created = data.create_payment_decision as { id: string; status: string };
    expect(created.status).toBe('APPROVED');
    const rest = (await request(app).get(`/v1/risk/decisions/${created.id}`)).body;
    expect(withoutNulls(created)).toEqual(rest);
    const read = await graphql(`{ payment_decision(id: "${created.id}") { ${fields} } }`);
    expect(withoutNulls(read.data.payment_decision)).toEqual(rest);
  });

  it('refuses a decision input the REST operation refuses, recording nothing', async () => {
    const { graphql } = setup();
    const res = await graphql('mutation { create_payment_decision(input: { code: "" }) { id } }');
    expect(res.errors?.[0]?.extensions).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'input.code',
      details: [expect.objectContaining({ target: 'input.code' })],
      http: { status: 400 },
    });
  });

  it('creates an agreement, a customer and a webhook with the create mutations, as POST does', async () => {
    const { app, graphql } = setup();
    const { data } = await graphql(
      `mutation {
        create_billing_agreement(input: { description: "Weekly plan" }) { ${selection(representationOf('BillingAgreement'))} }
        create_customer(input: { merchant_customer_id: "c-77", merchant_id: "M-7" }) { ${selection(representationOf('Customer'))} }
        create_webhook(input: { url: "https://merchant.test/h", event_types: [{ name: "PAYMENT.SALE.COMPLETED" }] }) { ${selection(representationOf('Webhook'))} }
      }`,
    );
    const reads = {
      create_billing_agreement: '/v1/payments/billing-agreements',
      create_customer: '/v1/customers/customers',
      create_webhook: '/v1/notifications/webhooks',
    };
    for (const [field, collection] of Object.entries(reads)) {
      const created = data[field] as { id: string };
      const rest = (await request(app).get(`${collection}/${created.id}`)).body;
      expect(withoutNulls(created), field).toEqual(rest);
    }
    expect((data.create_billing_agreement as { state: string }).state).toBe('ACTIVE');
  });

  it('refuses a webhook input the REST create refuses, naming the field', async () => {
    const { graphql } = setup();
    const res = await graphql(
      'mutation { create_webhook(input: { url: "ftp://merchant.test/h", event_types: [{ name: "X" }] }) { id } }',
    );
    expect(res.errors?.[0]?.extensions).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'input.url',
      details: [expect.objectContaining({ target: 'input.url' })],
      http: { status: 400 },
    });
  });

  it('names an invalid item of a list as REST does, under the argument', async () => {
    const { app, graphql } = setup();
    const input = { url: 'https://merchant.test/h', event_types: [{ name: 'lower case' }] };
    const rest = await request(app).post('/v1/notifications/webhooks').send(input);
    expect(rest.status).toBe(400);
    const res = await graphql(
      'mutation { create_webhook(input: { url: "https://merchant.test/h", event_types: [{ name: "lower case" }] }) { id } }',
    );
    expect(res.errors?.[0]?.extensions).toEqual({
      code: 'VALIDATION_ERROR',
      target: `input.${rest.body.error.target}`,
      details: rest.body.error.details.map((detail: { target: string }) => ({
        ...detail,
        target: `input.${detail.target}`,
      })),
      http: { status: rest.status },
    });
    expect(res.errors?.[0]?.extensions?.details).toEqual([
      expect.objectContaining({ code: 'VALIDATION_ERROR', target: 'input.event_types[0].name' }),
    ]);
  });

  it('answers null for a capture, refund, payment, agreement or decision that does not exist', async () => {
    const { graphql } = setup();
    const res = await graphql(
      '{ capture(id: "NOPE") { id } refund(id: "NOPE") { id } payment(id: "NOPE") { id } billing_agreement(id: "NOPE") { id } payment_decision(id: "NOPE") { id } }',
    );
    expect(res).toEqual({
      data: {
        capture: null,
        refund: null,
        payment: null,
        billing_agreement: null,
        payment_decision: null,
      },
    });
  });
});
