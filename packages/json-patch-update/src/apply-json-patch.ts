/**
 * @module Applying a JSON Patch (RFC 6902) all or nothing: validated, checked against read-only
 * fields, applied with fast-json-patch to a deep copy. The original is never touched.
 */
import { ApiError } from '@resourceful/error-envelope';
import jsonPatch from 'fast-json-patch';
import {
  checkOperationsReadOnly,
  checkReadOnlyUnchanged,
  parseReadOnly,
  type ReadOnlyField,
} from './read-only.js';
import {
  type ParsedOperation,
  type ValidateOperationsOptions,
  validateOperations,
} from './validate-operations.js';
import { checkJsonValue, cloneJson } from './value-checks.js';

export interface ApplyPatchOptions extends ValidateOperationsOptions {
  /**
   * Read-only fields: top-level names or JSON Pointers. None by default here; the middleware
   * adds `id`, `create_time` and `update_time`.
   * @default []
   */
  readOnly?: readonly string[];
}

/** fast-json-patch error names whose problem is the `from` member or the `value` member. */
const FROM_ERRORS = new Set(['OPERATION_FROM_REQUIRED', 'OPERATION_FROM_UNRESOLVABLE']);
const VALUE_ERRORS = new Set([
  'OPERATION_VALUE_REQUIRED',
  'OPERATION_VALUE_CANNOT_CONTAIN_UNDEFINED',
  'OPERATION_VALUE_OUT_OF_BOUNDS',
]);

function mapPatchError(error: unknown, index: number): ApiError {
  if (!(error instanceof jsonPatch.JsonPatchError)) {
    // Anything else fast-json-patch throws is still caused by the patch meeting this document.
    return ApiError.invalidRequest(`The operation at index ${index} cannot be applied.`, {
      target: `[${index}].path`,
      innererror: { code: 'OPERATION_FAILED' },
      cause: error,
    });
  }
  if (error.name === 'TEST_OPERATION_FAILED') {
    return new ApiError({
      status: 409,
      code: 'PATCH_TEST_FAILED',
      message: `The "test" operation at index ${index} failed: the value differs.`,
      target: `[${index}]`,
    });
  }
  const member = FROM_ERRORS.has(error.name)
    ? 'from'
    : VALUE_ERRORS.has(error.name)
      ? 'value'
      : 'path';
  return ApiError.invalidRequest(
    `The operation at index ${index} cannot be applied: its ${member} does not resolve in the resource.`,
    { target: `[${index}].${member}`, innererror: { code: error.name.replace(/^OPERATION_/, '') } },
  );
}

/** Applies already validated operations to a copy; see `applyJsonPatch`. */
export function applyParsedOperations(
  document: unknown,
  operations: readonly ParsedOperation[],
  readOnly: readonly ReadOnlyField[],
  maxDepth: number,
): unknown {
  checkOperationsReadOnly(operations, readOnly);
  const copy = cloneJson(document);
  let result: unknown = copy;
  // One operation at a time, so an error names its own index (fast-json-patch reports 0 for
  // some). Each mutates our copy only: a failure half-way never reaches the original.
  operations.forEach((parsed, index) => {
    try {
      result = jsonPatch.applyOperation(
        result,
        parsed.operation,
        true,
        true,
        true,
        index,
      ).newDocument;
    } catch (error) {
      throw mapPatchError(error, index);
    }
  });
  // Patches can nest a document deeper with every request; keep it bounded.
  checkJsonValue(result, maxDepth * 2, '');
  checkReadOnlyUnchanged(document, result, readOnly);
  return result;
}

/**
 * Applies a JSON Patch to a deep copy of `document` and returns the result; the document itself
 * is never changed. Any failing operation fails the whole patch.
 *
 * @throws ApiError 400 `INVALID_REQUEST` (shape, unresolvable path; `target` `[i].path` …),
 *   400 `READ_ONLY_FIELD`, 409 `PATCH_TEST_FAILED` (`target` `[i]`), 413 too many operations
 * @see https://www.rfc-editor.org/rfc/rfc6902
 */
export function applyJsonPatch(
  document: unknown,
  patch: unknown,
  options: ApplyPatchOptions = {},
): unknown {
  const maxDepth = options.maxDepth ?? 32;
  const operations = validateOperations(patch, { ...options, maxDepth });
  return applyParsedOperations(
    document,
    operations,
    parseReadOnly(options.readOnly ?? []),
    maxDepth,
  );
}
