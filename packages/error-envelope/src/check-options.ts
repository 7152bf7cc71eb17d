/**
 * @module Checks of a factory's options object, done once when the factory runs, so a mistake
 * fails at start-up instead of on the first error response.
 */
import { assertKnownOptions, assertOptionsObject, describeValue } from '@resourceful/option-checks';

/** Throws a TypeError unless `options` is an object whose keys are all in `known`. */
export function checkOptions(
  factory: string,
  options: unknown,
  known: readonly string[],
): Readonly<Record<string, unknown>> {
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, known);
  return options as Readonly<Record<string, unknown>>;
}

/** The TypeError for an option with a wrong value: what was expected, and what was given. */
export function optionError(
  factory: string,
  name: string,
  expected: string,
  value: unknown,
): TypeError {
  return new TypeError(`${factory}: ${name} must be ${expected}, got ${describeValue(value)}.`);
}
