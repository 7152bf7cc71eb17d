import { describeApi } from '@resourceful/api-description';
import { type ExecutionResult, graphql, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { graphqlSchema } from '../src/index.js';
import { api, arrayResolvers, Card, sampleCards } from './fixtures.js';

function setup(mutations: string[] = []) {
  const cards = sampleCards(3);
  const { resolvers, calls } = arrayResolvers(cards);
  const schema = graphqlSchema(api, { resolvers, mutations });
  const run = (source: string, variableValues?: Record<string, unknown>) =>
    graphql({ schema, source, variableValues, contextValue: {} }) as Promise<ExecutionResult>;
  return { schema, run, calls, cards };
}

describe('graphqlSchema: the SDL', () => {
  const sdl = printSchema(setup(['CreditCard']).schema);

  it('binds the root operation types in an explicit schema block', () => {
    expect(sdl).toMatch(/schema \{\n {2}query: Query\n {2}mutation: Mutation\n\}/);
    expect(sdl).toContain('"""A card vault."""');
  });

  it('declares the common envelope as an interface every resource implements', () => {
    expect(sdl).toContain(
      'interface Resource {\n  id: ID!\n  create_time: DateTime!\n  update_time: DateTime!\n  links: [Link!]!\n}',
    );
    expect(sdl).toContain('type CreditCard implements Resource {');
  });

  it('keeps the resource’s own field names, non-null where required, lists and nested objects', () => {
    expect(sdl).toContain('  payer_id: String!\n');
    expect(sdl).toContain('  billing_address: CreditCardBillingAddress\n');
    expect(sdl).toContain('type CreditCardBillingAddress {\n  line1: String!\n  city: String!\n}');
    expect(sdl).toContain('  expire_year: Int!\n');
    expect(sdl).toContain('  metadata: JSONObject\n');
  });

  it('types a subschema named with zod’s meta({ id }) as the object it is, not as a String', async () => {
    const Address = z.object({ city: z.string() }).meta({ id: 'Address' });
    const located = describeApi({
      ...api,
      resources: [
        {
          name: 'Place',
          path: '/places',
          summary: 'A place.',
          representation: Card.pick({
            id: true,
            create_time: true,
            update_time: true,
            links: true,
          }).extend({ home: Address }),
          operations: { read: true },
        },
      ],
    });
    const place = { ...sampleCards(1)[0], home: { city: 'Lyon' } };
    const schema = graphqlSchema(located, { resolvers: { Place: { read: () => place } } });
    expect(printSchema(schema)).toContain('  home: PlaceHome!\n');
    const result = await graphql({ schema, source: '{ place(id: "P") { home { city } } }' });
    expect(result).toEqual({ data: { place: { home: { city: 'Lyon' } } } });
  });

  it('uses enums for state-like fields and a custom scalar for timestamps', () => {
    expect(sdl).toContain('enum CreditCardType {\n  visa\n  mastercard\n}');
    expect(sdl).toContain('  valid_until: DateTime!\n');
    expect(sdl).toMatch(
      /scalar DateTime @specifiedBy\(url: "https:\/\/www.rfc-editor.org\/rfc\/rfc3339"\)/,
    );
  });

  it('marks deprecated fields and enum values with @deprecated(reason:)', () => {
    expect(sdl).toContain('  first_name: String @deprecated(reason: "Use billing_address.")\n');
    expect(sdl).toContain('  expired @deprecated(reason: "Expired cards are deleted.")\n');
  });

  it('has query fields with non-null arguments for ids and paging', () => {
    expect(sdl).toContain('  credit_card(id: ID!): CreditCard\n');
    expect(sdl).toMatch(
      /credit_cards\(page: Int! = 1, page_size: Int! = 10, total_required: Boolean! = false, sort_by: CreditCardSortField, sort_order: SortOrder, state: CreditCardState, create_time_after: DateTime, create_time_before: DateTime\): CreditCardCollection!/,
    );
    expect(sdl).toContain(
      '"""A page of the collection (spec: "Collection envelope")."""\ntype CreditCardCollection {',
    );
  });

  it('offers creates as mutations only where the service opts in', () => {
    expect(sdl).toContain('create_credit_card(input: CreditCardCreateInput!): CreditCard!');
    expect(printSchema(setup().schema)).not.toContain('Mutation');
  });
});

describe('graphqlSchema: resolving', () => {
  it('reads one resource through the read resolver, null when there is none', async () => {
    const { run } = setup();
    const result = await run(
      '{ a: credit_card(id: "CARD-2") { id expire_year links { rel } } b: credit_card(id: "nope") { id } }',
    );
    expect(result).toEqual({
      data: { a: { id: 'CARD-2', expire_year: 2031, links: [{ rel: 'self' }] }, b: null },
    });
  });

  it('lists through the list resolver with the paging, sort, filter and time arguments', async () => {
    const { run, calls } = setup();
    const result = await run(
      '{ credit_cards(page: 2, page_size: 2, total_required: true, sort_by: expire_year, sort_order: desc, state: ok, create_time_after: "2026-01-01T00:00:00Z") { items { id } total_items total_pages } }',
    );
    expect(result.data).toEqual({
      credit_cards: { items: [{ id: 'CARD-3' }], total_items: 3, total_pages: 2 },
    });
    expect(calls).toEqual([
      {
        page: 2,
        page_size: 2,
        total_required: true,
        sort_by: 'expire_year',
        sort_order: 'desc',
        filters: { state: 'ok' },
        times: { create_time_after: '2026-01-01T00:00:00Z' },
      },
    ]);
  });

  it('answers queries that use fragments', async () => {
    const { run } = setup();
    const result = await run(`
      query Cards { credit_cards(page_size: 1) { items { ...Envelope ... on CreditCard { payer_id } } } }
      fragment Envelope on Resource { id create_time }
    `);
    expect(result).toEqual({
      data: {
        credit_cards: {
          items: [{ id: 'CARD-1', create_time: '2026-01-01T10:00:00Z', payer_id: 'user1' }],
        },
      },
    });
  });

  it('refuses a timestamp argument that is not RFC 3339', async () => {
    const { run } = setup();
    const result = await run('{ credit_cards(create_time_after: "yesterday") { items { id } } }');
    expect(result.errors?.[0]?.message).toMatch(/RFC 3339/);
  });

  it('creates through the description’s schema, refusing what it refuses, field by field', async () => {
    const { run, cards } = setup(['CreditCard']);
    const bad = await run(
      'mutation($input: CreditCardCreateInput!) { create_credit_card(input: $input) { id } }',
      {
        input: { payer_id: 'u', type: 'visa', number: '12' },
      },
    );
    expect(bad.errors?.[0]?.extensions).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'input.number',
      details: [
        { code: 'VALIDATION_ERROR', message: 'must be 12 to 19 digits', target: 'input.number' },
      ],
      http: { status: 400 },
    });
    expect(cards).toHaveLength(3);
    const good = await run(
      'mutation { create_credit_card(input: {payer_id: "u", type: mastercard, number: "4111111111111111"}) { id type } }',
    );
    expect(good).toEqual({ data: { create_credit_card: { id: 'CARD-4', type: 'mastercard' } } });
  });
});

describe('graphqlSchema: construction', () => {
  it('requires a resolver for every described read and list', () => {
    expect(() =>
      graphqlSchema(api, { resolvers: { CreditCard: { read: () => undefined } } }),
    ).toThrow(/resolvers\.CreditCard\.list must be a function/);
  });

  it('refuses resolvers and mutations of resources it does not describe', () => {
    const { resolvers } = arrayResolvers([]);
    expect(() => graphqlSchema(api, { resolvers: { ...resolvers, Card: {} } })).toThrow(
      /"Card", which is not a described resource/,
    );
    expect(() => graphqlSchema(api, { resolvers, mutations: ['Card'] })).toThrow(
      /neither a resource with a described create/,
    );
  });

  it('checks its option names', () => {
    const { resolvers } = arrayResolvers([]);
    expect(() => graphqlSchema(api, { resolvers, mutation: [] } as never)).toThrow(
      /Did you mean "mutations"/,
    );
  });
});
