/**
 * @module Construction-time checks shared by the declarations, with messages that say how to fix
 * the call.
 */
import { KeyedLock } from '@resourceful/conditional-requests';
import {
  compareAndSetOption,
  describeValue,
  OPTION_ERROR_CODES,
  type OptionError,
  optionError,
} from '@resourceful/option-checks';
import { isStandardSchema } from './standard-schema.js';

/** The error of an option with a wrong value (`ERR_RESOURCEFUL_INVALID_OPTION`). */
export function invalid(factory: string, name: string, message: string): OptionError {
  return optionError(OPTION_ERROR_CODES.invalidOption, factory, message, name);
}

export function assertFunction(factory: string, name: string, value: unknown): void {
  if (value === undefined) {
    throw optionError(
      OPTION_ERROR_CODES.missingOption,
      factory,
      `"${name}" must be a function, got undefined.`,
      name,
    );
  }
  if (typeof value !== 'function') {
    throw invalid(factory, name, `"${name}" must be a function, got ${describeValue(value)}.`);
  }
}

export function assertOptionalFunction(factory: string, name: string, value: unknown): void {
  if (value !== undefined) assertFunction(factory, name, value);
}

export function assertSchema(factory: string, name: string, value: unknown): void {
  if (value !== undefined && !isStandardSchema(value)) {
    throw invalid(
      factory,
      name,
      `"${name}" must be a Standard Schema v1 (zod 3.24+ or 4, valibot, arktype, …), got ${describeValue(value)}.`,
    );
  }
}

/** A relative route path: starts with `/`, literal segments or `:name` parameters only. */
export function assertPath(factory: string, name: string, value: unknown): string {
  if (
    typeof value !== 'string' ||
    !/^(?:\/(?:[A-Za-z0-9._~-]+|:[A-Za-z_][A-Za-z0-9_]*))+$/.test(value)
  ) {
    throw invalid(
      factory,
      name,
      `"${name}" must be a route path such as "/payments/billing-agreements/:id" (literal segments and :parameters), got ${describeValue(value)}.`,
    );
  }
  return value;
}

/** A path whose last segment is the resource's `:id` parameter; returns the parameter's name. */
export function assertResourcePath(factory: string, name: string, value: unknown): string {
  const path = assertPath(factory, name, value);
  const last = path.slice(path.lastIndexOf('/') + 1);
  if (!last.startsWith(':')) {
    throw invalid(
      factory,
      name,
      `"${name}" must end with the resource's id parameter, as in "/payments/captures/:id", got ${describeValue(value)}.`,
    );
  }
  return last.slice(1);
}

/** One path segment naming an operation: `suspend`, `re-activate`. */
export function assertSegment(factory: string, name: string, value: unknown): string {
  if (typeof value !== 'string' || !/^[A-Za-z0-9._~-]+$/.test(value)) {
    throw invalid(
      factory,
      name,
      `"${name}" must be one path segment such as "suspend", got ${describeValue(value)}.`,
    );
  }
  return value;
}

export function assertOptionalString(factory: string, name: string, value: unknown): void {
  if (value !== undefined && typeof value !== 'string') {
    throw invalid(factory, name, `"${name}" must be a string, got ${describeValue(value)}.`);
  }
}

/**
 * How writes of one resource are kept apart, as `conditionalWrite` takes it: the store's own
 * compare-and-set, or an in-process lock (the given one, else conditional-requests' shared one).
 */
export type WriteGuard = { compareAndSet: true } | { lock: KeyedLock } | Record<string, never>;

export function writeGuard(
  factory: string,
  options: { lock?: unknown; compareAndSet?: unknown },
): WriteGuard {
  if (options.lock !== undefined && !(options.lock instanceof KeyedLock)) {
    throw invalid(
      factory,
      'lock',
      `"lock" must be a KeyedLock from @resourceful/conditional-requests, got ${describeValue(options.lock)}.`,
    );
  }
  const compareAndSet = compareAndSetOption(factory, options, false);
  if (compareAndSet) return { compareAndSet: true };
  return options.lock === undefined ? {} : { lock: options.lock };
}
