/**
 * @module The values a list's filters take. A filter on an enum field (`?state=ok`) takes the
 * enum's values and no other: the OpenAPI document lists them, GraphQL types the argument with the
 * field's enum, and a service refuses any other value with a 400 naming the parameter, as the
 * Azure REST API guidelines ask of every query parameter ("validate all query parameter and
 * request header values and fail the operation with 400-Bad Request if any value fails").
 */
import { invalidOption } from '@resourceful/option-checks';
import type { JsonSchema } from './types.js';

/**
 * The longest value collection-pagination reads for a filter (its `MAX_PARAMETER_LENGTH`); a
 * longer one is a 400 `PARAMETER_TOO_LONG` naming the parameter.
 */
export const MAX_FILTER_LENGTH = 1024;

/**
 * The closed value sets of a list's filters: each filterable property whose schema in `items`
 * is an enum (or a `const`), with its values as query strings. A filter on any other field is
 * not in the result: it takes any text from 1 to {@link MAX_FILTER_LENGTH} characters.
 * @example enumFilterValues(api.resources[0].list.summary, api.resources[0].list.filterable)
 *   // → { state: ['ok'] }
 */
export function enumFilterValues(
  items: JsonSchema,
  filterable: readonly string[],
): Readonly<Record<string, readonly string[]>> {
  if (typeof items !== 'object' || items === null || Array.isArray(items)) {
    invalidOption('enumFilterValues', 'items', 'a JSON Schema object (the list items)', items);
  }
  if (!Array.isArray(filterable) || !filterable.every((field) => typeof field === 'string')) {
    invalidOption('enumFilterValues', 'filterable', 'an array of field names', filterable);
  }
  const properties = (items.properties ?? {}) as Readonly<Record<string, JsonSchema | undefined>>;
  const values: Record<string, readonly string[]> = {};
  for (const field of filterable) {
    const closed = closedValues(properties[field]);
    if (closed !== undefined) values[field] = closed;
  }
  return Object.freeze(values);
}

/** The values of an enum or `const` schema (a nullable one's too: `null` is no query value). */
function closedValues(schema: JsonSchema | undefined): readonly string[] | undefined {
  if (schema === undefined) return undefined;
  if (Array.isArray(schema.enum)) {
    return Object.freeze(schema.enum.filter((value) => value !== null).map(String));
  }
  if (schema.const !== undefined && schema.const !== null) {
    return Object.freeze([String(schema.const)]);
  }
  if (Array.isArray(schema.anyOf)) {
    const branches = (schema.anyOf as JsonSchema[]).filter((branch) => branch.type !== 'null');
    const sets = branches.map(closedValues);
    if (sets.length === 0) return undefined;
    const values: string[] = [];
    for (const set of sets) {
      if (set === undefined) return undefined;
      values.push(...set);
    }
    return Object.freeze([...new Set(values)]);
  }
  return undefined;
}
