/**
 * @module JSON Merge Patch (RFC 7396): objects merge key by key, `null` removes, anything else
 * replaces.
 */
import { callOptions, limitOption, readOnlyOption } from './call-options.js';
import { checkReadOnlyUnchanged } from './read-only.js';
import { checkJsonValue, cloneJson, DEFAULT_MAX_DEPTH } from './value-checks.js';

export interface ApplyMergePatchOptions {
  /** Read-only fields (names or JSON Pointers); a change to one is refused. @default [] */
  readOnly?: readonly string[];
  /** Deepest nesting of the patch. @default 32 */
  maxDepth?: number;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** RFC 7396 §2 MergePatch(Target, Patch), on values already copied. */
function merge(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? target : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) delete out[key];
    else out[key] = merge(out[key], value);
  }
  return out;
}

/**
 * Applies a merge patch to a deep copy of `document`.
 * @throws ApiError 400 `INVALID_REQUEST` (too deep, `__proto__` key), 400 `READ_ONLY_FIELD`
 * @see https://www.rfc-editor.org/rfc/rfc7396
 */
export function applyMergePatch(
  document: unknown,
  patch: unknown,
  options?: ApplyMergePatchOptions,
): unknown {
  const fn = 'applyMergePatch';
  const given = callOptions(fn, options, ['readOnly', 'maxDepth']);
  const maxDepth = limitOption(fn, 'maxDepth', given.maxDepth, DEFAULT_MAX_DEPTH);
  const readOnly = readOnlyOption(fn, given.readOnly);
  checkJsonValue(patch, maxDepth, '');
  const result = merge(cloneJson(document), cloneJson(patch));
  checkJsonValue(result, maxDepth * 2, '');
  checkReadOnlyUnchanged(document, result, readOnly);
  return result;
}
