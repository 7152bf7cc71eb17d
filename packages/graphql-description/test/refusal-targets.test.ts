import { ApiError } from '@resourceful/error-envelope';
import { describeEachExpress, type RunningServer } from '@resourceful/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { graphqlSchema } from '../src/index.js';
import { api, arrayResolvers, sampleCards, serveGraphql } from './fixtures.js';

interface GraphqlError {
  message: string;
  extensions?: Record<string, unknown>;
}

/** A create whose store refuses as the payer says, naming fields as the REST body has them. */
function refusingCreate(input: unknown) {
  const { payer_id: payer } = input as { payer_id: string };
  if (payer === 'store-refuses') {
    throw ApiError.validation([
      { code: 'VALIDATION_ERROR', message: 'cannot be stored', target: 'payer_id' },
    ]);
  }
  if (payer === 'nested') {
    throw ApiError.validation([
      { code: 'VALIDATION_ERROR', message: 'cannot be stored', target: 'billing_address.city' },
      { code: 'VALIDATION_ERROR', message: 'cannot be stored', target: 'number' },
    ]);
  }
  if (payer === 'not-a-field') {
    throw ApiError.conflict('The card is being changed.', { target: 'Service-Request-Id' });
  }
  return sampleCards(1)[0];
}

describeEachExpress('targets of a resolver’s refusal', (express) => {
  let server: RunningServer;
  const { resolvers } = arrayResolvers(sampleCards(1));
  const schema = graphqlSchema(api, {
    resolvers: { CreditCard: { ...resolvers.CreditCard, create: refusingCreate } },
    mutations: ['CreditCard'],
  });

  beforeAll(async () => {
    server = await serveGraphql(express, schema);
  });
  afterAll(() => server.close());

  async function create(input: Record<string, unknown>) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query:
          'mutation($input: CreditCardCreateInput!) { create_credit_card(input: $input) { id } }',
        variables: { input: { type: 'visa', number: '4111111111111111', ...input } },
      }),
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { errors: GraphqlError[] };
    return body.errors[0]?.extensions;
  }

  it('names a body field the store refuses under the argument, as validation names it', async () => {
    // The schema's validation and the store's refusal of one field answer in one shape.
    expect(await create({ payer_id: '' })).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'input.payer_id',
      details: [
        { code: 'VALIDATION_ERROR', message: expect.any(String), target: 'input.payer_id' },
      ],
      http: { status: 400 },
    });
    expect(await create({ payer_id: 'store-refuses' })).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'input.payer_id',
      details: [
        { code: 'VALIDATION_ERROR', message: 'cannot be stored', target: 'input.payer_id' },
      ],
      http: { status: 400 },
    });
  });

  it('names nested fields and every detail under the argument', async () => {
    const extensions = await create({ payer_id: 'nested' });
    expect(extensions?.details).toEqual([
      expect.objectContaining({ target: 'input.billing_address.city' }),
      expect.objectContaining({ target: 'input.number' }),
    ]);
  });

  it('leaves a target that is no field of the body as it is', async () => {
    expect(await create({ payer_id: 'not-a-field' })).toMatchObject({
      code: 'CONFLICT',
      target: 'Service-Request-Id',
    });
  });
});
