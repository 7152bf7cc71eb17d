/**
 * @module Strings the stores can keep. PostgreSQL's `text` (and `jsonb`) cannot hold U+0000, and
 * keeps a lone surrogate (a JSON `"\ud800"` not followed by its low half) as U+FFFD: a record
 * holding one would sort and filter differently on PostgreSQL than in memory. So every store
 * refuses a record with either in a string or a property name, alike (the in-memory store too,
 * so that a service answers the same whichever store it runs on), before writing anything: a 400
 * naming the field, as a schema failure would, not a database error nor a silent change. Strings
 * of well-formed Unicode are what I-JSON asks of JSON text (RFC 7493 §2.1). An id or a filter
 * value containing U+0000 matches nothing, since nothing stored contains it.
 */
import { ApiError, formatFieldPath } from '@resourceful/error-envelope';

const NUL = '\u0000';
// With the `u` flag a surrogate pair reads as one code point, so `\p{Cs}` finds lone halves only.
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Throws a 400 `VALIDATION_ERROR` naming the first field whose name or text holds U+0000 or a
 * lone surrogate.
 */
export function assertStorableStrings(record: object): void {
  const path = pathToUnstorable(record, []);
  if (path === undefined) return;
  const target = formatFieldPath(path) ?? '';
  // The field's name, or else its text.
  const last = path.at(-1);
  const offending = typeof last === 'string' && isUnstorable(last) ? last : valueAt(record, path);
  const message = unstorableReason(offending) ?? '';
  throw ApiError.validation([{ code: 'VALIDATION_ERROR', message, target }]);
}

/** Why no store can keep `text` (a schema issue's message), or `undefined` when one can. */
export function unstorableReason(text: string): string | undefined {
  if (containsNul(text)) return 'must not contain the character U+0000';
  if (LONE_SURROGATE.test(text)) {
    return 'must be well-formed Unicode: a lone surrogate (U+D800 to U+DFFF outside a pair) cannot be stored';
  }
  return undefined;
}

function isUnstorable(text: string): boolean {
  return unstorableReason(text) !== undefined;
}

function valueAt(record: object, path: readonly (string | number)[]): string {
  let value: unknown = record;
  for (const key of path) value = (value as Record<string | number, unknown>)[key];
  return typeof value === 'string' ? value : '';
}

/**
 * For ids and filter values, which PostgreSQL would refuse with U+0000. (One with a lone
 * surrogate cannot come in a URL, and GraphQL's list arguments reach the lists as a URL query,
 * which reads it as U+FFFD.)
 */
export function containsNul(text: string): boolean {
  return text.includes(NUL);
}

function pathToUnstorable(
  value: unknown,
  path: (string | number)[],
): (string | number)[] | undefined {
  if (typeof value === 'string') return isUnstorable(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = pathToUnstorable(value[index], [...path, index]);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (isUnstorable(key)) return [...path, key];
    const found = pathToUnstorable(item, [...path, key]);
    if (found !== undefined) return found;
  }
  return undefined;
}
