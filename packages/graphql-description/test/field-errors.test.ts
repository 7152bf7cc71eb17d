import { ApiError, type ErrorReport, errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, listen, type RunningServer } from '@resourceful/test-support';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { graphqlEndpoint, graphqlSchema } from '../src/index.js';
import { api, arrayResolvers, sampleCards } from './fixtures.js';

interface GraphqlError {
  message: string;
  path?: (string | number)[];
  extensions?: Record<string, unknown>;
}

const INTERNAL = 'relation "public.payments" does not exist';

/** A read that fails as the id says; any other id is a card of the fixture. */
function failingRead(id: string) {
  switch (id) {
    case 'SQL':
      throw Object.assign(new Error(INTERNAL), { code: '42P01' });
    case 'DOWN':
      throw ApiError.serviceUnavailable('The card store is down.', {
        retryAfter: 2,
        innererror: { code: 'CARD_STORE_DOWN' },
      });
    case 'BUSY':
      throw ApiError.serviceUnavailable();
    case 'LOCKED':
      throw ApiError.conflict('The card is being changed.', { target: 'id' });
    default:
      return undefined;
  }
}

describeEachExpress('field errors', (express) => {
  let server: RunningServer;
  const reports: ErrorReport[] = [];
  const { resolvers } = arrayResolvers(sampleCards(2));
  const schema = graphqlSchema(api, {
    resolvers: { CreditCard: { ...resolvers.CreditCard, read: failingRead } },
  });

  beforeAll(async () => {
    const app = express();
    app.use(express.json());
    app.use('/graphql', graphqlEndpoint({ schema }));
    app.use(errorHandler({ onError: (report) => reports.push(report), retryAfter: 7 }));
    server = await listen(app);
  });
  afterAll(() => server.close());
  beforeEach(() => {
    reports.length = 0;
  });

  async function read(id: string) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: `{ credit_card(id: "${id}") { id } }` }),
    });
    expect(res.status).toBe(200);
    return (await res.json()) as { data?: Record<string, unknown>; errors?: GraphqlError[] };
  }

  it('masks an unexpected error as REST does, and reports it to the app’s onError', async () => {
    const body = await read('SQL');
    expect(JSON.stringify(body)).not.toContain('relation');
    expect(body.data).toEqual({ credit_card: null });
    expect(body.errors).toEqual([
      {
        message: expect.any(String),
        locations: [{ line: 1, column: 3 }],
        path: ['credit_card'],
        extensions: { code: 'INTERNAL_SERVER_ERROR', http: { status: 500 } },
      },
    ]);
    expect(reports).toHaveLength(1);
    expect(reports[0]?.fault).toBe(true);
    expect((reports[0]?.cause as Error | undefined)?.message).toBe(INTERNAL);
    expect(reports[0]?.error.code).toBe('INTERNAL_SERVER_ERROR');
  });

  it('keeps an ApiError’s message, code and innererror, with its status and Retry-After', async () => {
    const body = await read('DOWN');
    const [error] = body.errors ?? [];
    expect(error?.message).toBe('The card store is down.');
    expect(error?.extensions).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      innererror: { code: 'CARD_STORE_DOWN' },
      http: { status: 503, headers: { 'Retry-After': '2' } },
    });
    expect(reports.map((report) => report.status)).toEqual([503]);
  });

  it('gives a 503 without its own Retry-After the app’s default, as REST does', async () => {
    const body = await read('BUSY');
    expect(body.errors?.[0]?.extensions).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      http: { status: 503, headers: { 'Retry-After': '7' } },
    });
  });

  it('keeps an ApiError’s target', async () => {
    const body = await read('LOCKED');
    expect(body.errors?.[0]).toMatchObject({
      message: 'The card is being changed.',
      extensions: { code: 'CONFLICT', target: 'id', http: { status: 409 } },
    });
    expect(reports[0]?.kind).toBe('client-error');
  });

  it('answers none as null with no error, a failure as null with an error at its path', async () => {
    const none = await read('CARD-NONE');
    expect(none).toEqual({ data: { credit_card: null } });
    const failed = await read('DOWN');
    expect(failed.data).toEqual({ credit_card: null });
    expect(failed.errors?.map((error) => error.path)).toEqual([['credit_card']]);
  });

  it('leaves graphql-js’s own errors and validation errors as they are, unreported', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ query: '{ credit_card(id: 1.5) { id } }' }),
    });
    const body = (await res.json()) as { errors: GraphqlError[] };
    expect(body.errors[0]?.message).toMatch(/ID cannot represent a non-string/);
    expect(reports).toEqual([]);
  });
});

describe('field errors without an error handler', () => {
  it('are masked all the same (the default settings)', async () => {
    const express = (await import('express')).default;
    const app = express();
    app.use(express.json());
    const schema = graphqlSchema(api, {
      resolvers: { CreditCard: { ...arrayResolvers([]).resolvers.CreditCard, read: failingRead } },
    });
    app.use('/graphql', graphqlEndpoint({ schema }));
    const server = await listen(app);
    try {
      const res = await fetch(`${server.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ query: '{ credit_card(id: "SQL") { id } }' }),
      });
      expect(JSON.stringify(await res.json())).not.toContain('relation');
    } finally {
      await server.close();
    }
  });
});
