/**
 * @module Members a write sets that the schema's output no longer has: a JSON Patch `add
 * /nickname` (or a merge patch or PUT with `nickname`) on a resource without `nickname` would
 * otherwise answer 2xx while the schema strips the member and nothing is stored. RFC 6902 §5:
 * when an error condition is met "application of the entire patch document SHALL NOT be deemed
 * successful", so the whole write is refused instead. Compared on the schema's output, so any
 * Standard Schema library works and a schema that strips is enough.
 */
import { ApiError, type ErrorDetail } from '@resourceful/error-envelope';
import { callOptions } from './call-options.js';
import { formatPointer, toFieldPath, valueAt } from './json-pointer.js';
import type { ParsedOperation } from './validate-operations.js';
import { checkJsonValue, DEFAULT_MAX_DEPTH } from './value-checks.js';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Every member path under `prefix` that `value` sets, through objects and arrays; without
 * recursion, as it may run before the depth check. With `nullRemoves` (a merge patch) a `null`
 * member sets nothing.
 */
function memberPaths(
  prefix: readonly string[],
  value: unknown,
  nullRemoves: boolean,
  out: (readonly string[])[],
): void {
  const stack: [readonly string[], unknown][] = [[prefix, value]];
  while (stack.length > 0) {
    const [path, node] = stack.pop()!;
    const entries: [string, unknown][] = Array.isArray(node)
      ? node.map((item, index) => [String(index), item])
      : isObject(node)
        ? Object.entries(node)
        : [];
    if (entries.length === 0) out.push(path);
    for (const [key, member] of entries) {
      if (!(nullRemoves && member === null)) stack.push([[...path, key], member]);
    }
  }
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
      memberPaths(target, (operation as { value?: unknown }).value, false, out);
    } else out.push(target);
  }
  return out;
}

/** The members a whole body (a PUT's or a create's) sets. */
export function bodyMembers(body: unknown): (readonly string[])[] {
  const out: (readonly string[])[] = [];
  if (isObject(body)) memberPaths([], body, false, out);
  return out;
}

/** The members a merge patch sets (RFC 7396: `null` removes, so it sets nothing). */
export function mergePatchMembers(patch: unknown): (readonly string[])[] {
  const out: (readonly string[])[] = [];
  if (isObject(patch)) memberPaths([], patch, true, out);
  return out;
}

/** Details listed for one refusal, as for a schema's issues. */
const MAX_DETAILS = 100;

/**
 * @param alsoKnown a value whose members count as known too: a PUT may send back the
 *   representation it read, whose `links` (or masked number) the stored resource does not hold
 * @throws ApiError 400 `VALIDATION_ERROR` (`innererror.code` `UNKNOWN_FIELD`), one detail per
 *   member set in `sent` that the schema's `kept` output lost, `target` its field path
 */
export function checkNoMemberDropped(
  sent: unknown,
  kept: unknown,
  members: readonly (readonly string[])[],
  alsoKnown?: unknown,
): void {
  const details: ErrorDetail[] = [];
  for (const member of members) {
    if (details.length === MAX_DETAILS) break;
    if (!valueAt(sent, member).found || valueAt(kept, member).found) continue;
    if (alsoKnown !== undefined && valueAt(alsoKnown, member).found) continue;
    const target = toFieldPath(member);
    details.push({
      code: 'UNKNOWN_FIELD',
      message: `The resource has no member "${formatPointer(member)}".`,
      ...(target === '' ? {} : { target }),
    });
  }
  if (details.length === 0) return;
  throw ApiError.validation(
    details,
    `The resource has no ${details.length === 1 ? 'such member' : 'such members'}; nothing was changed.`,
    { innererror: { code: 'UNKNOWN_FIELD' } },
  );
}

export interface CheckKnownFieldsOptions {
  /**
   * A value whose members count as known too, as a PUT may send back what GET sent: for a
   * create, the representation of the record about to be stored (its `id`, times and `links`
   * are then ignored, as PUT ignores them).
   */
  alsoKnown?: unknown;
}

/**
 * For a service's other writes (a POST create): every member of `body` must survive the
 * schema whose output is `parsed`, so an unknown field (`nickname`, `billing_address.colour`) is
 * refused as PUT and PATCH refuse it instead of being dropped silently.
 * Makes `checkJsonBody`'s checks first.
 * @throws ApiError 400 `VALIDATION_ERROR`, `innererror.code` `UNKNOWN_FIELD`, one detail per
 *   unknown field, `target` its path; 400 `INVALID_REQUEST` as `checkJsonBody`
 */
export function checkKnownFields(
  body: unknown,
  parsed: unknown,
  options?: CheckKnownFieldsOptions,
): void {
  const given = callOptions('checkKnownFields', options, ['alsoKnown']);
  checkJsonValue(body, DEFAULT_MAX_DEPTH, '');
  checkNoMemberDropped(body, parsed, bodyMembers(body), given.alsoKnown);
}
