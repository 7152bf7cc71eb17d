/**
 * @module Search criteria validated with any Standard Schema (zod 3.24+ and 4, valibot 1,
 * ArkType 2 …), so no validation library is a dependency.
 * @see https://standardschema.dev
 */
import type { StandardSchemaV1 } from '@standard-schema/spec';

export type { StandardSchemaV1 };

/** Whether `value` implements Standard Schema version 1. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: { version?: unknown; validate?: unknown } })['~standard'];
  return props?.version === 1 && typeof props.validate === 'function';
}

/**
 * The issues in the shape error-envelope's `fromZodError` reads: a Standard Schema path segment is
 * a key or `{ key }`, a `target` wants keys. A strict object's unknown members come from zod as
 * one issue on the object with their names in `keys` (valibot and ArkType put the name in the
 * path): one issue per name, so each detail's `target` names the member to remove.
 */
export function standardIssues(
  issues: readonly StandardSchemaV1.Issue[],
): { code: string; message: string; path: PropertyKey[] }[] {
  return issues.flatMap((issue) => {
    const path = (issue.path ?? []).map((segment) =>
      typeof segment === 'object' && segment !== null ? segment.key : segment,
    );
    const keys = (issue as { keys?: unknown }).keys;
    const paths =
      Array.isArray(keys) && keys.length > 0 && keys.every((key) => typeof key === 'string')
        ? keys.map((key: string) => [...path, key])
        : [path];
    return paths.map((fieldPath) => ({ code: 'invalid', message: issue.message, path: fieldPath }));
  });
}
