/**
 * @module Validation with any Standard Schema v1 (zod 3.24+ and 4, valibot, arktype, …): the
 * schema's issues become one 400 `VALIDATION_ERROR` whose details name each field.
 * @see https://standardschema.dev
 */
import { ApiError, type ErrorDetail, formatFieldPath } from '@resourceful/error-envelope';
import type { StandardSchemaV1 } from '@standard-schema/spec';

export type { StandardSchemaV1 };

/** Details listed for one failure; a body of many bad items must not make a larger answer. */
const MAX_DETAILS = 100;

export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: { version?: unknown; validate?: unknown } })['~standard'];
  return props?.version === 1 && typeof props.validate === 'function';
}

function pathOf(issue: StandardSchemaV1.Issue): PropertyKey[] {
  return (issue.path ?? []).map((segment) =>
    typeof segment === 'object' && segment !== null ? segment.key : segment,
  );
}

/**
 * The details of one issue, each naming its field. A strict object's unknown fields come from
 * zod as one issue on the object itself with the names in `keys` (valibot and ArkType put the
 * name in the path): one detail per name, so the envelope names the field to remove.
 */
function detailsOf(issue: StandardSchemaV1.Issue): ErrorDetail[] {
  const path = pathOf(issue);
  const keys = (issue as { keys?: unknown }).keys;
  const names =
    Array.isArray(keys) && keys.length > 0 && keys.every((key) => typeof key === 'string')
      ? (keys as string[]).map((key) => [...path, key])
      : [path];
  return names.map((fieldPath) => {
    const detail: ErrorDetail = { code: 'VALIDATION_ERROR', message: issue.message };
    const target = formatFieldPath(fieldPath);
    if (target !== undefined) detail.target = target;
    return detail;
  });
}

/** The validated (and transformed) value, or a thrown 400 whose details name the fields. */
export async function validate<Output>(
  schema: StandardSchemaV1<unknown, Output>,
  value: unknown,
): Promise<Output> {
  const result = await schema['~standard'].validate(value);
  if (result.issues === undefined) return result.value;
  const details: ErrorDetail[] = result.issues.flatMap(detailsOf).slice(0, MAX_DETAILS);
  const total = result.issues.length;
  throw ApiError.validation(
    details,
    total > MAX_DETAILS
      ? `The request failed validation (${total} problems; the first ${MAX_DETAILS} are listed).`
      : undefined,
  );
}
