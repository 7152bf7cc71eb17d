/**
 * @module Checks of one option's value, each returning the value (or its default) so a factory
 * resolves its options in one pass. Every failure is an `OptionError` naming the option.
 */
import { closestName, describeValue } from './names.js';
import { OPTION_ERROR_CODES, optionError } from './option-error.js';

/**
 * Throws `ERR_RESOURCEFUL_INVALID_OPTION`: `factory: "option" must be <expected>, got <value>.`
 * @param expected what a valid value is, as a phrase: `a positive integer`, `"asc" or "desc"`
 */
export function invalidOption(
  factory: string,
  option: string,
  expected: string,
  value: unknown,
  hint = '',
): never {
  throw optionError(
    OPTION_ERROR_CODES.invalidOption,
    factory,
    `"${option}" must be ${expected}, got ${describeValue(value)}.${hint}`,
    option,
  );
}

/** A function option; `undefined` when absent. */
export function functionOption<F extends (...args: never[]) => unknown>(
  factory: string,
  option: string,
  value: F | undefined,
  expected = 'a function',
): F | undefined {
  if (value !== undefined && typeof value !== 'function') {
    invalidOption(factory, option, expected, value);
  }
  return value;
}

/** Throws `ERR_RESOURCEFUL_MISSING_OPTION`: `factory: "option" is required and must be <expected>.` */
export function missingOption(factory: string, option: string, expected: string): never {
  throw optionError(
    OPTION_ERROR_CODES.missingOption,
    factory,
    `"${option}" is required and must be ${expected}.`,
    option,
  );
}

/** A function option that must be given (`ERR_RESOURCEFUL_MISSING_OPTION` when absent). */
export function requiredFunctionOption<F extends (...args: never[]) => unknown>(
  factory: string,
  option: string,
  value: F | undefined,
  expected = 'a function',
): F {
  if (value === undefined) missingOption(factory, option, expected);
  return functionOption(factory, option, value, expected) as F;
}

/** A boolean option, or its default. */
export function booleanOption(
  factory: string,
  option: string,
  value: unknown,
  fallback: boolean,
): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') invalidOption(factory, option, 'true or false', value);
  return value;
}

/**
 * The `compareAndSet` option of a conditional write, or its default. A `lock` passed with it is
 * refused (`ERR_RESOURCEFUL_CONFLICTING_OPTIONS`): a store that checks the version itself takes
 * no in-process lock. Shared by conditionalWrite and the packages that pass the option through.
 */
export function compareAndSetOption(
  factory: string,
  options: { readonly compareAndSet?: unknown; readonly lock?: unknown },
  fallback: boolean,
): boolean {
  const compareAndSet = booleanOption(factory, 'compareAndSet', options.compareAndSet, fallback);
  if (compareAndSet && options.lock !== undefined) {
    throw optionError(
      OPTION_ERROR_CODES.conflictingOptions,
      factory,
      'a "lock" is not taken with "compareAndSet": the store checks the version itself. Pass one or the other.',
      'lock',
    );
  }
  return compareAndSet;
}

/** A positive safe integer option, or its default. */
export function positiveIntegerOption(
  factory: string,
  option: string,
  value: unknown,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    invalidOption(factory, option, 'a positive integer', value);
  }
  return value;
}

/** One of a few strings, or its default; a near miss gets a "did you mean". */
export function oneOfOption<T extends string>(
  factory: string,
  option: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value))
    return value as T;
  const guess = typeof value === 'string' ? closestName(value, allowed) : undefined;
  invalidOption(
    factory,
    option,
    allowed.map((entry) => `"${entry}"`).join(' or '),
    value,
    guess === undefined ? '' : ` Did you mean "${guess}"?`,
  );
}
