/**
 * @module Applying a JSON Patch (RFC 6902) all or nothing: validated, checked against read-only
 * fields, applied with fast-json-patch to a deep copy. The original is never touched.
 */
import { ApiError } from '@resourceful/error-envelope';
import jsonPatch from 'fast-json-patch';
import { callOptions, limitOption, readOnlyOption } from './call-options.js';
import { valueAt } from './json-pointer.js';
import {
  checkOperationsReadOnly,
  checkReadOnlyUnchanged,
  type ReadOnlyField,
} from './read-only.js';
import {
  MAX_OPERATIONS,
  type ParsedOperation,
  type ValidateOperationsOptions,
  validateOperations,
} from './validate-operations.js';
import { checkJsonValue, cloneJson, jsonSize } from './value-checks.js';

export interface ApplyPatchOptions extends ValidateOperationsOptions {
  /**
   * Read-only fields: top-level names or JSON Pointers. None by default here; the middleware
   * adds `id`, `create_time` and `update_time`.
   * @default []
   */
  readOnly?: readonly string[];
  /**
   * Most bytes of JSON all `copy` operations of one patch may copy together. Without a bound, a
   * few dozen copies of a location into itself double the document each time.
   * @default 102400 (the middleware uses its `maxBodyBytes`)
   */
  maxCopyBytes?: number;
}

/** Limits on what applying a patch may build. */
export interface ApplyLimits {
  /** Deepest nesting of a value in the patch; the result may reach twice that. */
  readonly maxDepth: number;
  readonly maxCopyBytes: number;
}

const DEFAULT_LIMITS: ApplyLimits = Object.freeze({ maxDepth: 32, maxCopyBytes: 100 * 1024 });

// RFC 6901 §4: an array index is 0 or digits without a leading zero (or "-", past the end).
const ARRAY_INDEX = /^(?:0|[1-9][0-9]*)$/;

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
    return ApiError.conflict(`The "test" operation at index ${index} failed: the value differs.`, {
      target: `[${index}]`,
      innererror: { code: 'PATCH_TEST_FAILED' },
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

/**
 * Refuses an operation whose location must exist and does not: the `from` of a move or copy
 * (RFC 6902 §4.4-4.5), which fast-json-patch checks except onto the root (`"path": ""`), where it
 * applies the missing value and the whole document would become `undefined`; and the `path` of
 * a remove or replace (§4.2-4.3) ending in a name of Object.prototype's (`/toString`), which
 * fast-json-patch finds on every object: a replace would add the member, a remove succeed.
 */
function checkExists(
  document: unknown,
  segments: readonly string[],
  index: number,
  member: 'path' | 'from',
): void {
  let node = document;
  for (const segment of segments) {
    const found = Array.isArray(node)
      ? ARRAY_INDEX.test(segment) && Number(segment) < node.length
      : typeof node === 'object' && node !== null && Object.hasOwn(node, segment);
    if (!found) {
      throw ApiError.invalidRequest(
        `The operation at index ${index} cannot be applied: its ${member} does not resolve in the resource.`,
        {
          target: `[${index}].${member}`,
          innererror: { code: member === 'from' ? 'FROM_UNRESOLVABLE' : 'PATH_UNRESOLVABLE' },
        },
      );
    }
    node = (node as Record<string, unknown>)[segment];
  }
}

/** Names every object inherits: fast-json-patch takes a location ending in one for a member. */
const INHERITED_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * Refuses an array index RFC 6901 does not allow (`01`, `1e0`, `+1`) on the way to a location;
 * fast-json-patch reads `01` as `1`.
 */
function checkArrayIndexes(
  document: unknown,
  segments: readonly string[],
  index: number,
  member: 'path' | 'from',
): void {
  let node = document;
  for (const segment of segments) {
    if (Array.isArray(node)) {
      if (segment === '-') return;
      if (!ARRAY_INDEX.test(segment)) {
        throw ApiError.invalidRequest(
          `The operation at index ${index} cannot be applied: its ${member} holds an array index that is not a number without leading zeros.`,
          { target: `[${index}].${member}`, innererror: { code: 'PATH_ILLEGAL_ARRAY_INDEX' } },
        );
      }
      node = node[Number(segment)];
    } else if (typeof node === 'object' && node !== null && Object.hasOwn(node, segment)) {
      node = (node as Record<string, unknown>)[segment];
    } else {
      return;
    }
  }
}

/**
 * Adds the size of what a `copy` copies to the bytes the patch has copied so far. Copying a
 * location into itself doubles it, so without a budget a few dozen copies exhaust the process.
 * @throws ApiError 413 `COPY_TOO_LARGE` when the total passes `maxCopyBytes`
 */
function countCopy(
  document: unknown,
  parsed: ParsedOperation,
  index: number,
  copied: number,
  maxCopyBytes: number,
): number {
  const source = valueAt(document, parsed.fromSegments);
  const total = source.found ? copied + jsonSize(source.value, maxCopyBytes - copied) : copied;
  if (total > maxCopyBytes) {
    throw ApiError.payloadTooLarge(
      `The copy operations of this patch would copy more than ${maxCopyBytes} bytes.`,
      { target: `[${index}].from`, innererror: { code: 'COPY_TOO_LARGE' } },
    );
  }
  return total;
}

/** Applies already validated operations to a copy; see `applyJsonPatch`. */
export function applyParsedOperations(
  document: unknown,
  operations: readonly ParsedOperation[],
  readOnly: readonly ReadOnlyField[],
  limits: ApplyLimits,
): unknown {
  checkOperationsReadOnly(operations, readOnly);
  const copy = cloneJson(document);
  let result: unknown = copy;
  let copied = 0;
  // One operation at a time, so an error names its own index (fast-json-patch reports 0 for
  // some). Each mutates our copy only: a failure half-way never reaches the original.
  operations.forEach((parsed, index) => {
    checkArrayIndexes(result, parsed.pathSegments, index, 'path');
    if (parsed.op === 'move' || parsed.op === 'copy') {
      checkArrayIndexes(result, parsed.fromSegments, index, 'from');
      checkExists(result, parsed.fromSegments, index, 'from');
    } else if (
      (parsed.op === 'remove' || parsed.op === 'replace') &&
      INHERITED_NAMES.has(parsed.pathSegments[parsed.pathSegments.length - 1]!)
    ) {
      checkExists(result, parsed.pathSegments, index, 'path');
    }
    if (parsed.op === 'copy')
      copied = countCopy(result, parsed, index, copied, limits.maxCopyBytes);
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
  checkJsonValue(result, limits.maxDepth * 2, '');
  checkReadOnlyUnchanged(document, result, readOnly);
  return result;
}

/**
 * Applies a JSON Patch to a deep copy of `document` and returns the result; the document itself
 * is never changed. Any failing operation fails the whole patch.
 *
 * @throws ApiError 400 `INVALID_REQUEST` (shape, unresolvable path; `target` `[i].path` …),
 *   400 `READ_ONLY_FIELD`, 409 `CONFLICT` (`innererror.code` `PATCH_TEST_FAILED`, `target` `[i]`), 413 too many operations or
 *   copies over `maxCopyBytes`
 * @see https://www.rfc-editor.org/rfc/rfc6902
 */
export function applyJsonPatch(
  document: unknown,
  patch: unknown,
  options?: ApplyPatchOptions,
): unknown {
  const fn = 'applyJsonPatch';
  const given = callOptions(fn, options, ['readOnly', 'maxOperations', 'maxDepth', 'maxCopyBytes']);
  const limits: ApplyLimits = {
    maxDepth: limitOption(fn, 'maxDepth', given.maxDepth, DEFAULT_LIMITS.maxDepth),
    maxCopyBytes: limitOption(fn, 'maxCopyBytes', given.maxCopyBytes, DEFAULT_LIMITS.maxCopyBytes),
  };
  const readOnly = readOnlyOption(fn, given.readOnly);
  const maxOperations = limitOption(fn, 'maxOperations', given.maxOperations, MAX_OPERATIONS);
  const operations = validateOperations(patch, { maxOperations, maxDepth: limits.maxDepth });
  return applyParsedOperations(document, operations, readOnly, limits);
}
