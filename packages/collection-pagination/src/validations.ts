/**
 * @module Checks on the options a factory receives. They run once, at construction, and throw a
 * `TypeError` that says how to fix the call; nothing here runs per request.
 */

/** Throws on option keys the factory does not know, suggesting the closest known one. */
export function assertKnownKeys(factory: string, options: object, known: readonly string[]): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const suggestion = closest(key, known);
    const hint = suggestion === undefined ? '' : ` Did you mean "${suggestion}"?`;
    throw new TypeError(`${factory}: unknown option "${key}".${hint}`);
  }
}

export function assertPlainObject(factory: string, value: unknown): asserts value is object {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TypeError(`${factory}: options must be an object.`);
  }
}

export function positiveInteger(
  factory: string,
  name: string,
  value: unknown,
  fallback: number,
): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new TypeError(`${factory}: "${name}" must be a positive integer, got ${String(value)}.`);
  }
  return value;
}

export function oneOf<T extends string>(
  factory: string,
  name: string,
  value: unknown,
  allowed: readonly T[],
  fallback: T,
): T {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
    const list = allowed.map((entry) => `"${entry}"`).join(' or ');
    throw new TypeError(`${factory}: "${name}" must be ${list}, got ${JSON.stringify(value)}.`);
  }
  return value as T;
}

// Property names become query parameter names and object keys: keep them plain identifiers.
const PROPERTY_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);

export function propertyList(factory: string, name: string, value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    throw new TypeError(`${factory}: "${name}" must be an array of property names.`);
  }
  const seen = new Set<string>();
  for (const entry of value) {
    if (typeof entry !== 'string' || !PROPERTY_NAME.test(entry) || FORBIDDEN_NAMES.has(entry)) {
      throw new TypeError(
        `${factory}: "${name}" holds ${JSON.stringify(entry)}, which is not a property name ` +
          '(a letter, then letters, digits or underscores).',
      );
    }
    if (seen.has(entry)) {
      throw new TypeError(`${factory}: "${name}" lists "${entry}" twice.`);
    }
    seen.add(entry);
  }
  return [...seen];
}

export function optionalFunction<F>(factory: string, name: string, value: unknown): F | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'function') {
    throw new TypeError(`${factory}: "${name}" must be a function.`);
  }
  return value as F;
}

/** Normalises a public base URL: absolute http(s), no query or fragment, no trailing slash. */
export function publicBaseUrl(factory: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const fail = () =>
    new TypeError(
      `${factory}: "publicBaseUrl" must be an absolute http(s) URL without query or fragment, ` +
        `such as "https://api.example.com", got ${JSON.stringify(value)}.`,
    );
  if (typeof value !== 'string') throw fail();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail();
  }
  if (
    !/^https?:$/.test(url.protocol) ||
    url.search !== '' ||
    url.hash !== '' ||
    /[?#]/.test(value)
  ) {
    throw fail();
  }
  if (url.username !== '' || url.password !== '') throw fail();
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function editDistance(a: string, b: string): number {
  if (Math.abs(a.length - b.length) > 3) return 4;
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[b.length]!;
}
