/**
 * @module An in-memory collection of records keyed by id. The example keeps its data here so it
 * runs with nothing else installed; a real service would put a database behind the same calls.
 */
import { randomBytes } from 'node:crypto';
import { type KeysetDataSource, memoryDataSource } from '@resourceful/collection-pagination';
import { DEFAULT_MAX_OFFSET } from '@resourceful/collection-pagination-pg';
import { ApiError } from '@resourceful/error-envelope';
import type { ListedRecordStore, StoredRecord } from './record-store.js';
import { assertStorableStrings } from './storable-strings.js';

export type { StoredRecord } from './record-store.js';

/** A new id like `CARD-5KX7Q2M4ZP8R1HJW`: prefix and 16 characters of Crockford base32. */
export function newRecordId(prefix: string): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
  const bytes = randomBytes(16);
  let id = '';
  for (const byte of bytes) id += alphabet[byte % 32];
  return `${prefix}-${id}`;
}

export class MemoryCollection<T extends StoredRecord> implements ListedRecordStore<T> {
  readonly #records = new Map<string, T>();
  /** The id each create key stored (`insert`), as the PostgreSQL store's `create_key` column. */
  readonly #created = new Map<string, string>();
  readonly #prefix: string;
  /** Writes of one process: conditional-requests' in-process lock keeps them apart. */
  readonly compareAndSet = false;
  /**
   * Ties broken by `id`, and offsets past 10 000 refused, as the PostgreSQL store does, so both
   * answer alike.
   */
  readonly source: KeysetDataSource<T> = boundedOffsets(
    memoryDataSource(() => this.#records.values(), { key: 'id' }),
  );

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  newId(): string {
    return newRecordId(this.#prefix);
  }

  get(id: string): T | undefined {
    return this.#records.get(id);
  }

  has(id: string): boolean {
    return this.#records.has(id);
  }

  /** Every record, oldest first (insertion order). */
  all(): T[] {
    return [...this.#records.values()];
  }

  where(property: string, value: string): T[] {
    return this.all().filter(
      (record) => (record as unknown as Record<string, unknown>)[property] === value,
    );
  }

  get size(): number {
    return this.#records.size;
  }

  set(record: T): T {
    // Refused as the PostgreSQL store refuses it, so both stores answer alike.
    assertStorableStrings(record);
    this.#records.set(record.id, record);
    return record;
  }

  delete(id: string): boolean {
    return this.#records.delete(id);
  }

  insert(record: T, createKey?: string): T {
    if (createKey === undefined) return this.set(record);
    const earlier = this.#created.get(createKey);
    const existing = earlier === undefined ? undefined : this.#records.get(earlier);
    if (existing !== undefined) return existing;
    this.set(record);
    this.#created.set(createKey, record.id);
    return record;
  }

  insertIfAbsent(record: T): void {
    if (!this.#records.has(record.id)) this.set(record);
  }

  save(record: T): void {
    this.set(record);
  }

  remove(previous: T): void {
    this.#records.delete(previous.id);
  }
}

/**
 * The PostgreSQL store's deepest offset (collection-pagination-pg's `maxOffset`), for memory
 * too: the answer to `?offset=50000` does not depend on where the records are.
 */
function boundedOffsets<T>(source: KeysetDataSource<T>): KeysetDataSource<T> {
  return {
    ...source,
    fetchPage(query) {
      if (query.offset > DEFAULT_MAX_OFFSET) {
        const parameter = query.paging.position;
        throw ApiError.invalidRequest(
          `The query parameter "${parameter}" reaches past record ${DEFAULT_MAX_OFFSET}; follow the "next" links to page deeper.`,
          { target: parameter, innererror: { code: 'OFFSET_TOO_LARGE' } },
        );
      }
      return source.fetchPage(query);
    },
  };
}
