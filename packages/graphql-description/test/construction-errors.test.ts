import { createRequire } from 'node:module';
import { describeApi } from '@resourceful/api-description';
import { GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { graphqlEndpoint, graphqlSchema, queryLimitRules } from '../src/index.js';
import { api, arrayResolvers, sampleCards } from './fixtures.js';

const resolvers = arrayResolvers(sampleCards(1)).resolvers;
const schema = graphqlSchema(api, { resolvers });

interface ConstructionError {
  readonly code?: string;
  readonly factory?: string;
  readonly option?: string;
  readonly message: string;
}

/** The construction error `call` throws, or a failure when it throws none. */
function errorOf(call: () => unknown): ConstructionError {
  try {
    call();
  } catch (error) {
    return error as ConstructionError;
  }
  throw new Error('expected a construction error');
}

const notObjects: [string, unknown][] = [
  ['undefined', undefined],
  ['null', null],
  ['a number', 5],
  ['a string', 'x'],
  ['an array', []],
];

describe('graphqlEndpoint refuses wrong options when it is called', () => {
  it.each(notObjects)('options given as %s', (_, options) => {
    expect(errorOf(() => graphqlEndpoint(options as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
      factory: 'graphqlEndpoint',
    });
  });

  it.each([
    ['{}', {}],
    ['an object inheriting nothing useful', { __proto__: { help: false } }],
  ])('without a schema: %s', (_, options) => {
    expect(errorOf(() => graphqlEndpoint(options as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_MISSING_OPTION',
      option: 'schema',
      message: expect.stringMatching(/^graphqlEndpoint: "schema" is required/),
    });
  });

  it.each([
    ['a string', 'type Query { a: Int }'],
    ['an object', {}],
    ['the description instead of its schema', api],
  ])('with a schema that is %s', (_, value) => {
    expect(errorOf(() => graphqlEndpoint({ schema: value as never }))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'schema',
    });
  });

  it('with a GraphQLSchema made by another copy of the graphql module', () => {
    // The CommonJS build of graphql, loaded by Node's require: another copy than the one the
    // sources import (graphql's ESM build, or graphql 17 in the graphql 17 project).
    const otherGraphql = createRequire(import.meta.url)('graphql') as typeof import('graphql');
    expect(otherGraphql.GraphQLSchema).not.toBe(GraphQLSchema);
    const other = otherGraphql.buildSchema('type Query { a: Int }');
    const error = errorOf(() => graphqlEndpoint({ schema: other as never }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      factory: 'graphqlEndpoint',
      option: 'schema',
      message: expect.stringMatching(
        /^graphqlEndpoint: "schema" is a GraphQLSchema made by another copy of the graphql module/,
      ),
    });
    // Not graphql-js's message, which dumps the whole schema.
    expect(error.message).not.toMatch(/_typeMap/);
  });

  it.each([
    [{ context: {} }, 'context'],
    [{ context: 'req' }, 'context'],
    [{ limits: null }, 'limits'],
    [{ limits: 'x' }, 'limits'],
    [{ limits: [] }, 'limits'],
    [{ limits: { maxDepth: 0 } }, 'limits.maxDepth'],
    [{ limits: { maxCost: '5' } }, 'limits.maxCost'],
    [{ limits: { maxPageSize: 1.5 } }, 'limits.maxPageSize'],
    [{ maxTokens: 0 }, 'maxTokens'],
    [{ maxTokens: '5000' }, 'maxTokens'],
    [{ maxNesting: null }, 'maxNesting'],
    [{ help: 5 }, 'help'],
    [{ maxBodyBytes: 0 }, 'maxBodyBytes'],
    [{ maxBodyBytes: '100kb' }, 'maxBodyBytes'],
  ])('%j', (extra, option) => {
    expect(errorOf(() => graphqlEndpoint({ schema, ...extra } as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      factory: 'graphqlEndpoint',
      option,
    });
  });

  it('refuses an unknown limit with the nearest known one', () => {
    expect(
      errorOf(() => graphqlEndpoint({ schema, limits: { maxDepht: 3 } } as never)),
    ).toMatchObject({
      code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      option: 'limits.maxDepht',
      message: expect.stringMatching(/Did you mean "limits.maxDepth"/),
    });
  });

  it('takes options left undefined', () => {
    const options = {
      schema,
      context: undefined,
      limits: undefined,
      maxTokens: undefined,
      maxNesting: undefined,
      help: undefined,
      maxBodyBytes: undefined,
    };
    expect(graphqlEndpoint(options).name).toBe('graphqlEndpointMiddleware');
  });
});

describe('queryLimitRules refuses limits that are not an object of positive integers', () => {
  it.each([
    ['null', null],
    ['a string', 'x'],
    ['an array', []],
  ])('limits given as %s', (_, limits) => {
    expect(errorOf(() => queryLimitRules(limits as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
      factory: 'queryLimitRules',
    });
  });

  it('names the limit at fault', () => {
    expect(errorOf(() => queryLimitRules({ maxCost: -1 }))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'maxCost',
    });
  });
});

describe('graphqlSchema refuses a description describeApi did not return', () => {
  it.each([
    ...notObjects,
    ['{}', {}],
    ['a description missing its resources', { ...api, resources: undefined }],
    [
      'a resource with a wrong-typed field',
      { ...api, resources: [{ ...api.resources[0], subCollections: 'refunds' }] },
    ],
    ['an object inheriting from a description', Object.create(api)],
  ])('%s', (_, value) => {
    expect(errorOf(() => graphqlSchema(value as never, { resolvers }))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      factory: 'graphqlSchema',
      option: 'api',
      message: expect.stringMatching(/"api" must be the description describeApi\(\) returns/),
    });
  });
});

describe('graphqlSchema refuses wrong options when it is called', () => {
  it.each(notObjects)('options given as %s', (_, options) => {
    expect(errorOf(() => graphqlSchema(api, options as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
      factory: 'graphqlSchema',
    });
  });

  it('requires resolvers', () => {
    expect(errorOf(() => graphqlSchema(api, {} as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_MISSING_OPTION',
      option: 'resolvers',
    });
  });

  it.each([
    [{ resolvers: null }, 'resolvers'],
    [{ resolvers: 5 }, 'resolvers'],
    [{ resolvers: [] }, 'resolvers'],
    [{ resolvers: { CreditCard: 'read' } }, 'resolvers.CreditCard'],
    [
      { resolvers: { CreditCard: { ...resolvers.CreditCard, read: 'x' } } },
      'resolvers.CreditCard.read',
    ],
    [
      { resolvers: { CreditCard: { ...resolvers.CreditCard, actions: [] } } },
      'resolvers.CreditCard.actions',
    ],
    [
      { resolvers: { CreditCard: { ...resolvers.CreditCard, actions: { suspend: 1 } } } },
      'resolvers.CreditCard.actions.suspend',
    ],
    [{ resolvers: { Card: {} } }, 'resolvers.Card'],
    [{ resolvers, operations: 'x' }, 'operations'],
    [{ resolvers, operations: { nope: () => 1 } }, 'operations.nope'],
    [{ resolvers, mutations: 'CreditCard' }, 'mutations'],
    [{ resolvers, mutations: {} }, 'mutations'],
    [{ resolvers, mutations: [5] }, 'mutations'],
    [{ resolvers, mutations: ['Card'] }, 'mutations'],
    [{ resolvers, description: 5 }, 'description'],
    [{ resolvers, defaultPageSize: 0 }, 'defaultPageSize'],
    [{ resolvers, defaultPageSize: '10' }, 'defaultPageSize'],
    // Past the largest page a list serves: every list query without page_size would be refused.
    [{ resolvers, defaultPageSize: 101 }, 'defaultPageSize'],
  ])('%j', (options, option) => {
    expect(errorOf(() => graphqlSchema(api, options as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      factory: 'graphqlSchema',
      option,
    });
  });

  it('refuses an unknown resolver kind with the nearest known one', () => {
    const options = { resolvers: { CreditCard: { ...resolvers.CreditCard, reed: () => 1 } } };
    expect(errorOf(() => graphqlSchema(api, options as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      option: 'resolvers.CreditCard.reed',
      message: expect.stringMatching(/Did you mean "resolvers.CreditCard.read"/),
    });
  });

  it('names the resolver a described read lacks', () => {
    const options = { resolvers: { CreditCard: { list: resolvers.CreditCard.list } } };
    expect(errorOf(() => graphqlSchema(api, options))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'resolvers.CreditCard.read',
    });
  });

  it('finds no resolver of an operation named like an Object.prototype member', () => {
    const withConstructor = describeApi({
      title: 'T',
      version: '1',
      pathVersion: 'v1',
      resources: [],
      operations: [
        {
          operationId: 'constructor',
          method: 'GET',
          path: '/built',
          summary: 'A computed resource.',
          kind: 'computed',
          response: z.object({ ok: z.boolean() }),
        },
      ],
    });
    expect(errorOf(() => graphqlSchema(withConstructor, { resolvers: {} }))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'operations.constructor',
    });
  });
});
