/**
 * @module Validation of the patched or replaced resource with any schema that has a zod-like
 * `safeParse` (zod 3 and 4, or your own), so zod is not a dependency.
 */
import { fromZodError } from '@resourceful/error-envelope';

/** One problem reported by a schema, as zod reports it. */
export interface SchemaIssue {
  readonly code: string;
  readonly message: string;
  readonly path: readonly PropertyKey[];
}

/** The result of `safeParse`. */
export type SafeParseResult<T> =
  | { readonly success: true; readonly data: T }
  | { readonly success: false; readonly error: { readonly issues: readonly SchemaIssue[] } };

/** Anything with a zod-like `safeParse`, a zod schema included. */
export interface SafeParseSchema<T> {
  safeParse(value: unknown): SafeParseResult<T>;
}

/**
 * Validates `value` and returns the schema's output.
 * @throws ApiError 400 `VALIDATION_ERROR`, one detail per issue, `target` the field path
 */
export function validateWithSchema<T>(schema: SafeParseSchema<T>, value: unknown): T {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw fromZodError(
    { issues: result.error.issues },
    `The resulting resource is not valid (${result.error.issues.length} ${result.error.issues.length === 1 ? 'problem' : 'problems'}).`,
  );
}
