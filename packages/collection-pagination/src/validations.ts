/**
 * @module The option checks only collection routes need (property-name lists, the public base
 * URL). They run once, at construction; the generic ones, and the error codes, come from the
 * workspace's option-checks module.
 */
import { invalidOption } from '@resourceful/option-checks';

// Property names become query parameter names and object keys: keep them plain identifiers.
const PROPERTY_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const FORBIDDEN_NAMES = new Set(['__proto__', 'constructor', 'prototype']);
const PROPERTY_NAMES = 'an array of property names (a letter, then letters, digits or underscores)';

/** A list of distinct property names. */
export function propertyList(factory: string, name: string, value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) invalidOption(factory, name, PROPERTY_NAMES, value);
  const seen = new Set<string>();
  for (const entry of value) {
    if (typeof entry !== 'string' || !PROPERTY_NAME.test(entry) || FORBIDDEN_NAMES.has(entry)) {
      invalidOption(factory, name, `${PROPERTY_NAMES}; one entry is not a property name`, entry);
    }
    if (seen.has(entry)) invalidOption(factory, name, 'a list naming each property once', entry);
    seen.add(entry);
  }
  return [...seen];
}

/** A list of query parameter names, of any spelling up to 256 characters. */
export function parameterList(factory: string, name: string, value: unknown): readonly string[] {
  if (value === undefined) return [];
  if (
    !Array.isArray(value) ||
    value.some((entry) => typeof entry !== 'string' || entry === '' || entry.length > 256)
  ) {
    invalidOption(factory, name, 'an array of parameter names', value);
  }
  return [...new Set(value as string[])];
}

/** Normalises a public base URL: absolute http(s), no query or fragment, no trailing slash. */
export function publicBaseUrl(factory: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  const fail = (): never =>
    invalidOption(
      factory,
      'publicBaseUrl',
      'an absolute http(s) URL without query, fragment or credentials, such as "https://api.example.com"',
      value,
    );
  if (typeof value !== 'string') return fail();
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return fail();
  }
  if (
    !/^https?:$/.test(url.protocol) ||
    url.search !== '' ||
    url.hash !== '' ||
    /[?#]/.test(value) ||
    url.username !== '' ||
    url.password !== ''
  ) {
    return fail();
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}
