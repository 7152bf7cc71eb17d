/**
 * @module The options of the pure building blocks (`applyJsonPatch`, `applyMergePatch`,
 * `validateOperations`, `checkJsonBody`, `checkKnownFields`), checked on every call as the
 * factories check theirs: a limit given as `'32'`, `NaN` or `-1` is the caller's `TypeError`
 * naming it (`ERR_RESOURCEFUL_INVALID_OPTION`), rather than a limit that silently never applies
 * or a 4xx that blames the client's request.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  invalidOption,
  positiveIntegerOption,
} from '@resourceful/option-checks';
import { parseReadOnly, type ReadOnlyField } from './read-only.js';

/** The options object of `fn`: `{}` when absent, else a plain object of `known` members only. */
export function callOptions<O extends object>(
  fn: string,
  options: O | undefined,
  known: readonly (keyof O & string)[],
): Partial<Record<keyof O, unknown>> {
  if (options === undefined) return {};
  assertOptionsObject(fn, options);
  assertKnownOptions(fn, options, known);
  return options as Partial<Record<keyof O, unknown>>;
}

/** A size limit: a positive safe integer, or `fallback` when absent. */
export function limitOption(fn: string, name: string, value: unknown, fallback: number): number {
  return positiveIntegerOption(fn, name, value, fallback);
}

/** `readOnly`: an array of field names or JSON Pointers (none when absent). */
export function readOnlyOption(
  fn: string,
  value: unknown,
  always: readonly string[] = [],
): ReadOnlyField[] {
  if (value !== undefined && !Array.isArray(value)) {
    invalidOption(fn, 'readOnly', 'an array of field names or JSON Pointers', value);
  }
  try {
    return parseReadOnly([...always, ...((value as readonly string[] | undefined) ?? [])]);
  } catch (error) {
    return invalidOption(
      fn,
      'readOnly',
      `field names or JSON Pointers (${(error as Error).message})`,
      value,
    );
  }
}
