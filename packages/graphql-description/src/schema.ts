/**
 * @module `graphqlSchema`: the GraphQL schema of a described API. Query fields read through the
 * service's own resolvers; creates are mutations only where the service opts in, and go through
 * the description's create schema first.
 */
import type { ApiDescription, DescribedResource } from '@resourceful/api-description';
import {
  assertKnownOptions,
  assertOptionsObject,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLError,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  GraphQLID,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { DateTimeScalar } from './scalars.js';
import { LinkType, ResourceInterface, snake, TypeBuilder } from './type-builder.js';
import type { ListArguments, ResourceResolvers } from './types.js';

export interface GraphqlSchemaOptions<Context> {
  /** Per resource name, the functions that read (and, where opted in, create) it. */
  readonly resolvers: Readonly<Record<string, ResourceResolvers<Context>>>;
  /** Resources whose create is offered as a mutation. @default [] (mutations are opt-in) */
  readonly mutations?: readonly string[];
  /** The schema's description; printed SDL binds the root types in a `schema { … }` block. */
  readonly description?: string;
  /** The page size when a list query gives none. @default 10 */
  readonly defaultPageSize?: number;
}

export const SortOrderType = new GraphQLEnumType({
  name: 'SortOrder',
  values: { asc: { value: 'asc' }, desc: { value: 'desc' } },
});

/** The GraphQL name of the field reading one resource: `CreditCard` → `credit_card`. */
export function singleFieldName(resource: DescribedResource): string {
  return snake(resource.name);
}

/** The GraphQL name of the list field: the collection's path segment, `credit-cards` → `credit_cards`. */
export function listFieldName(resource: DescribedResource): string {
  return (resource.path.split('/').pop() as string).replace(/-/g, '_');
}

export function graphqlSchema<Context>(
  api: ApiDescription,
  options: GraphqlSchemaOptions<Context>,
): GraphQLSchema {
  assertOptionsObject('graphqlSchema', options);
  assertKnownOptions('graphqlSchema', options, [
    'resolvers',
    'mutations',
    'description',
    'defaultPageSize',
  ]);
  const defaultPageSize = options.defaultPageSize ?? 10;
  if (!Number.isInteger(defaultPageSize) || defaultPageSize < 1) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'graphqlSchema',
      'defaultPageSize must be a positive integer.',
    );
  }
  const byName = new Map(api.resources.map((r) => [r.name, r]));
  for (const name of Object.keys(options.resolvers)) {
    if (!byName.has(name))
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'graphqlSchema',
        `resolvers name "${name}", which is not a described resource.`,
      );
  }
  const builder = new TypeBuilder();
  const queryFields: GraphQLFieldConfigMap<unknown, Context> = {};
  const mutationFields: GraphQLFieldConfigMap<unknown, Context> = {};
  const resourceTypes = new Map<string, GraphQLObjectType>();

  for (const resource of api.resources) {
    const resolvers = options.resolvers[resource.name] ?? {};
    const type = builder.resourceType(resource, resource.representation, resource.name);
    resourceTypes.set(resource.name, type);
    if (resource.read) {
      const read = need(resolvers.read, resource, 'read');
      queryFields[singleFieldName(resource)] = {
        type,
        description: `One ${snake(resource.name).replace(/_/g, ' ')}, as GET ${api.pathVersion}${resource.path}/{id} answers it; null when there is none.`,
        args: { id: { type: new GraphQLNonNull(GraphQLID) } },
        resolve: async (_source, args: { id: string }, context) =>
          (await read(args.id, context)) ?? null,
      };
    }
    if (resource.list) {
      const list = need(resolvers.list, resource, 'list');
      const itemType =
        resource.list.summary === resource.representation
          ? type
          : builder.resourceType(resource, resource.list.summary, `${resource.name}Summary`);
      const collection = new GraphQLObjectType({
        name: `${resource.name}Collection`,
        description: 'A page of the collection (spec: "Collection envelope").',
        fields: {
          items: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(itemType))) },
          total_items: { type: GraphQLInt, description: 'With `total_required: true`.' },
          total_pages: { type: GraphQLInt, description: 'With `total_required: true`.' },
          links: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LinkType))) },
        },
      });
      queryFields[listFieldName(resource)] = {
        type: new GraphQLNonNull(collection),
        description: `A page of ${resource.path.split('/').pop()}, as GET ${api.pathVersion}${resource.path} answers it.`,
        args: listArguments(resource, defaultPageSize),
        resolve: (_source, args: Record<string, unknown>, context) =>
          list(toListArguments(resource, args), context),
      };
    }
  }

  for (const name of options.mutations ?? []) {
    const resource = byName.get(name);
    if (!resource?.create) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'graphqlSchema',
        `mutations name "${name}", which has no described create.`,
      );
    }
    const create = need(options.resolvers[name]?.create, resource, 'create');
    const inputType = new GraphQLNonNull(builder.input(`${name}CreateInput`, resource.create));
    const source = resource.createSource;
    mutationFields[`create_${snake(name)}`] = {
      type: new GraphQLNonNull(resourceTypes.get(name) as GraphQLObjectType),
      description: `Creates a ${snake(name).replace(/_/g, ' ')}, with the validation of POST ${api.pathVersion}${resource.path}.`,
      args: { input: { type: inputType } },
      resolve: async (_source, args: { input: unknown }, context) =>
        create(await validated(source, args.input), context),
    };
  }

  return new GraphQLSchema({
    description: options.description ?? api.summary ?? api.title,
    query: new GraphQLObjectType({ name: 'Query', fields: queryFields }),
    mutation:
      Object.keys(mutationFields).length > 0
        ? new GraphQLObjectType({ name: 'Mutation', fields: mutationFields })
        : undefined,
    types: [ResourceInterface, ...resourceTypes.values(), ...builder.types],
  });
}

function need<F>(resolver: F | undefined, resource: DescribedResource, what: string): F {
  if (typeof resolver !== 'function') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'graphqlSchema',
      `resource "${resource.name}" is described with ${what}, so resolvers.${resource.name}.${what} must be a function.`,
    );
  }
  return resolver;
}

function listArguments(
  resource: DescribedResource,
  defaultPageSize: number,
): GraphQLFieldConfigArgumentMap {
  const list = resource.list as NonNullable<DescribedResource['list']>;
  const args: GraphQLFieldConfigArgumentMap = {
    page: { type: new GraphQLNonNull(GraphQLInt), defaultValue: 1 },
    page_size: { type: new GraphQLNonNull(GraphQLInt), defaultValue: defaultPageSize },
    total_required: { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: false },
  };
  if (list.sortable.length > 0) {
    const values = Object.fromEntries(list.sortable.map((field) => [field, { value: field }]));
    args.sort_by = { type: new GraphQLEnumType({ name: `${resource.name}SortField`, values }) };
    args.sort_order = { type: SortOrderType };
  }
  for (const field of list.filterable) args[field] = { type: GraphQLString };
  for (const field of list.timeSelectable) {
    args[`${field}_after`] = { type: DateTimeScalar };
    args[`${field}_before`] = { type: DateTimeScalar };
  }
  return args;
}

function toListArguments(
  resource: DescribedResource,
  args: Record<string, unknown>,
): ListArguments {
  const list = resource.list as NonNullable<DescribedResource['list']>;
  const filters: Record<string, string> = {};
  for (const field of list.filterable) {
    if (typeof args[field] === 'string') filters[field] = args[field] as string;
  }
  const times: Record<string, string> = {};
  for (const field of list.timeSelectable) {
    for (const key of [`${field}_after`, `${field}_before`]) {
      if (typeof args[key] === 'string') times[key] = args[key] as string;
    }
  }
  return {
    page: args.page as number,
    page_size: args.page_size as number,
    total_required: args.total_required as boolean,
    ...(args.sort_by === undefined ? {} : { sort_by: args.sort_by as string }),
    ...(args.sort_order === undefined ? {} : { sort_order: args.sort_order as 'asc' | 'desc' }),
    filters,
    times,
  };
}

function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { '~standard'?: { validate?: unknown } })['~standard']?.validate === 'function'
  );
}

/**
 * The input through the create schema when it can validate (a Standard Schema); its issues as a
 * GraphQL error with the envelope's `VALIDATION_ERROR` code and one detail per issue.
 */
async function validated(source: unknown, input: unknown): Promise<unknown> {
  if (!isStandardSchema(source)) return input;
  const result = await source['~standard'].validate(input);
  if (result.issues === undefined) return result.value;
  const details = result.issues.map((issue) => ({
    code: 'INVALID_FIELD',
    message: issue.message,
    target: [
      'input',
      ...(issue.path ?? []).map((p) => String(typeof p === 'object' ? p.key : p)),
    ].join('.'),
  }));
  throw new GraphQLError(
    `The input failed validation (${details.length} ${details.length === 1 ? 'problem' : 'problems'}).`,
    {
      extensions: { code: 'VALIDATION_ERROR', details },
    },
  );
}
