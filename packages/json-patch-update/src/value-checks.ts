/**
 * @module Checks on untrusted JSON values before anything recursive touches them: bounded depth
 * (so no stack overflow) and no `__proto__`, `constructor` or `prototype` keys (so no prototype
 * pollution downstream: a naive deep merge follows `constructor.prototype` to
 * `Object.prototype` as readily as `__proto__`).
 */
import { ApiError } from '@resourceful/error-envelope';
import { callOptions, limitOption } from './call-options.js';
import { FORBIDDEN_SEGMENTS } from './json-pointer.js';

/** The deepest nesting of a request value json-patch-update accepts by default. */
export const DEFAULT_MAX_DEPTH = 32;

/**
 * Walks `value` without recursion.
 * @throws ApiError 400 `INVALID_REQUEST` when it nests deeper than `maxDepth` or has a
 *   `__proto__`, `constructor` or `prototype` key; `target` is `targetPrefix` followed by the
 *   offending key's path
 */
export function checkJsonValue(value: unknown, maxDepth: number, targetPrefix: string): void {
  const stack: Array<{ node: unknown; depth: number; path: string }> = [
    { node: value, depth: 0, path: targetPrefix },
  ];
  while (stack.length > 0) {
    const { node, depth, path } = stack.pop()!;
    if (typeof node !== 'object' || node === null) continue;
    if (depth >= maxDepth) {
      throw ApiError.invalidRequest(`The value nests deeper than ${maxDepth} levels.`, {
        target: path || undefined,
        innererror: { code: 'TOO_DEEP' },
      });
    }
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++) {
        stack.push({ node: node[i], depth: depth + 1, path: `${path}[${i}]` });
      }
      continue;
    }
    for (const key of Object.keys(node)) {
      const child = path === '' ? key : `${path}.${key}`;
      if (FORBIDDEN_SEGMENTS.has(key)) {
        throw ApiError.invalidRequest(`The key "${key}" is not allowed.`, {
          target: child,
          innererror: { code: 'FORBIDDEN_KEY' },
        });
      }
      stack.push({ node: (node as Record<string, unknown>)[key], depth: depth + 1, path: child });
    }
  }
}

export interface CheckJsonBodyOptions {
  /** Deepest nesting accepted (400 `TOO_DEEP` beyond). @default 32 */
  maxDepth?: number;
}

/**
 * The check every write of this package makes on a request body, for a service's other writes
 * (POST create, actions) to make the same: nesting at most `maxDepth` levels, no `__proto__`,
 * `constructor` or `prototype` key at any level.
 * @throws ApiError 400 `INVALID_REQUEST`, `innererror.code` `TOO_DEEP` or `FORBIDDEN_KEY`,
 *   `target` the offending key's path (`billing_address.__proto__`, `items[0].constructor`)
 */
export function checkJsonBody(value: unknown, options?: CheckJsonBodyOptions): void {
  const given = callOptions('checkJsonBody', options, ['maxDepth']);
  checkJsonValue(
    value,
    limitOption('checkJsonBody', 'maxDepth', given.maxDepth, DEFAULT_MAX_DEPTH),
    '',
  );
}

/**
 * The length of `value`'s JSON text, counted without building it (escapes aside). Counting stops
 * soon after `limit` is passed, so measuring a huge value costs no more than measuring `limit`.
 */
export function jsonSize(value: unknown, limit: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= limit) {
    const node = stack.pop();
    if (typeof node === 'string') size += node.length + 2;
    else if (typeof node === 'number' || typeof node === 'boolean') size += String(node).length;
    else if (Array.isArray(node)) {
      size += 1 + Math.max(node.length, 1);
      for (const item of node) stack.push(item);
    } else if (typeof node === 'object' && node !== null) {
      const keys = Object.keys(node);
      size += 1 + Math.max(keys.length, 1);
      for (const key of keys) {
        size += key.length + 3;
        stack.push((node as Record<string, unknown>)[key]);
      }
    } else size += 4;
  }
  return size;
}

/**
 * Structural equality of JSON values (key order ignored). Depth is bounded by `checkJsonValue`.
 * Values are compared in the form JSON.stringify gives them, the form GET sends and the entity
 * tag is computed from: a value with a `toJSON` method (a `Date` a schema or a store made) is
 * compared as what it returns, calling it once (two Dates have no own members, yet are one value
 * only at the same time), and an object member that JSON leaves out (`undefined`, a function, a
 * symbol: what a store or an ORM may hand back for an absent column) counts as absent.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  return equal(a, b, true);
}

/** Whether JSON.stringify leaves this object member out (and writes `null` for it in an array). */
function omitted(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** An array item as JSON writes it. */
function asItem(value: unknown): unknown {
  return omitted(value) ? null : value;
}

/** `convert`: a `toJSON` of `a` or `b` is still to be called (not on what one returned). */
function equal(a: unknown, b: unknown, convert: boolean): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return convert && (hasToJSON(a) || hasToJSON(b)) && equal(jsonForm(a), jsonForm(b), false);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => equal(asItem(item), asItem(b[i]), true));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let members = 0;
  for (const key of Object.keys(x)) {
    const value = x[key];
    if (omitted(value)) continue;
    members++;
    if (!Object.hasOwn(y, key) || !equal(value, y[key], true)) return false;
  }
  let otherMembers = 0;
  for (const key of Object.keys(y)) if (!omitted(y[key])) otherMembers++;
  if (members !== otherMembers) return false;
  if (members === 0) {
    return !convert || !(hasToJSON(x) || hasToJSON(y)) || equal(jsonForm(x), jsonForm(y), false);
  }
  return true;
}

function hasToJSON(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  );
}

function jsonForm(value: unknown): unknown {
  return hasToJSON(value) ? (value as { toJSON: () => unknown }).toJSON() : value;
}

/** A deep copy of a JSON value. */
export function cloneJson<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
