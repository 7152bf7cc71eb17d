/**
 * @module An in-memory collection of records keyed by id. The example keeps its data here so it
 * runs with nothing else installed; a real service would put a database behind the same calls.
 */
import { randomBytes } from 'node:crypto';

export interface StoredRecord {
  id: string;
  create_time: string;
  update_time: string;
}

export class MemoryCollection<T extends StoredRecord> {
  readonly #records = new Map<string, T>();
  readonly #prefix: string;

  constructor(prefix: string) {
    this.#prefix = prefix;
  }

  /** A new id like `CARD-5KX7Q2M4ZP8R1HJW`: prefix and 16 characters of Crockford base32. */
  newId(): string {
    const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
    const bytes = randomBytes(16);
    let id = '';
    for (const byte of bytes) id += alphabet[byte % 32];
    return `${this.#prefix}-${id}`;
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

  get size(): number {
    return this.#records.size;
  }

  set(record: T): T {
    this.#records.set(record.id, record);
    return record;
  }

  delete(id: string): boolean {
    return this.#records.delete(id);
  }
}
