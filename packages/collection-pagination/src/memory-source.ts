/**
 * @module The in-memory data source: filters, sorts and slices an array. For small collections,
 * tests and examples; a database implements `DataSource` itself so a list is never loaded whole.
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  functionOption,
  invalidOption,
} from '@resourceful/option-checks';
import { parseTimestamp } from './timestamp.js';
import type {
  CollectionQuery,
  DataSource,
  KeysetDataSource,
  KeysetPosition,
  KeyValue,
  SortSpec,
  TimeCondition,
} from './types.js';

export interface MemoryDataSourceOptions<T> {
  /**
   * Reads a property of a record. Only properties the route declared are ever read.
   * @default the record's own property of that name
   */
  get?: (item: T, property: string) => unknown;
  /**
   * The property that is unique per record (read with `get`). With it, ties in a sort are
   * ordered by it (in the sort's direction), a list without sort is ordered by it, and the
   * source pages by keyset too (`fetchAfter`, `positionOf`: server-driven paging).
   * @default undefined (ties keep the array's order; no keyset paging)
   */
  key?: string;
}

/**
 * A data source over an array, or over a function returning the current records (read once
 * per call, so a live store is always current).
 *
 * Filters compare the string form of a property (`5` matches `"5"`, a `Date` its ISO form); time
 * conditions read a `Date`, an RFC 3339 string or epoch milliseconds; sorting puts `null` and
 * missing values last (first when descending) and keeps the original order of ties.
 * Without filters and sort, a page is a slice: no copy of the whole array.
 */
export function memoryDataSource<T>(
  records: readonly T[] | (() => Iterable<T>),
  options: MemoryDataSourceOptions<T> & { key: string },
): KeysetDataSource<T>;
export function memoryDataSource<T>(
  records: readonly T[] | (() => Iterable<T>),
  options?: MemoryDataSourceOptions<T>,
): DataSource<T>;
export function memoryDataSource<T>(
  records: readonly T[] | (() => Iterable<T>),
  options: MemoryDataSourceOptions<T> = {},
): DataSource<T> | KeysetDataSource<T> {
  if (typeof records !== 'function' && !Array.isArray(records)) {
    invalidOption('memoryDataSource', 'records', 'an array or a function returning them', records);
  }
  assertOptionsObject('memoryDataSource', options);
  assertKnownOptions('memoryDataSource', options, ['get', 'key']);
  const get = functionOption('memoryDataSource', 'get', options.get) ?? ownProperty;
  const { key } = options;
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    invalidOption('memoryDataSource', 'key', 'a property name', key);
  }
  const read = (): readonly T[] => {
    if (typeof records !== 'function') return records;
    const current = records();
    return Array.isArray(current) ? current : [...current];
  };
  const selects = (query: CollectionQuery) =>
    Object.keys(query.filters).length > 0 || query.time.length > 0;
  const matching = (all: readonly T[], query: CollectionQuery): readonly T[] =>
    selects(query) ? all.filter((item) => matches(item, query, get)) : all;

  const count = (query: CollectionQuery) => matching(read(), query).length;
  if (key === undefined) {
    return {
      count,
      fetchPage(query) {
        const selected = matching(read(), query);
        const sorted = query.sort === undefined ? selected : sortBy(selected, query.sort, get);
        return sorted.slice(query.offset, query.offset + query.limit);
      },
    };
  }

  const idOf = (item: T): string | number => {
    const id = get(item, key);
    if (typeof id !== 'string' && typeof id !== 'number') {
      throw new TypeError(
        `memoryDataSource: the key "${key}" of a record is not a string or number.`,
      );
    }
    return id;
  };
  const sortKeyOf = (item: T, query: CollectionQuery): KeyValue =>
    ((query.sort === undefined ? null : get(item, query.sort.by)) ?? null) as KeyValue;
  const positionOf = (item: T, query: CollectionQuery): KeysetPosition => {
    const id = idOf(item);
    return { key: sortKeyOf(item, query), id };
  };
  // Each record with its position, in one object (it is a KeysetPosition itself).
  const ordered = (query: CollectionQuery) => {
    const direction = query.sort?.order === 'desc' ? -1 : 1;
    const selected = matching(read(), query);
    const keyed = new Array<KeysetPosition & { item: T }>(selected.length);
    for (let index = 0; index < selected.length; index++) {
      const item = selected[index]!;
      const id = idOf(item);
      keyed[index] = { key: sortKeyOf(item, query), id, item };
    }
    keyed.sort((a, b) => direction * comparePositions(a, b));
    return { keyed, direction };
  };
  return {
    count,
    fetchPage(query) {
      const { keyed } = ordered(query);
      return keyed.slice(query.offset, query.offset + query.limit).map((entry) => entry.item);
    },
    fetchAfter(query, after) {
      const { keyed, direction } = ordered(query);
      let start = 0;
      if (after !== undefined) {
        // Binary search for the first record strictly after the position.
        let high = keyed.length;
        while (start < high) {
          const middle = (start + high) >>> 1;
          if (direction * comparePositions(keyed[middle]!, after) <= 0) start = middle + 1;
          else high = middle;
        }
      }
      return keyed.slice(start, start + query.limit).map((entry) => entry.item);
    },
    positionOf,
  };
}

function comparePositions(a: KeysetPosition, b: KeysetPosition): number {
  return compareValues(a.key, b.key) || compareValues(a.id, b.id);
}

function ownProperty(item: unknown, property: string): unknown {
  if (typeof item !== 'object' || item === null || !Object.hasOwn(item, property)) return undefined;
  return (item as Record<string, unknown>)[property];
}

function matches<T>(
  item: T,
  query: CollectionQuery,
  get: (item: T, property: string) => unknown,
): boolean {
  for (const property of Object.keys(query.filters)) {
    if (asText(get(item, property)) !== query.filters[property]) return false;
  }
  for (const condition of query.time) {
    if (!inTime(get(item, condition.property), condition)) return false;
  }
  return true;
}

function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString();
  return undefined;
}

function asTime(value: unknown): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  if (typeof value === 'string') return parseTimestamp(value)?.getTime() ?? Number.NaN;
  return Number.NaN;
}

function inTime(value: unknown, condition: TimeCondition): boolean {
  const time = asTime(value);
  if (Number.isNaN(time)) return false;
  const bound = condition.value.getTime();
  switch (condition.operator) {
    case 'gt':
      return time > bound;
    case 'gte':
      return time >= bound;
    case 'lt':
      return time < bound;
  }
}

function sortBy<T>(
  items: readonly T[],
  sort: SortSpec,
  get: (item: T, property: string) => unknown,
): T[] {
  const direction = sort.order === 'desc' ? -1 : 1;
  // Read each key once: the comparator runs n log n times.
  const keyed = items.map((item) => ({ item, key: get(item, sort.by) }));
  keyed.sort((a, b) => direction * compareValues(a.key, b.key));
  return keyed.map((entry) => entry.item);
}

const TYPE_RANK: Readonly<Record<string, number>> = {
  boolean: 0,
  number: 1,
  bigint: 1,
  date: 2,
  string: 3,
  other: 4,
};

function rankOf(value: unknown): string {
  if (value instanceof Date) return 'date';
  const type = typeof value;
  return type in TYPE_RANK ? type : 'other';
}

/** Total order: booleans, numbers, dates, strings (by code unit), then null and missing. */
export function compareValues(a: unknown, b: unknown): number {
  const missingA = a === undefined || a === null;
  const missingB = b === undefined || b === null;
  if (missingA || missingB) return missingA === missingB ? 0 : missingA ? 1 : -1;
  const rankA = rankOf(a);
  const rankB = rankOf(b);
  if (rankA !== rankB) return TYPE_RANK[rankA]! - TYPE_RANK[rankB]!;
  if (rankA === 'date') return (a as Date).getTime() - (b as Date).getTime() || 0;
  if (rankA === 'other') return 0;
  const left = a as string | number | bigint | boolean;
  const right = b as string | number | bigint | boolean;
  if (
    typeof left === 'number' &&
    typeof right === 'number' &&
    (Number.isNaN(left) || Number.isNaN(right))
  ) {
    return Number.isNaN(left) === Number.isNaN(right) ? 0 : Number.isNaN(left) ? 1 : -1;
  }
  return left < right ? -1 : left > right ? 1 : 0;
}
