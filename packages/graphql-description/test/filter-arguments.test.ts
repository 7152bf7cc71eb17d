/**
 * The filter arguments of list fields are held to the bounds the OpenAPI document states for the
 * same REST list's filter parameters (a free-text filter: 1 to `MAX_FILTER_LENGTH` characters), as
 * collection-pagination holds the REST list to them: a resolver is never asked to filter by a
 * value the REST route would refuse, and one it is asked for reaches it verbatim.
 */
import { MAX_FILTER_LENGTH } from '@resourceful/api-description';
import { describeEachExpress, type RunningServer } from '@resourceful/test-support';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { graphqlSchema, type ListArguments } from '../src/index.js';
import { cardListApi, serveGraphql } from './fixtures.js';

const api = cardListApi({ filterable: ['payer_id', 'state'] });

describeEachExpress('filter arguments', (express) => {
  let server: RunningServer;
  const calls: ListArguments[] = [];
  const schema = graphqlSchema(api, {
    resolvers: {
      CreditCard: {
        list: (args: ListArguments) => {
          calls.push(args);
          return { items: [], links: [] };
        },
      },
    },
  });

  beforeAll(async () => {
    server = await serveGraphql(express, schema);
  });
  afterAll(() => server.close());
  beforeEach(() => {
    calls.length = 0;
  });

  async function list(payer: unknown) {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query: 'query($payer: String) { credit_cards(payer_id: $payer) { items { id } } }',
        variables: { payer },
      }),
    });
    return (await res.json()) as {
      data?: unknown;
      errors?: { message: string; extensions?: Record<string, unknown> }[];
    };
  }

  for (const [label, value, code] of [
    ['empty', '', 'EMPTY_PARAMETER'],
    [
      `longer than ${MAX_FILTER_LENGTH} characters`,
      'x'.repeat(MAX_FILTER_LENGTH + 1),
      'PARAMETER_TOO_LONG',
    ],
    // GraphQL's parser refuses "\ud800" in a literal; a JSON variable must not slip it through
    // (a URL query, as a service may rebuild the REST list's, would read it as U+FFFD).
    ['not well-formed Unicode (a lone surrogate)', 'a\ud800', 'INVALID_PARAMETER'],
  ] as const) {
    it(`refuses a free-text filter that is ${label}, naming it, without asking the resolver`, async () => {
      const body = await list(value);
      expect(body.data).toBeNull();
      expect(body.errors).toEqual([
        expect.objectContaining({
          message: expect.stringContaining('"payer_id"'),
          extensions: {
            code: 'INVALID_REQUEST',
            target: 'payer_id',
            innererror: { code },
            http: { status: 400 },
          },
        }),
      ]);
      expect(calls).toEqual([]);
    });
  }

  it('hands the resolver a filter of the longest length, and one with &, = and commas, verbatim', async () => {
    const longest = 'x'.repeat(MAX_FILTER_LENGTH);
    expect((await list(longest)).errors).toBeUndefined();
    expect((await list('a&b=c,d e%20')).errors).toBeUndefined();
    expect(calls.map((call) => call.filters)).toEqual([
      { payer_id: longest },
      { payer_id: 'a&b=c,d e%20' },
    ]);
  });

  it('refuses a list of values with GraphQL’s coercion error, without asking the resolver', async () => {
    const body = await list(['a', 'b']);
    expect(body.errors?.[0]?.message).toMatch(/String cannot represent a non string value/);
    expect(calls).toEqual([]);
  });

  it('leaves an omitted or null filter out of filters', async () => {
    expect((await list(null)).errors).toBeUndefined();
    expect(calls).toEqual([expect.objectContaining({ filters: {} })]);
  });
});
