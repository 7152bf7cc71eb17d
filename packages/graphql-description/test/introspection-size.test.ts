import { describeEachExpress, type RunningServer } from '@resourceful/test-support';
import { type GraphQLError, getIntrospectionQuery, parse, specifiedRules, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { graphqlSchema, type QueryLimits, queryLimitRules } from '../src/index.js';
import { COMPLETE_INTROSPECTION_OPTIONS } from '../src/introspection-size.js';
import { api, arrayResolvers, sampleCards, serveGraphql } from './fixtures.js';

const schema = graphqlSchema(api, {
  resolvers: arrayResolvers(sampleCards(2)).resolvers,
  mutations: ['CreditCard'],
});

/** graphql-js's complete introspection query: every option a tool can ask for. */
const COMPLETE = getIntrospectionQuery(COMPLETE_INTROSPECTION_OPTIONS);

/** The whole schema asked for in one fragment, the fragment spread under `count` aliases. */
function aliasedSchemaDumps(count: number): string {
  const type = 'name kind ofType { name kind ofType { name kind ofType { name } } }';
  const aliases = Array.from({ length: count }, (_, i) => `a${i}: __schema { ...S }`).join(' ');
  return `{ ${aliases} } fragment S on __Schema { types { name kind description fields(includeDeprecated: true) { name description args { name type { ${type} } } type { ${type} } } } }`;
}

function limitErrors(query: string, limits?: QueryLimits): readonly GraphQLError[] {
  return validate(schema, parse(query), [...specifiedRules, ...queryLimitRules(limits)]);
}

describe('the size of introspection', () => {
  it('serves graphql-js’s complete introspection query', () => {
    expect(limitErrors(COMPLETE)).toEqual([]);
  });

  it('serves several small introspections in one operation', () => {
    expect(
      limitErrors(
        '{ a: __type(name: "CreditCard") { name fields { name } } b: __type(name: "Link") { name } __schema { queryType { name } } }',
      ),
    ).toEqual([]);
  });

  it('refuses the schema asked for twice, by aliases, with INTROSPECTION_TOO_LARGE', () => {
    const errors = limitErrors(
      COMPLETE.replace(
        'query IntrospectionQuery {',
        'query IntrospectionQuery { again: __schema { types { ...FullType } } ',
      ),
    );
    expect(errors.map((error) => error.extensions?.code)).toEqual(['INTROSPECTION_TOO_LARGE']);
  });

  it('counts the answer, not the query: a fragment of the schema under a hundred aliases', () => {
    // Some 40 fields of query text per alias, which maxCost counts, but each alias answers the
    // whole type system (thousands of fields): 150 of them answered megabytes from 4 kB.
    const errors = limitErrors(aliasedSchemaDumps(150));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({
      message: expect.stringMatching(
        /^The introspection in the query would answer more than \d+ fields, the size of one complete introspection of the schema\.$/,
      ),
      extensions: { code: 'INTROSPECTION_TOO_LARGE' },
    });
  });

  it('counts fragments that each spread the next twice without walking every copy', () => {
    const levels = 40;
    const fragments = Array.from(
      { length: levels },
      (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`,
    ).join(' ');
    // maxCost out of the way: 2^40 schema dumps are what is left to refuse.
    const errors = limitErrors(
      `{ ...F0 } ${fragments} fragment F${levels} on Query { __schema { types { name } } }`,
      { maxCost: Number.MAX_SAFE_INTEGER },
    );
    expect(errors.map((error) => error.extensions?.code)).toEqual(['INTROSPECTION_TOO_LARGE']);
  });

  it('counts __type(name: $variable) as the largest type it could name', () => {
    const query = `query($name: String!) { ${Array.from(
      { length: 60 },
      (_, i) => `t${i}: __type(name: $name) { fields { name type { name } } }`,
    ).join(' ')} }`;
    expect(limitErrors(query).map((error) => error.extensions?.code)).toEqual([
      'INTROSPECTION_TOO_LARGE',
    ]);
  });
});

describeEachExpress('graphqlEndpoint and the size of introspection', (express) => {
  let server: RunningServer;

  beforeAll(async () => {
    server = await serveGraphql(express, schema);
  });
  afterAll(() => server.close());

  it('refuses aliased schema dumps with a 400 before running them', async () => {
    const res = await fetch(`${server.url}/graphql`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/graphql-response+json',
      },
      body: JSON.stringify({ query: aliasedSchemaDumps(150) }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { data?: unknown; errors: { extensions: unknown }[] };
    expect(body.data).toBeUndefined();
    expect(body.errors[0]?.extensions).toEqual({ code: 'INTROSPECTION_TOO_LARGE' });
  });
});
