/**
 * @module Members a patch sets that the schema's output no longer has: a JSON Patch `add
 * /nickname` (or a merge patch `{"nickname": …}`) on a resource without `nickname` would
 * otherwise answer 2xx while the schema strips the member and nothing is stored. RFC 6902 §5:
 * when an error condition is met "application of the entire patch document SHALL NOT be deemed
 * successful", so the whole patch is refused instead.
 */
import { ApiError } from '@resourceful/error-envelope';
import { formatPointer, toFieldPath, valueAt } from './json-pointer.js';
import type { ParsedOperation } from './validate-operations.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every member path under `prefix` that `value` sets (depth bounded by `checkJsonValue`). */
function memberPaths(prefix: readonly string[], value: unknown, out: (readonly string[])[]): void {
  if (isObject(value)) {
    const keys = Object.keys(value);
    if (keys.length === 0) out.push(prefix);
    for (const key of keys) {
      // A merge patch's null removes; a removed member is not one the schema must keep.
      if (value[key] !== null) memberPaths([...prefix, key], value[key], out);
    }
    return;
  }
  out.push(prefix);
}

/** The members a JSON Patch sets: each writing operation's target and its value's members. */
export function jsonPatchMembers(operations: readonly ParsedOperation[]): (readonly string[])[] {
  const out: (readonly string[])[] = [];
  for (const { op, pathSegments, operation } of operations) {
    if (op === 'remove' || op === 'test') continue;
    // `/items/-` appends: the array itself is the member checked.
    const last = pathSegments.length - 1;
    const target = pathSegments[last] === '-' ? pathSegments.slice(0, last) : pathSegments;
    if ((op === 'add' || op === 'replace') && pathSegments[last] !== '-') {
      memberPaths(target, (operation as { value?: unknown }).value, out);
    } else out.push(target);
  }
  return out;
}

/** The members a merge patch sets (RFC 7396: `null` removes, so it sets nothing). */
export function mergePatchMembers(patch: unknown): (readonly string[])[] {
  const out: (readonly string[])[] = [];
  if (isObject(patch)) memberPaths([], patch, out);
  return out;
}

/**
 * @throws ApiError 400 `INVALID_REQUEST`, `innererror.code` `UNKNOWN_FIELD`, `target` the field
 *   path, when a member the patch set in `patched` is missing from the schema's `stored` output
 */
export function checkNoMemberDropped(
  patched: unknown,
  stored: unknown,
  members: readonly (readonly string[])[],
): void {
  for (const member of members) {
    if (valueAt(patched, member).found && !valueAt(stored, member).found) {
      const pointer = formatPointer(member);
      throw ApiError.invalidRequest(
        `The resource has no member "${pointer}"; the patch was not applied.`,
        { target: toFieldPath(member) || undefined, innererror: { code: 'UNKNOWN_FIELD' } },
      );
    }
  }
}
