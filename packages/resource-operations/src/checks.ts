/**
 * @module Construction-time checks shared by the declarations, with messages that say how to fix
 * the call.
 */
import { KeyedLock } from '@resourceful/conditional-requests';
import {
  assertKnownOptions,
  compareAndSetOption,
  describeValue,
  isOptionError,
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

/** A plain object (not an array, not null), as a nested option must be. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `notFound`: absent, or `{ message?, target? }` with non-empty strings. */
export function assertNotFound(factory: string, name: string, value: unknown): void {
  if (value === undefined) return;
  if (!isPlainObject(value)) {
    throw invalid(
      factory,
      name,
      `"${name}" must be an object such as { message: 'No such agreement.', target: 'id' }, got ${describeValue(value)}.`,
    );
  }
  assertKnownOptions(factory, value, ['message', 'target'], name);
  for (const key of ['message', 'target'] as const) {
    const member = value[key];
    if (member !== undefined && (typeof member !== 'string' || member === '')) {
      throw invalid(
        factory,
        `${name}.${key}`,
        `"${name}.${key}" must be a non-empty string, got ${describeValue(member)}.`,
      );
    }
  }
}

/** `historyStore`: absent, or an object with `count`, `append` and `source` functions. */
export function assertHistoryStore(factory: string, value: unknown): void {
  if (value === undefined) return;
  const store = value as Record<string, unknown> | null;
  if (
    !isPlainObject(store) ||
    typeof store.count !== 'function' ||
    typeof store.append !== 'function' ||
    typeof store.source !== 'function'
  ) {
    throw invalid(
      factory,
      'historyStore',
      `"historyStore" must be a HistoryStore (an object with count(), append() and source(), such as memoryHistoryStore()), got ${describeValue(value)}.`,
    );
  }
}

/**
 * Builds a middleware of another package from options nested under `name` (`historyPaging`),
 * rethrowing its construction error as this factory's, with the option's full name.
 */
export function nestedFactory<R>(factory: string, name: string, build: () => R): R {
  try {
    return build();
  } catch (error) {
    if (!isOptionError(error) || error.option === undefined) throw error;
    const message = error.message.slice(error.message.indexOf(': ') + 2);
    throw optionError(error.code, factory, `${name}: ${message}`, `${name}.${error.option}`);
  }
}

/** `historyPaging`: absent, or an object of the collection-pagination options it may set. */
export function assertHistoryPaging(factory: string, value: unknown, known: readonly string[]) {
  if (value === undefined) return;
  if (!isPlainObject(value)) {
    throw invalid(
      factory,
      'historyPaging',
      `"historyPaging" must be an object such as { defaultPageSize: 20 }, got ${describeValue(value)}.`,
    );
  }
  assertKnownOptions(factory, value, known, 'historyPaging');
}

/**
 * `publicBaseUrl`: absent, or an absolute http(s) URL without query, fragment or credentials,
 * returned without its trailing slashes (links append `/v1/…` to it).
 */
export function publicBaseUrlOption(factory: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  let url: URL | undefined;
  try {
    url = typeof value === 'string' && !/[?#]/.test(value) ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (
    url === undefined ||
    !/^https?:$/.test(url.protocol) ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw invalid(
      factory,
      'publicBaseUrl',
      `"publicBaseUrl" must be an absolute http(s) URL without query, fragment or credentials, such as "https://api.example.com", got ${describeValue(value)}.`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
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
