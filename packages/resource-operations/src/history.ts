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
 */
export interface HistoryStore {
  /** How many calls the resource has; the next record's number is this plus one. */
  count(resourceId: string): MaybePromise<number>;
  append(resourceId: string, record: ActionRecord): MaybePromise<void>;
  source(resourceId: string): DataSource<ActionRecord>;
}

/**
 * Histories in process memory: the default, for one instance. Several instances share a
 * database store implementing `HistoryStore`.
 */
export function memoryHistoryStore(): HistoryStore {
  const histories = new Map<string, ActionRecord[]>();
  return {
    count(resourceId) {
      return histories.get(resourceId)?.length ?? 0;
    },
    append(resourceId, record) {
      const list = histories.get(resourceId);
      if (list === undefined) histories.set(resourceId, [record]);
      else list.push(record);
    },
    source(resourceId) {
      // Appended oldest first, listed newest first.
      return memoryDataSource(function* newestFirst() {
        const list = histories.get(resourceId) ?? [];
        for (let i = list.length - 1; i >= 0; i--) yield list[i] as ActionRecord;
      });
    },
  };
}
