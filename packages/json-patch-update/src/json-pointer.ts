/**
 * @module JSON Pointers (RFC 6901): parsing with `~0`/`~1` escapes, prefix relations, reading a
 * value, and the field-path form used in error targets.
 */

/** Path segments refused anywhere in a pointer: they reach into prototypes, not data. */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set([
  '__proto__',
  'constructor',
  'prototype',
]);

/**
 * `"/a~1b/c~0d"` → `['a/b', 'c~d']`; `""` → `[]` (the whole document).
 * @returns undefined when the text is not a JSON Pointer (no leading `/`, or a `~` not followed
 *   by `0` or `1`)
 */
export function parsePointer(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const segments = pointer.slice(1).split('/');
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    if (/~[^01]|~$/.test(segment)) return undefined;
    segments[i] = segment.replace(/~1/g, '/').replace(/~0/g, '~');
  }
  return segments;
}

/** `['a/b', 'c~d']` → `"/a~1b/c~0d"`. */
export function formatPointer(segments: readonly string[]): string {
  return segments.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** True when `prefix` equals `path` or is one of its ancestors. */
export function isPrefixOf(prefix: readonly string[], path: readonly string[]): boolean {
  if (prefix.length > path.length) return false;
  return prefix.every((segment, i) => segment === path[i]);
}

/** True when either location contains the other: changing one may change the other. */
export function overlaps(a: readonly string[], b: readonly string[]): boolean {
  return isPrefixOf(a, b) || isPrefixOf(b, a);
}

/** The value at `segments`, and whether it exists. */
export function valueAt(
  document: unknown,
  segments: readonly string[],
): { found: boolean; value: unknown } {
  let node = document;
  for (const segment of segments) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) {
      return { found: false, value: undefined };
    }
    node = (node as Record<string, unknown>)[segment];
  }
  return { found: true, value: node };
}

/** The field-path form of a pointer used in `target`: `billing_address.city`, `items[0].id`. */
export function toFieldPath(segments: readonly string[]): string {
  let out = '';
  for (const segment of segments) {
    if (/^(0|[1-9][0-9]*)$/.test(segment)) out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}
