/**
 * @module Validation of the patched or replaced resource with any Standard Schema (zod 3.24+
 * and 4, valibot 1, ArkType 2 …), so no validation library is a dependency.
 * @see https://standardschema.dev
 */
import { fromZodError } from '@resourceful/error-envelope';
import type { StandardSchemaV1 } from '@standard-schema/spec';

export type { StandardSchemaV1 };

/** Whether `value` implements Standard Schema version 1. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  const props = (value as { '~standard'?: { version?: unknown; validate?: unknown } } | null)?.[
    '~standard'
  ];
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    props?.version === 1 &&
    typeof props.validate === 'function'
  );
}

/** A Standard Schema path segment is a key or `{ key }`; the envelope's `target` wants keys. */
function pathKeys(issue: StandardSchemaV1.Issue): PropertyKey[] {
  return (issue.path ?? []).map((segment) =>
    typeof segment === 'object' && segment !== null ? segment.key : segment,
  );
}

/**
 * Validates `value` and returns the schema's output.
 * @throws ApiError 400 `VALIDATION_ERROR`, one detail per issue, `target` the field path
 */
export async function validateWithSchema<T>(
  schema: StandardSchemaV1<unknown, T>,
  value: unknown,
): Promise<T> {
  const result = await schema['~standard'].validate(value);
  if (result.issues === undefined) return result.value;
  const issues = result.issues.map((issue) => ({
    code: 'invalid',
    message: issue.message,
    path: pathKeys(issue),
  }));
  throw fromZodError(
    { issues },
    `The resulting resource is not valid (${issues.length} ${issues.length === 1 ? 'problem' : 'problems'}).`,
  );
}
