/**
 * @module A deep, frozen copy of what `describeApi` returns, so nothing it checked (a resource's
 * `actions`, `readOnly`, `deprecated`, its JSON Schemas, an example) can be changed afterwards.
 * Only plain objects and arrays are copied and frozen; the caller's own objects are never frozen
 * (the schema sources kept for validation, and any class instance such as a `Date` in an example,
 * stay as given). One object reached twice (a sub-collection's items are its resource's
 * representation) stays one copy.
 */

/** A frozen deep copy of `value`, leaving the objects in `keep` (and class instances) as they are. */
export function frozenCopy<T>(value: T, keep: ReadonlySet<object>): T {
  return copyOf(value, keep, new Map()) as T;
}

function copyOf(value: unknown, keep: ReadonlySet<object>, seen: Map<object, unknown>): unknown {
  if (typeof value !== 'object' || value === null || keep.has(value)) return value;
  const known = seen.get(value);
  if (known !== undefined) return known;
  if (Array.isArray(value)) {
    const copy: unknown[] = [];
    seen.set(value, copy);
    for (const item of value) copy.push(copyOf(item, keep, seen));
    return Object.freeze(copy);
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return value;
  const copy: Record<string, unknown> = {};
  seen.set(value, copy);
  for (const [key, item] of Object.entries(value)) {
    // defineProperty: a key named `__proto__` (JSON.parse makes one) stays an own key.
    Object.defineProperty(copy, key, {
      value: copyOf(item, keep, seen),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return Object.freeze(copy);
}
