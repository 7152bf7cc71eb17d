/**
 * @module Read-only fields: `id`, `create_time`, `update_time` always, plus the resource's own.
 * A patch may read them (`test`) but never write, move or copy them, nor replace a document or
 * object that contains them.
 */
import { ApiError } from '@resourceful/error-envelope';
import {
  FORBIDDEN_SEGMENTS,
  formatPointer,
  overlaps,
  parsePointer,
  toFieldPath,
  valueAt,
} from './json-pointer.js';
import type { ParsedOperation } from './validate-operations.js';
import { cloneJson, jsonEqual } from './value-checks.js';

/** Always read-only: the identifier and the times computed by the service. */
export const ALWAYS_READ_ONLY: readonly string[] = Object.freeze([
  'id',
  'create_time',
  'update_time',
]);

/** One read-only location, parsed. */
export interface ReadOnlyField {
  readonly segments: readonly string[];
  /** The `target` of the error: `number`, `billing_address.city`. */
  readonly target: string;
}

/**
 * Parses read-only declarations: a JSON Pointer (`/billing_address/city`) or a top-level field
 * name (`number`).
 * @throws TypeError for a declaration that is neither
 */
export function parseReadOnly(fields: readonly string[]): ReadOnlyField[] {
  const out: ReadOnlyField[] = [];
  for (const field of fields) {
    if (typeof field !== 'string' || field === '') {
      throw new TypeError(`readOnly: ${JSON.stringify(field)} is not a field name or JSON Pointer`);
    }
    const segments = field.startsWith('/') ? parsePointer(field) : [field];
    if (segments === undefined) {
      throw new TypeError(`readOnly: ${JSON.stringify(field)} is not a valid JSON Pointer`);
    }
    if (segments.length === 0 || segments.some((segment) => FORBIDDEN_SEGMENTS.has(segment))) {
      throw new TypeError(`readOnly: ${JSON.stringify(field)} cannot be declared read-only`);
    }
    if (!out.some((known) => formatPointer(known.segments) === formatPointer(segments))) {
      out.push({ segments, target: toFieldPath(segments) });
    }
  }
  return out;
}

function refuse(field: ReadOnlyField, index: number, member: 'path' | 'from'): ApiError {
  return ApiError.readOnlyField(field.target, undefined, {
    innererror: { code: 'READ_ONLY_FIELD_PATCHED', operation: index, member },
  });
}

/** Refuses an operation that writes a read-only field, or moves or copies one. */
export function checkOperationsReadOnly(
  operations: readonly ParsedOperation[],
  fields: readonly ReadOnlyField[],
): void {
  operations.forEach((operation, index) => {
    if (operation.op === 'test') return;
    for (const field of fields) {
      if (overlaps(operation.pathSegments, field.segments)) throw refuse(field, index, 'path');
      if (
        (operation.op === 'move' || operation.op === 'copy') &&
        overlaps(operation.fromSegments, field.segments)
      ) {
        throw refuse(field, index, 'from');
      }
    }
  });
}

/**
 * Refuses a result in which a read-only field differs from the original (added, removed or
 * changed): the last line of defence for merge patches, PUT bodies and shifting array indexes.
 * The original is compared in its JSON form, the one GET sends and the result was built from:
 * a store may hand back a `Date` (pg reads a timestamptz so) or a member set to `undefined`,
 * which are the same field to a client. That form is made only for a field that looks changed.
 */
export function checkReadOnlyUnchanged(
  before: unknown,
  after: unknown,
  fields: readonly ReadOnlyField[],
): void {
  let beforeAsJson: { value: unknown } | undefined;
  for (const field of fields) {
    const b = valueAt(after, field.segments);
    if (sameValue(valueAt(before, field.segments), b)) continue;
    beforeAsJson ??= { value: cloneJson(before) };
    if (sameValue(valueAt(beforeAsJson.value, field.segments), b)) continue;
    throw ApiError.readOnlyField(field.target, undefined, {
      innererror: { code: 'READ_ONLY_FIELD_CHANGED' },
    });
  }
}

function sameValue(
  a: { found: boolean; value: unknown },
  b: { found: boolean; value: unknown },
): boolean {
  return a.found === b.found && jsonEqual(a.value, b.value);
}
