/**
 * @module `graphqlSchema`: the GraphQL schema of a described API. Query fields read through the
 * service's own resolvers; creates are mutations only where the service opts in, and go through
 * the description's create schema first.
 */
import {
  type ApiDescription,
  type DescribedAction,
  type DescribedResource,
  type DescribedSubCollection,
  isApiDescription,
  type JsonSchema,
  MAX_FILTER_LENGTH,
  type SubCollectionListDescription,
} from '@resourceful/api-description';
import { ApiError, fromZodError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  functionOption,
  invalidOption,
  missingOption,
  OPTION_ERROR_CODES,
  optionError,
  positiveIntegerOption,
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
} from 'graphql';
import { apiErrorExtensions } from './field-errors.js';
import { withBodyTargets } from './refusal-targets.js';
import { DateTimeScalar } from './scalars.js';
import { LinkType, pascal, ResourceInterface, snake, TypeBuilder } from './type-builder.js';
import type { ListArguments, OperationResolver, ResourceResolvers } from './types.js';

export interface GraphqlSchemaOptions<Context> {
  /** Per resource name, the functions that read (and, where opted in, create and act on) it. */
  readonly resolvers: Readonly<Record<string, ResourceResolvers<Context>>>;
  /** Per complex operation id, the function that runs it. */
  readonly operations?: Readonly<Record<string, OperationResolver<Context>>>;
  /**
   * What is offered as a mutation: resource names (their create), action operation ids
   * (`suspendBillingAgreement`) and resource-oriented or composite operation ids
   * (`createPaymentDecision`). @default [] (mutations are opt-in)
   */
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
  return lastSegmentName(resource.path);
}

/**
 * The field of a sub-collection on its resource's type: `refunds` → `refunds`, `event-types` →
 * `event_types`; `event_types_page` when the representation has an `event_types` field already
 * (a webhook's own list of event types, and the paged, localized sub-collection of them).
 */
export function subCollectionFieldName(
  resource: DescribedResource,
  sub: DescribedSubCollection,
): string {
  const name = sub.name.replace(/-/g, '_');
  const fields = (resource.representation.properties as Record<string, unknown> | undefined) ?? {};
  return Object.hasOwn(fields, name) ? `${name}_page` : name;
}

/** The GraphQL name of an operation's field: its id in snake case, `createPaymentDecision` → `create_payment_decision`. */
export function operationFieldName(operationId: string): string {
  return snake(operationId).replace(/-/g, '_');
}

/**
 * The largest `page_size` a REST list serves: collection-pagination's default `maxPageSize`, the
 * `maximum` the OpenAPI document states for `page_size` and `limit`.
 */
const MAX_PAGE_SIZE = 100;

/** The operation id of an action, as in the OpenAPI document: `suspendBillingAgreement`. */
export function actionOperationId(resource: DescribedResource, action: DescribedAction): string {
  return `${action.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())}${resource.name}`;
}

function lastSegmentName(path: string): string {
  return (path.split('/').pop() as string).replace(/-/g, '_');
}

type ListOptions = Required<SubCollectionListDescription>;

export function graphqlSchema<Context>(
  api: ApiDescription,
  options: GraphqlSchemaOptions<Context>,
): GraphQLSchema {
  if (!isApiDescription(api)) {
    invalidOption(FACTORY, 'api', 'the description describeApi() returns', api);
  }
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, [
    'resolvers',
    'operations',
    'mutations',
    'description',
    'defaultPageSize',
  ]);
  const defaultPageSize = positiveIntegerOption(
    FACTORY,
    'defaultPageSize',
    options.defaultPageSize,
    10,
  );
  if (defaultPageSize > MAX_PAGE_SIZE) {
    invalidOption(
      FACTORY,
      'defaultPageSize',
      `a positive integer of at most ${MAX_PAGE_SIZE} (the largest page_size a list serves)`,
      defaultPageSize,
    );
  }
  if (options.description !== undefined && typeof options.description !== 'string') {
    invalidOption(FACTORY, 'description', 'a string', options.description);
  }
  const byName = new Map(api.resources.map((r) => [r.name, r]));
  const resolverSets = checkedResolvers(options.resolvers, byName);
  const operationResolvers = recordOption<OperationResolver<Context>>(
    'operations',
    options.operations,
    'an object of functions by operation id',
  );
  for (const [id, resolver] of Object.entries(operationResolvers)) {
    if (!api.operations.some((o) => o.operationId === id))
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        FACTORY,
        `operations name "${id}", which is not a described operation.`,
        `operations.${id}`,
      );
    functionOption(FACTORY, `operations.${id}`, resolver);
  }
  const mutations = mutationsOption(options.mutations);
  const builder = new TypeBuilder();
  const queryFields: GraphQLFieldConfigMap<unknown, Context> = {};
  const mutationFields: GraphQLFieldConfigMap<unknown, Context> = {};
  /** Adds a root field; two described things that would share a field name are refused. */
  function addField(
    fields: GraphQLFieldConfigMap<unknown, Context>,
    name: string,
    config: GraphQLFieldConfigMap<unknown, Context>[string],
  ): void {
    if (Object.hasOwn(fields, name)) {
      throw optionError(
        OPTION_ERROR_CODES.conflictingOptions,
        'graphqlSchema',
        `two fields would be named "${name}"; rename a resource, search path or operation.`,
      );
    }
    fields[name] = config;
  }
  const resourceTypes = new Map<string, GraphQLObjectType>();
  const collections = new Map<string, GraphQLObjectType>();
  const itemTypes = new Map<string, GraphQLObjectType>();

  /** One `{Item}Collection` type per item type, however many fields list it. */
  function collectionType(name: string, itemType: () => GraphQLObjectType): GraphQLObjectType {
    const known = collections.get(name);
    if (known) return known;
    const collection = new GraphQLObjectType({
      name: `${name}Collection`,
      description: 'A page of the collection (spec: "Collection envelope").',
      fields: () => ({
        items: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(itemType()))) },
        total_items: { type: GraphQLInt, description: 'With `total_required: true`.' },
        total_pages: { type: GraphQLInt, description: 'With `total_required: true`.' },
        links: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LinkType))) },
      }),
    });
    collections.set(name, collection);
    return collection;
  }

  function subCollectionFields(
    resource: DescribedResource,
    resolvers: ResourceResolvers<Context>,
  ): () => GraphQLFieldConfigMap<unknown, unknown> {
    const fields: GraphQLFieldConfigMap<unknown, Context> = {};
    for (const sub of resource.subCollections) {
      const page = need(
        own(resolvers.subCollections, sub.name),
        resource,
        `subCollections["${sub.name}"]`,
      );
      const items = sub.items;
      const itemType = () => {
        if (items.resource) return resourceTypes.get(items.name) as GraphQLObjectType;
        let type = itemTypes.get(items.name);
        if (!type) {
          type = builder.output(items.name, items.schema) as GraphQLObjectType;
          itemTypes.set(items.name, type);
        }
        return type;
      };
      fields[subCollectionFieldName(resource, sub)] = {
        type: new GraphQLNonNull(collectionType(items.name, itemType)),
        description: `${sub.summary} As GET ${api.pathVersion}${resource.path}/{id}/${sub.name} answers it.`,
        args: listArguments(
          builder,
          `${resource.name}${pascal(sub.name)}`,
          sub.list,
          items.resource
            ? {
                typeName: items.name,
                schema: items.schema,
                deprecated: api.resources.find((r) => r.name === items.name)?.deprecated ?? {},
              }
            : { typeName: items.name, schema: items.schema, deprecated: {} },
          defaultPageSize,
        ),
        resolve: (parent, args: Record<string, unknown>, context) =>
          page(parent, toListArguments(sub.list, args), context),
      };
    }
    // The resolvers are checked now; the item types are built when the schema reads the fields.
    return () => fields as GraphQLFieldConfigMap<unknown, unknown>;
  }

  for (const resource of api.resources) {
    const resolvers = resolverSets.get(resource.name) ?? {};
    const extra = subCollectionFields(resource, resolvers);
    const type = builder.resourceType(resource, resource.representation, resource.name, extra);
    resourceTypes.set(resource.name, type);
    if (resource.read) {
      const read = need(resolvers.read, resource, 'read');
      addField(queryFields, singleFieldName(resource), {
        type,
        description: `One ${snake(resource.name).replace(/_/g, ' ')}, as GET ${api.pathVersion}${resource.path}/{id} answers it; null when there is none. A failed read is null too, with an entry at this field's path in errors.`,
        args: { id: { type: new GraphQLNonNull(GraphQLID) } },
        resolve: async (_source, args: { id: string }, context) =>
          (await read(args.id, context)) ?? null,
      });
    }
    if (resource.list) {
      const list = need(resolvers.list, resource, 'list');
      const itemType =
        resource.list.summary === resource.representation
          ? type
          : builder.resourceType(resource, resource.list.summary, `${resource.name}Summary`, extra);
      addField(queryFields, listFieldName(resource), {
        type: new GraphQLNonNull(collectionType(resource.name, () => itemType)),
        description: `A page of ${resource.path.split('/').pop()}, as GET ${api.pathVersion}${resource.path} answers it.`,
        args: listArguments(
          builder,
          resource.name,
          resource.list,
          {
            typeName: itemType.name,
            schema: resource.list.summary,
            deprecated: resource.deprecated,
          },
          defaultPageSize,
        ),
        resolve: (_source, args: Record<string, unknown>, context) =>
          list(toListArguments(resource.list as ListOptions, args), context),
      });
    }
    if (resource.search) {
      const search = need(resolvers.search, resource, 'search');
      const described = resource.search;
      const criteriaType = builder.input(`${resource.name}SearchCriteria`, described.criteria);
      const criteriaRequired = (described.criteria.required as unknown[] | undefined)?.length;
      addField(queryFields, lastSegmentName(described.path), {
        type: new GraphQLNonNull(collectionType(resource.name, () => type)),
        description: `${described.summary} As POST ${api.pathVersion}${described.path} answers it.`,
        args: {
          criteria: {
            type: criteriaRequired ? new GraphQLNonNull(criteriaType) : criteriaType,
          },
          ...pageArguments(defaultPageSize),
        },
        resolve: async (_source, args: Record<string, unknown>, context) => {
          checkPaging(args, Number.MAX_SAFE_INTEGER);
          const criteria = await validated(
            described.criteriaSource,
            args.criteria ?? {},
            'criteria',
          );
          return withBodyTargets('criteria', described.criteria, () =>
            search(
              criteria,
              {
                page: args.page as number,
                page_size: args.page_size as number,
                total_required: args.total_required as boolean,
              },
              context,
            ),
          );
        },
      });
    }
  }

  for (const operation of api.operations) {
    const resolve = own(operationResolvers, operation.operationId);
    const params = [...operation.path.matchAll(/\{([a-z_][a-z0-9_]*)\}/g)].map(
      (m) => m[1] as string,
    );
    const args: GraphQLFieldConfigArgumentMap = {};
    for (const param of params) args[param] = { type: new GraphQLNonNull(GraphQLID) };
    const inputSchema = operation.kind === 'computed' ? operation.query : operation.body;
    const inputSource =
      operation.kind === 'computed' ? operation.querySource : operation.bodySource;
    if (operation.kind === 'computed' && inputSchema) {
      // A computed resource's query parameters are the field's own arguments.
      const properties = (inputSchema.properties as Record<string, JsonSchema> | undefined) ?? {};
      const requiredNames = new Set((inputSchema.required as string[] | undefined) ?? []);
      for (const [name, property] of Object.entries(properties)) {
        const type = builder.input(`${pascal(operation.operationId)}${pascal(name)}`, property);
        args[name] = { type: requiredNames.has(name) ? new GraphQLNonNull(type) : type };
      }
    } else if (inputSchema) {
      args.input = {
        type: new GraphQLNonNull(
          builder.input(`${pascal(operation.operationId)}Input`, inputSchema),
        ),
      };
    }
    const created =
      operation.creates === undefined ? undefined : resourceTypes.get(operation.creates);
    const type = new GraphQLNonNull(
      created ?? builder.output(operation.responseName, operation.response),
    );
    const isMutation = operation.kind === 'resource-oriented' || operation.kind === 'composite';
    if (isMutation && !mutations.includes(operation.operationId)) continue;
    const run = needOperation(resolve, operation.operationId);
    const field = {
      type,
      description: `${operation.summary} As ${operation.method} ${api.pathVersion}${operation.path} answers it.`,
      args,
      resolve: async (_source: unknown, given: Record<string, unknown>, context: Context) => {
        const input =
          operation.kind === 'computed'
            ? Object.fromEntries(
                Object.entries(given).filter(
                  ([name, value]) =>
                    !params.includes(name) && value !== undefined && value !== null,
                ),
              )
            : given.input;
        const call = {
          params: Object.fromEntries(params.map((name) => [name, String(given[name])])),
          input: await validated(
            inputSource,
            input ?? {},
            operation.kind === 'computed' ? '' : 'input',
          ),
        };
        // A computed resource's query parameters are the field's own arguments already.
        return operation.kind === 'computed'
          ? run(call, context)
          : withBodyTargets('input', operation.body, () => run(call, context));
      },
    };
    // Computed and transient operations change nothing: they are queries (GraphQL spec §6.2.1).
    addField(
      isMutation ? mutationFields : queryFields,
      operationFieldName(operation.operationId),
      field,
    );
  }

  const operationIds = new Set(api.operations.map((o) => o.operationId));
  for (const name of mutations) {
    if (operationIds.has(name)) {
      const operation = api.operations.find((o) => o.operationId === name);
      if (operation?.kind !== 'resource-oriented' && operation?.kind !== 'composite') {
        throw optionError(
          OPTION_ERROR_CODES.invalidOption,
          'graphqlSchema',
          `mutations name "${name}", a ${operation?.kind} operation: it changes nothing, so it is a query field already.`,
          'mutations',
        );
      }
      continue;
    }
    const actionOf = api.resources
      .flatMap((resource) => resource.actions.map((action) => ({ resource, action })))
      .find(({ resource, action }) => actionOperationId(resource, action) === name);
    if (actionOf) {
      const { resource, action } = actionOf;
      const perform = need(
        own(resolverSets.get(resource.name)?.actions, action.name),
        resource,
        `actions["${action.name}"]`,
      );
      const args: GraphQLFieldConfigArgumentMap = { id: { type: new GraphQLNonNull(GraphQLID) } };
      if (action.body) {
        args.input = { type: builder.input(`${pascal(name)}Input`, action.body) };
      }
      addField(mutationFields, operationFieldName(name), {
        type: new GraphQLNonNull(resourceTypes.get(resource.name) as GraphQLObjectType),
        description: `${action.summary} As POST ${api.pathVersion}${resource.path}/{id}/${action.name}; answers the resource, changed or not.`,
        args,
        resolve: async (_source, given: { id: string; input?: unknown }, context) => {
          const input = await validated(action.bodySource, given.input ?? {}, 'input');
          return withBodyTargets(
            'input',
            action.body,
            () => perform(given.id, input, context),
            'id',
          );
        },
      });
      continue;
    }
    const resource = byName.get(name);
    if (!resource?.create) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'graphqlSchema',
        `mutations name "${name}", which is neither a resource with a described create, an action nor a complex operation.`,
        'mutations',
      );
    }
    const create = need(resolverSets.get(name)?.create, resource, 'create');
    const inputType = new GraphQLNonNull(builder.input(`${name}CreateInput`, resource.create));
    const source = resource.createSource;
    addField(mutationFields, `create_${snake(name)}`, {
      type: new GraphQLNonNull(resourceTypes.get(name) as GraphQLObjectType),
      description: `Creates a ${snake(name).replace(/_/g, ' ')}, with the validation of POST ${api.pathVersion}${resource.path}.`,
      args: { input: { type: inputType } },
      resolve: async (_source, args: { input: unknown }, context) => {
        const input = await validated(source, args.input, 'input');
        return withBodyTargets('input', resource.create, () => create(input, context));
      },
    });
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

const FACTORY = 'graphqlSchema';

/** What a resource's resolvers may hold. */
const RESOLVER_KEYS = ['read', 'list', 'create', 'subCollections', 'search', 'actions'] as const;

/** `record[key]` when `record` has it as its own: an operation id or action named `constructor` finds nothing. */
function own<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** An optional option that is a plain object of entries by name; `{}` when absent. */
function recordOption<T>(
  option: string,
  value: unknown,
  expected: string,
): Readonly<Record<string, T>> {
  if (value === undefined) return {};
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalidOption(FACTORY, option, expected, value);
  }
  return value as Readonly<Record<string, T>>;
}

/**
 * The `resolvers` option, by resource name: required, each entry a plain object of the known
 * resolver kinds (an unknown one is a typo: "did you mean"), each kind given a function, or for
 * `subCollections` and `actions` an object of them. Whether a described operation has its
 * resolver is checked where the schema needs it.
 */
function checkedResolvers<Context>(
  value: unknown,
  byName: ReadonlyMap<string, DescribedResource>,
): ReadonlyMap<string, ResourceResolvers<Context>> {
  const expected = 'an object of resolvers by resource name ({ CreditCard: { read, list } })';
  if (value === undefined) {
    missingOption(FACTORY, 'resolvers', expected);
  }
  const sets = new Map<string, ResourceResolvers<Context>>();
  for (const [name, set] of Object.entries(recordOption<unknown>('resolvers', value, expected))) {
    const option = `resolvers.${name}`;
    if (!byName.has(name))
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        FACTORY,
        `resolvers name "${name}", which is not a described resource.`,
        option,
      );
    const resolvers = recordOption<unknown>(
      option,
      set,
      `an object of ${RESOLVER_KEYS.join(', ')}`,
    );
    assertKnownOptions(FACTORY, resolvers, RESOLVER_KEYS, option);
    for (const kind of ['read', 'list', 'create', 'search'] as const) {
      functionOption(FACTORY, `${option}.${kind}`, resolvers[kind] as never);
    }
    for (const kind of ['subCollections', 'actions'] as const) {
      const functions = recordOption<unknown>(
        `${option}.${kind}`,
        resolvers[kind],
        'an object of functions by name',
      );
      for (const [key, resolver] of Object.entries(functions)) {
        functionOption(FACTORY, `${option}.${kind}.${key}`, resolver as never);
      }
    }
    sets.set(name, resolvers as ResourceResolvers<Context>);
  }
  return sets;
}

/** The `mutations` option: an array of names; `[]` (mutations are opt-in) when absent. */
function mutationsOption(value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) {
    invalidOption(
      FACTORY,
      'mutations',
      'an array of resource names, action or operation ids',
      value,
    );
  }
  return value;
}

function needOperation<F>(resolver: F | undefined, operationId: string): F {
  if (typeof resolver !== 'function') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'graphqlSchema',
      `operation "${operationId}" is described, so operations.${operationId} must be a function.`,
      `operations.${operationId}`,
    );
  }
  return resolver;
}

function need<F>(resolver: F | undefined, resource: DescribedResource, what: string): F {
  if (typeof resolver !== 'function') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'graphqlSchema',
      `resource "${resource.name}" is described with ${what}, so resolvers.${resource.name}.${what} must be a function.`,
      `resolvers.${resource.name}.${what}`,
    );
  }
  return resolver;
}

function pageArguments(defaultPageSize: number): GraphQLFieldConfigArgumentMap {
  return {
    page: { type: new GraphQLNonNull(GraphQLInt), defaultValue: 1 },
    page_size: { type: new GraphQLNonNull(GraphQLInt), defaultValue: defaultPageSize },
    total_required: { type: new GraphQLNonNull(GraphQLBoolean), defaultValue: false },
  };
}

/** The items a list field pages: their type's name and schema, and their deprecations. */
interface ListedItems {
  readonly typeName: string;
  readonly schema: JsonSchema;
  readonly deprecated: Readonly<Record<string, string>>;
}

function listArguments(
  builder: TypeBuilder,
  typeName: string,
  list: ListOptions,
  items: ListedItems,
  defaultPageSize: number,
): GraphQLFieldConfigArgumentMap {
  const args = pageArguments(defaultPageSize);
  if (list.sortable.length > 0) {
    const values = Object.fromEntries(list.sortable.map((field) => [field, { value: field }]));
    args.sort_by = { type: new GraphQLEnumType({ name: `${typeName}SortField`, values }) };
    args.sort_order = { type: SortOrderType };
  }
  // A filter on an enum field takes the field's enum: a value outside it is refused by GraphQL's
  // validation, as the REST list refuses it with a 400.
  for (const field of list.filterable) {
    args[field] = {
      type: builder.filterType(items.typeName, items.schema, field, items.deprecated),
    };
  }
  for (const field of list.timeSelectable) {
    args[`${field}_after`] = { type: DateTimeScalar };
    args[`${field}_before`] = { type: DateTimeScalar };
  }
  return args;
}

function pagingError(target: 'page' | 'page_size', message: string): ApiError {
  return ApiError.invalidRequest(message, { target, innererror: { code: 'INVALID_PARAMETER' } });
}

/**
 * Holds `page` and `page_size` to the bounds the REST list has (and the OpenAPI document states):
 * `page_size` from 1 to 100, `page` from 1, its first item within `maxOffset`. GraphQL's `Int`
 * takes any 32-bit value, and a resolver asked for `page_size: 2147483647` reads the whole store
 * (the query cost counts at most `maxPageSize` per list). Throws the 400 the REST list answers.
 */
function checkPaging(args: Record<string, unknown>, maxOffset: number): void {
  const page = args.page as number;
  const size = args.page_size as number;
  if (size < 1 || size > MAX_PAGE_SIZE) {
    throw pagingError('page_size', `The argument "page_size" must be from 1 to ${MAX_PAGE_SIZE}.`);
  }
  if (page < 1) throw pagingError('page', 'The argument "page" must be 1 or more.');
  if ((page - 1) * size > maxOffset) {
    throw pagingError(
      'page',
      `This list serves its first ${maxOffset} items by position: (page − 1) × page_size must not pass it.`,
    );
  }
}

/**
 * Holds a filter to the bounds the REST list has (and the OpenAPI document states for a free-text
 * filter): 1 to `MAX_FILTER_LENGTH` characters, as collection-pagination reads a query parameter,
 * of well-formed Unicode, as a URL query carries. GraphQL's `String` takes any length, empty
 * included. Throws the 400 the REST list answers, with its `innererror.code`. An enum filter's
 * values are GraphQL's to check.
 */
function checkFilter(field: string, value: string): void {
  if (value === '') {
    throw ApiError.invalidRequest(`The argument "${field}" must not be empty.`, {
      target: field,
      innererror: { code: 'EMPTY_PARAMETER' },
    });
  }
  if (value.length > MAX_FILTER_LENGTH) {
    throw ApiError.invalidRequest(
      `The argument "${field}" is longer than ${MAX_FILTER_LENGTH} characters.`,
      { target: field, innererror: { code: 'PARAMETER_TOO_LONG' } },
    );
  }
  // GraphQL's parser refuses a lone surrogate in a string literal; a JSON variable can carry one.
  if (LONE_SURROGATE.test(value)) {
    throw ApiError.invalidRequest(
      `The argument "${field}" must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF outside a pair) is no character.`,
      { target: field, innererror: { code: 'INVALID_PARAMETER' } },
    );
  }
}

/** With the `u` flag a surrogate pair reads as one code point, so `\p{Cs}` finds lone halves. */
const LONE_SURROGATE = /\p{Cs}/u;

function toListArguments(list: ListOptions, args: Record<string, unknown>): ListArguments {
  checkPaging(args, list.maxOffset);
  const filters: Record<string, string> = {};
  for (const field of list.filterable) {
    const value = args[field];
    if (typeof value !== 'string') continue;
    checkFilter(field, value);
    filters[field] = value;
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
 * GraphQL error with the details the REST routes give the same issues (error-envelope's
 * `fromZodError`: `VALIDATION_ERROR` each, at most 100, `target` the field path with indexes in
 * brackets), under the argument's name (`input.event_types[0].name`), in the extensions a
 * resolver's refusal has: `code`, `target` (the field, when every problem is on one),
 * `details` and `http: { status: 400 }`.
 */
async function validated(source: unknown, input: unknown, root: string): Promise<unknown> {
  if (!isStandardSchema(source)) return input;
  const result = await source['~standard'].validate(input);
  if (result.issues === undefined) return result.value;
  // fromZodError reads each issue's message and path (its `code` is not used).
  const issues = result.issues.map((issue) => ({
    code: 'invalid',
    message: issue.message,
    path: [
      ...(root === '' ? [] : [root]),
      ...(issue.path ?? []).map((p) => (typeof p === 'object' ? p.key : p)),
    ],
  }));
  const problems = issues.length === 1 ? '1 problem' : `${issues.length} problems`;
  const error = fromZodError({ issues }, `The input failed validation (${problems}).`);
  // The shape a resolver's refusal gets (`target` when one field is at fault, `http.status`),
  // built here too so that a schema run without the endpoint answers it the same way.
  throw new GraphQLError(error.message, { extensions: apiErrorExtensions(error) });
}
