/**
 * @module Turning a schema source into the JSON Schema the generators read, once, when the
 * description is built.
 */
import { OPTION_ERROR_CODES, optionError } from '@resourceful/option-checks';
import type { StandardJSONSchemaV1 } from '@standard-schema/spec';
import type { JsonSchema, SchemaSource } from './types.js';

/** Which side of a transforming schema to describe: what clients send, or what they receive. */
export type SchemaSide = 'input' | 'output';

export function isStandardJsonSchema(value: unknown): value is StandardJSONSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: { jsonSchema?: { input?: unknown; output?: unknown } } })[
    '~standard'
  ];
  return (
    typeof props?.jsonSchema?.input === 'function' && typeof props.jsonSchema.output === 'function'
  );
}

/**
 * The JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) of a source, without its `$schema`
 * keyword (a schema embedded in an OpenAPI document takes the document's dialect).
 * @param where the schema, as the error message names it (`resource "Card" representation`)
 * @param option its path in the description, the error's `option` (`resources[0].representation`)
 */
export function toJsonSchema(
  source: SchemaSource,
  side: SchemaSide,
  where: string,
  option?: string,
): JsonSchema {
  let schema: Record<string, unknown>;
  if (isStandardJsonSchema(source)) {
    // A copy: the library may hand out an object it keeps, and describeApi freezes what it returns.
    schema = structuredClone(source['~standard'].jsonSchema[side]({ target: 'draft-2020-12' }));
  } else if (typeof source === 'object' && source !== null && !Array.isArray(source)) {
    schema = structuredClone(source as Record<string, unknown>);
  } else {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} must be a Standard JSON Schema (zod 4, …) or a JSON Schema object.`,
      option,
    );
  }
  const { $schema: _dialect, ...rest } = schema;
  return rest;
}

/** The property names of an object schema (empty for any other schema). */
export function propertyNames(schema: JsonSchema): string[] {
  const properties = schema.properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** The required property names of an object schema. */
export function requiredNames(schema: JsonSchema): string[] {
  return Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
}
