/**
 * @module Checks of a factory's options object, done once when the factory runs, so a mistake
 * fails at start-up instead of on the first error response. Every failure is an `OptionError`
 * of `@resourceful/option-checks`, with a stable `ERR_RESOURCEFUL_*` code.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  optionError as buildOptionError,
  describeValue,
  OPTION_ERROR_CODES,
  type OptionError,
} from '@resourceful/option-checks';

/** Throws unless `options` is an object whose keys are all in `known`. */
export function checkOptions(
  factory: string,
  options: unknown,
  known: readonly string[],
): Readonly<Record<string, unknown>> {
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, known);
  return options as Readonly<Record<string, unknown>>;
}

/** `ERR_RESOURCEFUL_INVALID_OPTION` for a wrong value: what was expected, and what was given. */
export function optionError(
  factory: string,
  name: string,
  expected: string,
  value: unknown,
): OptionError {
  return buildOptionError(
    OPTION_ERROR_CODES.invalidOption,
    factory,
    `"${name}" must be ${expected}, got ${describeValue(value)}.`,
    name,
  );
}
