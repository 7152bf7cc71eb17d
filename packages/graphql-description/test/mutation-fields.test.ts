/**
 * Each root field of a mutation is one write, as one REST POST is: aliases and fragments must not
 * turn one request (one `Service-Request-Id`, one unit of any rate limit) into hundreds of writes.
 */
import { parse, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import { graphqlSchema, type QueryLimits, queryLimitRules } from '../src/index.js';
import { api, arrayResolvers, sampleCards } from './fixtures.js';

const schema = graphqlSchema(api, {
  resolvers: arrayResolvers(sampleCards(1)).resolvers,
  mutations: ['CreditCard'],
});

const create = (alias: string) =>
  `${alias}: create_credit_card(input: { payer_id: "u", type: visa, number: "4111111111111111" }) { id }`;

function codes(query: string, limits?: QueryLimits): unknown[] {
  return validate(schema, parse(query), [...specifiedRules, ...queryLimitRules(limits)]).map(
    (error) => error.extensions?.code,
  );
}

describe('mutation fields per operation', () => {
  it('serves up to maxMutationFields writes in one mutation (10 by default)', () => {
    const ten = Array.from({ length: 10 }, (_, i) => create(`a${i}`)).join(' ');
    expect(codes(`mutation { ${ten} __typename }`)).toEqual([]);
  });

  it('refuses more, counted through aliases, with TOO_MANY_MUTATIONS', () => {
    const eleven = Array.from({ length: 11 }, (_, i) => create(`a${i}`)).join(' ');
    const errors = validate(schema, parse(`mutation { ${eleven} }`), queryLimitRules());
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      message: 'The mutation has 11 fields that write; at most 10 are served in one request.',
      extensions: { code: 'TOO_MANY_MUTATIONS' },
    });
  });

  it('counts fragments that each spread the next twice, without walking every copy', () => {
    const levels = 40;
    const fragments = Array.from(
      { length: levels },
      (_, i) => `fragment F${i} on Mutation { ...F${i + 1} ...F${i + 1} }`,
    ).join(' ');
    const query = `mutation { ...F0 } ${fragments} fragment F${levels} on Mutation { ${create('a')} }`;
    expect(codes(query, { maxCost: Number.MAX_SAFE_INTEGER })).toContain('TOO_MANY_MUTATIONS');
  });

  it('takes its own bound, and leaves queries alone', () => {
    const two = `mutation { ${create('a')} ${create('b')} }`;
    expect(codes(two, { maxMutationFields: 1 })).toEqual(['TOO_MANY_MUTATIONS']);
    expect(
      codes('{ a: credit_card(id: "1") { id } b: credit_card(id: "2") { id } }', {
        maxMutationFields: 1,
      }),
    ).toEqual([]);
  });
});
