import type { GraphQLObjectType } from 'graphql';
import { describe, expectTypeOf, it } from 'vitest';
import * as publicApi from '../src/index.js';
import { type LinkSource, LinkType } from '../src/index.js';

describe('public types', () => {
  it('types the Link type by the link it reads, with no context', () => {
    expectTypeOf(LinkType).toEqualTypeOf<GraphQLObjectType<LinkSource, unknown>>();
  });

  it('has no export typed any', () => {
    expectTypeOf(publicApi.LinkType).not.toBeAny();
    expectTypeOf(publicApi.LinkMethodType).not.toBeAny();
    expectTypeOf(publicApi.ResourceInterface).not.toBeAny();
    expectTypeOf(publicApi.SortOrderType).not.toBeAny();
    expectTypeOf(publicApi.DateTimeScalar).not.toBeAny();
    expectTypeOf(publicApi.JsonObjectScalar).not.toBeAny();
    expectTypeOf(publicApi.graphqlEndpoint).returns.not.toBeAny();
    expectTypeOf(publicApi.graphqlSchema).returns.not.toBeAny();
    expectTypeOf(publicApi.queryLimitRules).returns.not.toBeAny();
  });
});
