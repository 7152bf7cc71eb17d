/**
 * @module Checks shared by the factories: the options object itself, header names and values.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  describeValue,
  optionError as makeOptionError,
  OPTION_ERROR_CODES,
} from '@resourceful/option-checks';

/** RFC 9110 §5.1: a field name is a token. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function isHeaderName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 256 && TOKEN.test(value);
}

/**
 * RFC 9110 §5.5: no CR, LF or NUL (nor other controls but HTAB) in a field value, and only
 * characters a field can carry: its bytes are VCHAR and obs-text, which Node reads as Latin-1
 * (and its setHeader and http.request refuse any character beyond U+00FF).
 */
export function isHeaderValue(value: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls are what is refused
  return !/[\u0000-\u0008\u000a-\u001f\u007f\u0100-\uffff]/.test(value);
}

/** Checks the options object and its keys; returns it typed. */
export function checkOptions<T extends object>(
  factory: string,
  options: unknown,
  known: readonly (keyof T & string)[],
): Partial<T> {
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, known);
  return options as Partial<T>;
}

/** `ERR_RESOURCEFUL_INVALID_OPTION`: `factory: "name" must be <expected>, got <value>.` */
export function optionError(factory: string, name: string, expected: string, got: unknown) {
  return makeOptionError(
    OPTION_ERROR_CODES.invalidOption,
    factory,
    `"${name}" must be ${expected}, got ${describeValue(got)}.`,
    name,
  );
}

/** `ERR_RESOURCEFUL_MISSING_OPTION` for a required option. */
export function missingOption(factory: string, name: string, expected: string) {
  return makeOptionError(
    OPTION_ERROR_CODES.missingOption,
    factory,
    `"${name}" is required: ${expected}.`,
    name,
  );
}

/** `ERR_RESOURCEFUL_INVALID_OPTION` with a message of its own. */
export function refusedOption(factory: string, name: string, message: string) {
  return makeOptionError(OPTION_ERROR_CODES.invalidOption, factory, message, name);
}

export function positiveInteger(factory: string, name: string, value: unknown, fallback: number) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw optionError(factory, name, 'a positive integer', value);
  }
  return value;
}
