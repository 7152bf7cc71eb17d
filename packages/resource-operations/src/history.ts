/**
 * @module The history of a resource's actions (spec, "Complex operations", rule 2: every call
 * to an action is recorded in a resource, so that its history can be read with GET).
 */
import { type DataSource, memoryDataSource } from '@resourceful/collection-pagination';
import type { MaybePromise } from './types.js';

/** Whether the call changed the resource's state: the 200 / 204 of the spec. */
export type ActionOutcome = 'STATE_CHANGED' | 'NO_CHANGE';

/** One call of an action, as the history sub-collection lists it. */
export interface ActionRecord {
  /** `{resource id}-H{n}`, n counting the resource's calls from 1. */
  id: string;
  action: string;
  outcome: ActionOutcome;
  /** The validated request body (`{}` when none was sent). */
  request: unknown;
  state_before: unknown;
  state_after: unknown;
  /** Who called, when the `actor` option can tell; left out otherwise. */
  actor?: string;
  /** RFC 3339 time of the call. */
  create_time: string;
}

/**
 * Where histories are kept. `append` runs under the resource's lock, so calls of one resource
 * are appended one at a time; `source` pages one resource's records, newest first unless the
 * query sorts.
 *
 * Order contract: records are ordered by recording order (the call number `n` of the id,
 * compared as a number, never as the id string: `H10` sorts after `H2`), newest first without
 * a sort; sorted by `create_time`, records with the same time (calls in one millisecond) keep
 * recording order in the sort's direction, so ascending and descending are exact reverses. A
 * database store sorts by `(create_time, n)` in the query's direction.
 */
export interface HistoryStore {
  /** How many calls the resource has; the next record's number is this plus one. */
  count(resourceId: string): MaybePromise<number>;
  append(resourceId: string, record: ActionRecord): MaybePromise<void>;
  source(resourceId: string): DataSource<ActionRecord>;
}

/** A record with its call number: the sequence that orders calls of the same millisecond. */
interface Recorded {
  readonly sequence: number;
  readonly record: ActionRecord;
}

// Not a name a query can reach: only `create_time`, `action` and `outcome` are declared.
const SEQUENCE = ' sequence';

function readRecorded(entry: Recorded, property: string): unknown {
  if (property === SEQUENCE) return entry.sequence;
  return Object.hasOwn(entry.record, property)
    ? (entry.record as unknown as Record<string, unknown>)[property]
    : undefined;
}

/**
 * Histories in process memory: the default, for one instance. Several instances share a
 * database store implementing `HistoryStore`.
 */
export function memoryHistoryStore(): HistoryStore {
  const histories = new Map<string, Recorded[]>();
  return {
    count(resourceId) {
      return histories.get(resourceId)?.length ?? 0;
    },
    append(resourceId, record) {
      const list = histories.get(resourceId);
      if (list === undefined) histories.set(resourceId, [{ sequence: 1, record }]);
      else list.push({ sequence: list.length + 1, record });
    },
    source(resourceId) {
      const all = () => histories.get(resourceId) ?? [];
      // Sorted: by (create_time, sequence), both in the query's direction (the source's key).
      const sorted = memoryDataSource(all, { key: SEQUENCE, get: readRecorded });
      // Unsorted: recording order reversed, a slice of the array without sorting it.
      const newestFirst = memoryDataSource(function* newestFirst() {
        const list = all();
        for (let i = list.length - 1; i >= 0; i--) yield (list[i] as Recorded).record;
      });
      return {
        count: (query) => sorted.count(query),
        async fetchPage(query) {
          if (query.sort === undefined) return newestFirst.fetchPage(query);
          return (await sorted.fetchPage(query)).map((entry) => entry.record);
        },
      };
    },
  };
}
