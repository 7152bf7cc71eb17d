/**
 * @module Strings the stores can keep. PostgreSQL's `text` (and `jsonb`) cannot hold U+0000, so
 * every store refuses a record with U+0000 in a string or a property name, alike (the in-memory
 * store too, so that a service answers the same whichever store it runs on), before writing
 * anything: a 400 naming the field, as a schema failure would, not a database error. An id or a
 * filter value containing it matches nothing, since nothing stored contains it.
 */
import { ApiError, formatFieldPath } from '@resourceful/error-envelope';

const NUL = '\u0000';

/** Throws a 400 `VALIDATION_ERROR` naming the first field whose name or text holds U+0000. */
export function assertStorableStrings(record: object): void {
  const path = pathToNul(record, []);
  if (path === undefined) return;
  const target = formatFieldPath(path) ?? '';
  throw ApiError.validation([
    { code: 'VALIDATION_ERROR', message: 'must not contain the character U+0000', target },
  ]);
}

export function containsNul(text: string): boolean {
  return text.includes(NUL);
}

function pathToNul(value: unknown, path: (string | number)[]): (string | number)[] | undefined {
  if (typeof value === 'string') return value.includes(NUL) ? path : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = pathToNul(value[index], [...path, index]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes(NUL)) return [...path, key];
    const found = pathToNul(item, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}
