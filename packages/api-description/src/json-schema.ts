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
  return withLocalReferencesInlined(rest, where, option);
}

/** `#/$defs/{name}` (draft 2020-12) and `#/definitions/{name}` (older drafts, hand-written). */
const DEFINITION_REF = /^#\/(\$defs|definitions)\/([^/]+)$/;

/**
 * The schema with every reference to its own root (`#`) or to its `$defs` (`#/$defs/Address`,
 * as zod writes a subschema named with `.meta({ id })` or a `z.lazy` one) replaced by what it
 * refers to, and the `$defs` dropped. Embedded in an OpenAPI document under
 * `components/schemas`, such a reference would resolve against the document's root, where there
 * is no such thing; GraphQL could not read it either. A recursive schema cannot be inlined: it is
 * refused, naming the reference. Other references (`#/components/schemas/Link`, written by hand
 * for the document) are left as they are.
 */
function withLocalReferencesInlined(
  root: Record<string, unknown>,
  where: string,
  option: string | undefined,
): JsonSchema {
  const definitions: Record<string, unknown> = {};
  for (const key of ['$defs', 'definitions'] as const) {
    const defs = root[key];
    if (typeof defs === 'object' && defs !== null) definitions[key] = defs;
  }
  if (!JSON.stringify(root).includes('"$ref":"#')) return root;
  const { $defs: _defs, definitions: _definitions, ...body } = root;
  const refuse = (message: string): never => {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'describeApi',
      `${where} ${message}`,
      option,
    );
  };
  const inline = (value: unknown, open: readonly string[]): unknown => {
    if (Array.isArray(value)) return value.map((item) => inline(item, open));
    if (typeof value !== 'object' || value === null) return value;
    const { $ref: ref, ...siblings } = value as Record<string, unknown>;
    const rest = Object.fromEntries(
      Object.entries(siblings).map(([key, item]) => [key, inline(item, open)]),
    );
    if (typeof ref !== 'string') return ref === undefined ? rest : { $ref: ref, ...rest };
    let target: unknown;
    if (ref === '#') {
      target = body;
    } else {
      const match = DEFINITION_REF.exec(ref);
      if (match === null) return { $ref: ref, ...rest };
      const [, keyword, name] = match as unknown as [string, string, string];
      const defs = definitions[keyword] as Record<string, unknown> | undefined;
      target = defs !== undefined && Object.hasOwn(defs, name) ? defs[name] : undefined;
      if (target === undefined) refuse(`refers to "${ref}", which it does not define.`);
    }
    if (open.includes(ref)) {
      refuse(
        `is recursive ("${ref}" refers to itself): a described schema must be finite, for OpenAPI components and GraphQL types alike. Describe the recursive part as an object without declared properties.`,
      );
    }
    // The referred schema, with what sits beside the reference (a description) over it.
    return { ...(inline(target, [...open, ref]) as Record<string, unknown>), ...rest };
  };
  return inline(body, ['#']) as JsonSchema;
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
