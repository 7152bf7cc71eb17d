/**
 * @module The size of an introspection answer, counted on the schema before the query runs.
 * `maxCost` counts fields as the query writes them, times the `page_size` of the lists above
 * them; introspection's lists (`types`, `fields`, `args`, …) have no `page_size`, but the schema
 * fixes their lengths, so one `__schema { types { fields { … } } }` of a few dozen fields of query
 * text answers thousands, and a hundred aliases of it answered megabytes. The answer of an
 * introspection depends on the schema alone, so its exact size is known when the query is
 * validated: this walk counts it, as graphql-js's introspection resolvers would answer, and
 * stops once past its bound, so its work is bounded by the bound, not by the query.
 */
import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLArgument,
  type GraphQLDirective,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLSchema,
  type GraphQLType,
  getIntrospectionQuery,
  isAbstractType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

/** What an introspection field answers with: one of the introspection types' values. */
type Introspected =
  | { readonly of: '__Schema' }
  | { readonly of: '__Type'; readonly type: GraphQLType }
  | { readonly of: '__Field'; readonly field: GraphQLField<unknown, unknown> }
  | { readonly of: '__InputValue'; readonly value: GraphQLArgument | GraphQLInputField }
  | { readonly of: '__Directive'; readonly directive: GraphQLDirective }
  | { readonly of: '__EnumValue' };

/** A walk's budget, shared by every introspection field of one operation. */
export interface IntrospectionCount {
  readonly schema: GraphQLSchema;
  readonly fragments: (name: string) => FragmentDefinitionNode | undefined | null;
  /** Fields the answer may still hold; below 0, the walk has stopped. */
  fieldsLeft: number;
  /** Fragments the walk may still enter (each a step, though it answers no field of its own). */
  fragmentsLeft: number;
  readonly visiting: Set<string>;
}

/** Whether a walk stopped because the answer would pass its bound. */
export function exhausted(count: IntrospectionCount): boolean {
  return count.fieldsLeft < 0 || count.fragmentsLeft < 0;
}

/** `fields(includeDeprecated:)` and its kin: a variable may be true, so it counts as true. */
function includeDeprecated(node: FieldNode): boolean {
  const argument = node.arguments?.find((a) => a.name.value === 'includeDeprecated');
  if (argument === undefined) return false;
  return argument.value.kind !== Kind.BOOLEAN || argument.value.value;
}

function kept<T extends { readonly deprecationReason?: string | null | undefined }>(
  values: readonly T[],
  node: FieldNode,
): readonly T[] {
  return includeDeprecated(node)
    ? values
    : values.filter((value) => value.deprecationReason == null);
}

const typeOf = (type: GraphQLType): Introspected => ({ of: '__Type', type });
const inputValues = (values: readonly (GraphQLArgument | GraphQLInputField)[]) =>
  values.map((value): Introspected => ({ of: '__InputValue', value }));

/** The named types `__type(name:)` can answer: one for a literal name, any for a variable. */
function namedTypes(schema: GraphQLSchema, name: ValueNode | undefined): readonly Introspected[] {
  if (name?.kind === Kind.STRING) {
    const type = schema.getType(name.value);
    return type === undefined || type === null ? [] : [typeOf(type)];
  }
  return Object.values(schema.getTypeMap()).map(typeOf);
}

/** The values a field answers with on `parent`, as graphql-js's introspection resolves them. */
function answerOf(
  parent: Introspected,
  node: FieldNode,
  schema: GraphQLSchema,
): readonly Introspected[] {
  const field = node.name.value;
  switch (parent.of) {
    case '__Schema':
      if (field === 'types') return Object.values(schema.getTypeMap()).map(typeOf);
      if (field === 'directives') {
        return schema.getDirectives().map(
          (directive): Introspected => ({
            of: '__Directive',
            directive,
          }),
        );
      }
      return rootType(schema, field);
    case '__Type':
      return typeField(parent.type, node, schema);
    case '__Field':
      if (field === 'type') return [typeOf(parent.field.type)];
      if (field === 'args') return inputValues(kept(parent.field.args, node));
      return [];
    case '__InputValue':
      return field === 'type' ? [typeOf(parent.value.type)] : [];
    case '__Directive':
      return field === 'args' ? inputValues(kept(parent.directive.args, node)) : [];
    default:
      return [];
  }
}

function rootType(schema: GraphQLSchema, field: string): readonly Introspected[] {
  const type =
    field === 'queryType'
      ? schema.getQueryType()
      : field === 'mutationType'
        ? schema.getMutationType()
        : field === 'subscriptionType'
          ? schema.getSubscriptionType()
          : undefined;
  return type === undefined || type === null ? [] : [typeOf(type)];
}

function typeField(type: GraphQLType, node: FieldNode, schema: GraphQLSchema) {
  switch (node.name.value) {
    case 'ofType':
      return isListType(type) || isNonNullType(type) ? [typeOf(type.ofType)] : [];
    case 'fields':
      return isObjectType(type) || isInterfaceType(type)
        ? kept(Object.values(type.getFields()), node).map(
            (field): Introspected => ({ of: '__Field', field }),
          )
        : [];
    case 'interfaces':
      return isObjectType(type) || isInterfaceType(type) ? type.getInterfaces().map(typeOf) : [];
    case 'possibleTypes':
      return isAbstractType(type) ? schema.getPossibleTypes(type).map(typeOf) : [];
    case 'inputFields':
      return isInputObjectType(type)
        ? inputValues(kept(Object.values(type.getFields()), node))
        : [];
    case 'enumValues':
      return isEnumType(type)
        ? kept(type.getValues(), node).map((): Introspected => ({ of: '__EnumValue' }))
        : [];
    default:
      return [];
  }
}

/** Counts the fields `set` answers on `value`, until the budget runs out. */
function countSet(set: SelectionSetNode, value: Introspected, count: IntrospectionCount): void {
  for (const selection of set.selections) {
    if (exhausted(count)) return;
    if (selection.kind === Kind.FIELD) {
      count.fieldsLeft--;
      if (selection.selectionSet === undefined) continue;
      for (const item of answerOf(value, selection, count.schema)) {
        countSet(selection.selectionSet, item, count);
      }
      continue;
    }
    count.fragmentsLeft--;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      countSet(selection.selectionSet, value, count);
      continue;
    }
    const name = selection.name.value;
    const fragment = count.fragments(name);
    // A cycle, which graphql-js refuses, is cut.
    if (!fragment || count.visiting.has(name)) continue;
    count.visiting.add(name);
    countSet(fragment.selectionSet, value, count);
    count.visiting.delete(name);
  }
}

/**
 * The fields the answer to an introspection root field (`__schema`, `__type`) holds, itself
 * included, counted against `count` (which stops the walk once past its bound: the number is
 * then short, and `exhausted(count)` true). A `__type` whose `name` is a variable counts as if it
 * named every type.
 */
export function introspectionFields(field: FieldNode, count: IntrospectionCount): number {
  const before = count.fieldsLeft;
  count.fieldsLeft--;
  const set = field.selectionSet;
  if (set !== undefined) {
    const answers =
      field.name.value === '__schema'
        ? [{ of: '__Schema' } as const]
        : namedTypes(count.schema, field.arguments?.find((a) => a.name.value === 'name')?.value);
    for (const answer of answers) countSet(set, answer, count);
  }
  return before - count.fieldsLeft;
}

/** The options of graphql-js's `getIntrospectionQuery` that ask for everything. */
export const COMPLETE_INTROSPECTION_OPTIONS = {
  descriptions: true,
  specifiedByUrl: true,
  directiveIsRepeatable: true,
  schemaDescription: true,
  inputValueDeprecation: true,
  oneOf: true,
} as const;

/** graphql-js's complete introspection query: every option a client can ask for. */
const COMPLETE_INTROSPECTION = parse(getIntrospectionQuery(COMPLETE_INTROSPECTION_OPTIONS));

const completeSizes = new WeakMap<GraphQLSchema, number>();

/**
 * The fields of the answer to graphql-js's complete introspection query on `schema` (every
 * option on): what one introspection may hold. Counted once per schema.
 */
export function completeIntrospectionSize(schema: GraphQLSchema): number {
  const known = completeSizes.get(schema);
  if (known !== undefined) return known;
  const fragments = new Map<string, FragmentDefinitionNode>();
  let operation: OperationDefinitionNode | undefined;
  for (const definition of COMPLETE_INTROSPECTION.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      fragments.set(definition.name.value, definition);
    if (definition.kind === Kind.OPERATION_DEFINITION) operation = definition;
  }
  const count: IntrospectionCount = {
    schema,
    fragments: (name) => fragments.get(name),
    fieldsLeft: Number.MAX_SAFE_INTEGER,
    fragmentsLeft: Number.MAX_SAFE_INTEGER,
    visiting: new Set(),
  };
  let size = 0;
  for (const selection of operation?.selectionSet.selections ?? []) {
    if (selection.kind === Kind.FIELD) size += introspectionFields(selection, count);
  }
  completeSizes.set(schema, size);
  return size;
}
