/**
 * @module The seam between a resource's routes and where its records live: in memory (the
 * default, nothing to install) or in PostgreSQL (`DATABASE_URL`). Routes `await` every call, so
 * either store fits.
 */
import type { KeysetDataSource } from '@resourceful/collection-pagination';

export interface StoredRecord {
  id: string;
  create_time: string;
  update_time: string;
}

type MaybePromise<T> = T | Promise<T>;

export interface RecordStore<T extends StoredRecord> {
  /**
   * Whether `save` and `remove` compare and set (the store checks the version itself, so no
   * in-process lock is needed and the check holds across instances), or need the lock of
   * conditional-requests around them.
   */
  readonly compareAndSet: boolean;
  /** The records as a list source, ordered by the sort property and then by `id`. */
  readonly source: KeysetDataSource<T>;
  /** A new id like `CARD-5KX7Q2M4ZP8R1HJW`. */
  newId(): string;
  get(id: string): MaybePromise<T | undefined>;
  /**
   * Stores a new record (an id from `newId`) and answers it. With `createKey` (create-keys.ts),
   * when a record was stored under the same key before (a create answered 503 that the database
   * applied all the same), stores nothing and answers that record.
   */
  insert(record: T, createKey?: string): MaybePromise<T>;
  /** Stores the record unless one with its id exists (seeding, by every instance at start). */
  insertIfAbsent(record: T): MaybePromise<void>;
  /**
   * Stores `record` in place of `previous` (`undefined`: creates it). A compare-and-set store
   * throws conditional-requests' `StaleVersionError` when the stored record is no longer
   * `previous` (or, on create, exists).
   */
  save(record: T, previous: T | undefined): MaybePromise<void>;
  /** Deletes `previous`; as `save`, only while it is still the stored record. */
  remove(previous: T): MaybePromise<void>;
}

/**
 * A store whose records are also read whole, in creation order (the in-memory collection's
 * insertion order): the lists, searches and summaries of the resources that page in process,
 * small in the example (agreements, captures, refunds).
 */
export interface ListedRecordStore<T extends StoredRecord> extends RecordStore<T> {
  /** Every record, oldest first. */
  all(): MaybePromise<readonly T[]>;
  /** The records whose `property` (a column of the table) equals `value`, oldest first. */
  where(property: string, value: string): MaybePromise<readonly T[]>;
}
