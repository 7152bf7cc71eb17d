/**
 * @module JSON Schema (as `@resourceful/api-description` resolves it) to graphql-js types, each
 * named once: objects become object or input types, string enums become enums, timestamps the
 * `DateTime` scalar, required properties non-null.
 */

import type { DescribedResource, JsonSchema } from '@resourceful/api-description';
import { invalidOption, OPTION_ERROR_CODES, optionError } from '@resourceful/option-checks';
import {
  GraphQLBoolean,
  GraphQLEnumType,
  type GraphQLEnumValueConfigMap,
  type GraphQLFieldConfigMap,
  GraphQLFloat,
  GraphQLID,
  type GraphQLInputFieldConfigMap,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLInterfaceType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  GraphQLString,
} from 'graphql';
import { DateTimeScalar, JsonObjectScalar } from './scalars.js';

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;
const RESERVED_ENUM_VALUES = new Set(['true', 'false', 'null']);
const TIMESTAMP_FIELDS = new Set(['create_time', 'update_time']);

/** The methods a link names, as the OpenAPI document's `Link.method` enum lists them. */
export const LinkMethodType = new GraphQLEnumType({
  name: 'LinkMethod',
  description: 'The HTTP method of a link.',
  values: Object.fromEntries(
    ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'].map((method) => [
      method,
      { value: method },
    ]),
  ),
});

/** A link as the `Link` type reads it (spec: "Link object"): what resolvers put in `links`. */
export interface LinkSource {
  readonly href: string;
  readonly rel: string;
  /** One of `LinkMethodType`'s values, when the link names its method. */
  readonly method?: string;
}

/**
 * The `Link` type. Its fields are read from the link itself, so it needs no context: it serves
 * in a schema of any context type.
 */
export const LinkType: GraphQLObjectType<LinkSource, unknown> = new GraphQLObjectType<
  LinkSource,
  unknown
>({
  name: 'Link',
  description: 'A hypermedia link (spec: "Link object").',
  fields: {
    href: { type: new GraphQLNonNull(GraphQLString) },
    rel: { type: new GraphQLNonNull(GraphQLString) },
    method: { type: LinkMethodType },
  },
});

/** The common envelope every resource has (spec: "Common envelope fields"). */
export const ResourceInterface = new GraphQLInterfaceType({
  name: 'Resource',
  description: 'The fields every resource has: id, create_time, update_time, links.',
  fields: {
    id: { type: new GraphQLNonNull(GraphQLID) },
    create_time: { type: new GraphQLNonNull(DateTimeScalar) },
    update_time: { type: new GraphQLNonNull(DateTimeScalar) },
    links: { type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LinkType))) },
  },
});

export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}

export function snake(name: string): string {
  return name.replace(/(?<=[a-z0-9])([A-Z])/g, '_$1').toLowerCase();
}

function properties(schema: JsonSchema): Record<string, JsonSchema> {
  return (schema.properties as Record<string, JsonSchema> | undefined) ?? {};
}

function required(schema: JsonSchema): Set<string> {
  return new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
}

/** `anyOf: [X, {type: "null"}]` (a nullable X) → X; anything else as it is. */
function withoutNull(schema: JsonSchema): JsonSchema {
  const anyOf = schema.anyOf;
  if (Array.isArray(anyOf)) {
    const rest = (anyOf as JsonSchema[]).filter((s) => s.type !== 'null');
    if (rest.length === 1) return rest[0] as JsonSchema;
  }
  return schema;
}

function isStringEnum(values: unknown): values is string[] {
  return (
    Array.isArray(values) &&
    values.length > 0 &&
    values.every((v) => typeof v === 'string' && v !== '')
  );
}

/**
 * The GraphQL names of a string enum's values, by value. Values that are all GraphQL names
 * (`ok`, `ACTIVE`, `partially_refunded`) are their own names, so a GraphQL answer, argument and
 * variable carries the same text as REST. An enum with any other value (`re-activate`, `3ds`,
 * `true`) is named wholly in the GraphQL convention (the spec's examples: `ALL_CAPS`): each run
 * of characters outside `[_0-9A-Za-z]` becomes `_`, a camelCase boundary becomes `_`, the
 * result upper-cased, a leading digit prefixed with `_` (`suspend` → `SUSPEND`, `re-activate` →
 * `RE_ACTIVATE`), so that the values of one enum keep one style. Two values with one name are
 * refused.
 * @see https://spec.graphql.org/October2021/#sec-Enums
 */
export function graphqlEnumValues(values: readonly string[]): ReadonlyMap<string, string> {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'string')) {
    invalidOption('graphqlEnumValues', 'values', 'an array of strings (the enum values)', values);
  }
  const asIs = values.every((v) => GRAPHQL_NAME.test(v) && !RESERVED_ENUM_VALUES.has(v));
  const names = new Map<string, string>();
  const seen = new Map<string, string>();
  for (const value of values) {
    const name = asIs ? value : conventionalName(value);
    const other = seen.get(name);
    if (other !== undefined && other !== value) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'graphqlSchema',
        `the enum values ${JSON.stringify(other)} and ${JSON.stringify(value)} would both be the GraphQL enum value ${name}; rename one.`,
      );
    }
    seen.set(name, value);
    names.set(value, name);
  }
  return names;
}

function conventionalName(value: string): string {
  const name = value
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^_0-9A-Za-z]+/g, '_')
    .toUpperCase();
  const named = /^[0-9]/.test(name) ? `_${name}` : name;
  if (/^_*$/.test(named) || named.startsWith('__')) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'graphqlSchema',
      `the enum value ${JSON.stringify(value)} has no GraphQL name; describe it with letters or digits.`,
    );
  }
  return named;
}

function assertFieldName(owner: string, name: string): void {
  if (!GRAPHQL_NAME.test(name) || name.startsWith('__')) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'graphqlSchema',
      `${owner} has a field "${name}", which is not a GraphQL name; rename it or describe it as part of a JSONObject.`,
    );
  }
}

/** Builds and remembers named types, so each is declared once however often it is used. */
export class TypeBuilder {
  readonly #named = new Map<string, GraphQLEnumType | GraphQLObjectType | GraphQLInputObjectType>();

  /** Every named type built so far. */
  get types(): (GraphQLEnumType | GraphQLObjectType | GraphQLInputObjectType)[] {
    return [...this.#named.values()];
  }

  #remember<T extends GraphQLEnumType | GraphQLObjectType | GraphQLInputObjectType>(type: T): T {
    if (this.#named.has(type.name)) {
      throw optionError(
        OPTION_ERROR_CODES.conflictingOptions,
        'graphqlSchema',
        `two types would be named "${type.name}".`,
      );
    }
    this.#named.set(type.name, type);
    return type;
  }

  /**
   * The enum of a field, built once: a list's filter argument on the field and the field itself
   * share it. Each value is served under its GraphQL name (`graphqlEnumValues`) and resolves to
   * (and is read from arguments as) the described value.
   */
  enumType(
    name: string,
    values: string[],
    deprecated: Readonly<Record<string, string>>,
  ): GraphQLEnumType {
    const known = this.#named.get(name);
    // The same enum asked for again; another one under the same name is refused by #remember.
    if (
      known instanceof GraphQLEnumType &&
      known.getValues().length === values.length &&
      known.getValues().every((value, i) => value.value === values[i])
    ) {
      return known;
    }
    const config: GraphQLEnumValueConfigMap = {};
    for (const [value, valueName] of graphqlEnumValues(values)) {
      config[valueName] = {
        value,
        deprecationReason: deprecated[value],
        ...(valueName === value ? {} : { description: `\`${value}\` in REST.` }),
      };
    }
    return this.#remember(new GraphQLEnumType({ name, values: config }));
  }

  /**
   * The type of a list's filter argument on `field` of the items (`typeName`, `schema`): the
   * field's own enum when it is one, else `String`. Deprecated values as the field has them.
   */
  filterType(
    typeName: string,
    schema: JsonSchema,
    field: string,
    deprecated: Readonly<Record<string, string>>,
  ): GraphQLInputType {
    const property = withoutNull(properties(schema)[field] ?? {});
    if (!isStringEnum(property.enum)) return GraphQLString;
    return this.enumType(
      `${typeName}${pascal(field)}`,
      property.enum,
      enumDeprecations(deprecated, field),
    );
  }

  /**
   * The resource's own object type, implementing `Resource`; `extra` adds fields the schema does
   * not have (its sub-collections), read when the schema is built.
   */
  resourceType(
    resource: DescribedResource,
    schema: JsonSchema,
    name: string,
    extra: () => GraphQLFieldConfigMap<unknown, unknown> = () => ({}),
  ): GraphQLObjectType {
    const implementsResource = ['id', 'create_time', 'update_time', 'links'].every(
      (field) => field in properties(schema),
    );
    return this.#remember(
      new GraphQLObjectType({
        name,
        description: name === resource.name ? resource.summary : undefined,
        interfaces: implementsResource ? [ResourceInterface] : [],
        fields: () => ({
          ...this.#outputFields(name, schema, resource.deprecated, true),
          ...extra(),
        }),
      }),
    );
  }

  #outputFields(
    typeName: string,
    schema: JsonSchema,
    deprecated: Readonly<Record<string, string>>,
    topLevel: boolean,
  ): GraphQLFieldConfigMap<unknown, unknown> {
    const fields: GraphQLFieldConfigMap<unknown, unknown> = {};
    const requiredNames = required(schema);
    for (const [name, property] of Object.entries(properties(schema))) {
      assertFieldName(typeName, name);
      const common = topLevel ? commonFieldType(name) : undefined;
      let type: GraphQLOutputType;
      if (common) {
        type = common;
      } else {
        const valueDeprecations = topLevel ? enumDeprecations(deprecated, name) : {};
        type = this.output(`${typeName}${pascal(name)}`, property, valueDeprecations);
        if (requiredNames.has(name)) type = new GraphQLNonNull(type);
      }
      fields[name] = {
        type,
        description: typeof property.description === 'string' ? property.description : undefined,
        deprecationReason: topLevel ? deprecated[name] : undefined,
      };
    }
    return fields;
  }

  /** The (nullable) output type of a schema; `name` names it when it must be a named type. */
  output(
    name: string,
    source: JsonSchema,
    deprecated: Readonly<Record<string, string>> = {},
  ): GraphQLOutputType {
    const schema = withoutNull(source);
    if (isStringEnum(schema.enum)) return this.enumType(name, schema.enum, deprecated);
    switch (schema.type) {
      case 'array': {
        const items = (schema.items as JsonSchema | undefined) ?? {};
        return new GraphQLList(new GraphQLNonNull(this.output(name, items, deprecated)));
      }
      case 'object':
        if (Object.keys(properties(schema)).length === 0) return JsonObjectScalar;
        return this.#remember(
          new GraphQLObjectType({
            name,
            fields: () => this.#outputFields(name, schema, {}, false),
          }),
        );
      default:
        return scalarType(schema);
    }
  }

  /** The (nullable) input type of a schema, for mutation arguments. */
  input(name: string, source: JsonSchema): GraphQLInputType {
    const schema = withoutNull(source);
    if (isStringEnum(schema.enum)) return this.enumType(name, schema.enum, {});
    switch (schema.type) {
      case 'array':
        return new GraphQLList(
          new GraphQLNonNull(this.input(name, (schema.items as JsonSchema) ?? {})),
        );
      case 'object': {
        if (Object.keys(properties(schema)).length === 0) return JsonObjectScalar;
        const requiredNames = required(schema);
        return this.#remember(
          new GraphQLInputObjectType({
            name,
            fields: () => {
              const fields: GraphQLInputFieldConfigMap = {};
              for (const [field, property] of Object.entries(properties(schema))) {
                assertFieldName(name, field);
                const type = this.input(`${name}${pascal(field)}`, property);
                fields[field] = {
                  type: requiredNames.has(field) ? new GraphQLNonNull(type) : type,
                };
              }
              return fields;
            },
          }),
        );
      }
      default:
        return scalarType(schema);
    }
  }
}

/**
 * The scalar of a schema that is neither an object nor an array, the same for output and input:
 * `const` values and unions the description cannot say more about are sent as their text.
 */
function scalarType(schema: JsonSchema): GraphQLScalarType {
  switch (schema.type) {
    case 'string':
      return schema.format === 'date-time' ? DateTimeScalar : GraphQLString;
    case 'integer':
      return GraphQLInt;
    case 'number':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    default:
      return GraphQLString;
  }
}

/** The common envelope fields keep the interface's types whatever the schema says of them. */
function commonFieldType(name: string): GraphQLOutputType | undefined {
  if (name === 'id') return new GraphQLNonNull(GraphQLID);
  if (TIMESTAMP_FIELDS.has(name)) return new GraphQLNonNull(DateTimeScalar);
  if (name === 'links') return new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(LinkType)));
  return undefined;
}

/** `{"state.SUSPENDED": "…"}` → `{SUSPENDED: "…"}` for the enum of `state`. */
function enumDeprecations(
  deprecated: Readonly<Record<string, string>>,
  field: string,
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, reason] of Object.entries(deprecated)) {
    if (key.startsWith(`${field}.`)) values[key.slice(field.length + 1)] = reason;
  }
  return values;
}
