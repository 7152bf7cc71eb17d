/**
 * @module A resource's records in a PostgreSQL table: the record as `json`, its tag, and the
 * columns its list sorts and filters by. Writes compare and set on the tag, so instances sharing
 * the database never overwrite each other's changes; lists page in the database through
 * collection-pagination-pg.
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import type {
  CollectionQuery,
  KeysetDataSource,
  KeysetPosition,
} from '@resourceful/collection-pagination';
import { type ColumnOption, pgDataSource } from '@resourceful/collection-pagination-pg';
import { etagFor, StaleVersionError } from '@resourceful/conditional-requests';
import type pg from 'pg';
import { newRecordId } from '../memory-collection.js';
import type { ListedRecordStore, StoredRecord } from '../record-store.js';
import { assertStorableStrings, containsNul } from '../storable-strings.js';
import { answered, isDatabaseUnavailableAnswer, unavailable } from './database-outages.js';
import { quotedSchema } from './migrate.js';

export interface PgRecordsOptions {
  pool: pg.Pool;
  schema: string;
  /** The table (created by a migration). */
  table: string;
  /** The id prefix: `CARD`. */
  prefix: string;
  /** Properties stored in columns of the same name, for sorting and filtering. */
  columns: readonly string[];
  /** Those of `columns` a record may leave out (NULL in the table). */
  nullable?: readonly string[];
}

interface Row {
  doc: unknown;
}

/**
 * `all` and `where` need the table's `seq` column (creation order), which the tables of
 * migration 2 have.
 */
export class PgRecords<T extends StoredRecord> implements ListedRecordStore<T> {
  readonly compareAndSet = true;
  readonly source: KeysetDataSource<T>;
  readonly #pool: pg.Pool;
  readonly #prefix: string;
  readonly #table: string;
  readonly #columns: readonly string[];
  readonly #insert: string;
  readonly #insertKeyed: string;
  readonly #update: string;

  constructor(options: PgRecordsOptions) {
    const { pool, schema, table, prefix, columns, nullable = [] } = options;
    this.#pool = pool;
    this.#prefix = prefix;
    // Identifiers come from the example's code only; quoted all the same.
    this.#table = `${quotedSchema(schema)}."${table}"`;
    this.#columns = columns;
    const names = columns.map((column) => `"${column}"`);
    const values = columns.map((_, index) => `$${index + 4}`);
    this.#insert = `INSERT INTO ${this.#table} (id, doc, etag, ${names.join(', ')}) VALUES ($1, $2, $3, ${values.join(', ')})`;
    this.#insertKeyed = `INSERT INTO ${this.#table} (id, doc, etag, ${names.join(', ')}, create_key) VALUES ($1, $2, $3, ${values.join(', ')}, $${columns.length + 4}) ON CONFLICT (create_key) DO NOTHING`;
    this.#update = `UPDATE ${this.#table} SET doc = $2, etag = $3, ${names
      .map((name, index) => `${name} = ${values[index]}`)
      .join(', ')} WHERE id = $1 AND etag = $${columns.length + 4}`;
    // The list's queries too: an outage is this example's 503 and counts in its outage log
    // (database-outages.ts says why the source's own mapping is not relied on).
    const queryable = { query: (text: string, params: unknown[]) => queryIn(pool, text, params) };
    const columnOptions: Record<string, ColumnOption> = {};
    for (const column of columns) {
      columnOptions[column] = nullable.includes(column) ? { column, nullable: true } : column;
    }
    this.source = documents<T>(
      pgDataSource<Row>({
        pool: queryable,
        table: `${schema}.${table}`,
        key: 'id',
        columns: columnOptions,
      }),
    );
  }

  newId(): string {
    return newRecordId(this.#prefix);
  }

  async get(id: string): Promise<T | undefined> {
    // PostgreSQL refuses the character in a text parameter; no stored id contains it.
    if (containsNul(id)) return undefined;
    const { rows } = await this.#query<Row>(`SELECT doc FROM ${this.#table} WHERE id = $1`, [id]);
    return rows[0]?.doc as T | undefined;
  }

  async all(): Promise<T[]> {
    const { rows } = await this.#query<Row>(`SELECT doc FROM ${this.#table} ORDER BY seq`, []);
    return rows.map((row) => row.doc as T);
  }

  async where(property: string, value: string): Promise<T[]> {
    // The column name is written into the SQL: only the store's own columns.
    if (!this.#columns.includes(property)) {
      throw new TypeError(`PgRecords: "${property}" is not a column of ${this.#table}.`);
    }
    if (containsNul(value)) return [];
    const { rows } = await this.#query<Row>(
      `SELECT doc FROM ${this.#table} WHERE "${property}" = $1 ORDER BY seq`,
      [value],
    );
    return rows.map((row) => row.doc as T);
  }

  async insert(record: T, createKey?: string): Promise<T> {
    if (createKey === undefined) {
      await this.#query(this.#insert, this.#values(record));
      return record;
    }
    // The row of an earlier create with this key, left by a statement the database applied
    // after its client gave up on it: answered in place of a second row.
    const values = [...this.#values(record), createKey];
    for (let attempt = 1; ; attempt += 1) {
      const { rowCount } = await this.#query(this.#insertKeyed, values);
      if (rowCount === 1) return record;
      const { rows } = await this.#query<Row>(
        `SELECT doc FROM ${this.#table} WHERE create_key = $1`,
        [createKey],
      );
      if (rows[0] !== undefined) return rows[0].doc as T;
      // Deleted between the two statements: the key is free again; twice is not chance.
      if (attempt === 2) throw new StaleVersionError();
    }
  }

  async insertIfAbsent(record: T): Promise<void> {
    await this.#query(`${this.#insert} ON CONFLICT (id) DO NOTHING`, this.#values(record));
  }

  async save(record: T, previous: T | undefined): Promise<void> {
    const { rowCount } =
      previous === undefined
        ? await this.#query(`${this.#insert} ON CONFLICT (id) DO NOTHING`, this.#values(record))
        : await this.#query(this.#update, [...this.#values(record), etagFor(previous)]);
    if (rowCount !== 1) throw new StaleVersionError();
  }

  async remove(previous: T): Promise<void> {
    const { rowCount } = await this.#query(
      `DELETE FROM ${this.#table} WHERE id = $1 AND etag = $2`,
      [previous.id, etagFor(previous)],
    );
    if (rowCount !== 1) throw new StaleVersionError();
  }

  /** id, doc, etag, then the list columns. The doc's text is what `get` reads back. */
  #values(record: T): unknown[] {
    assertStorableStrings(record);
    const fields = record as unknown as Record<string, unknown>;
    return [
      record.id,
      JSON.stringify(record),
      etagFor(record),
      ...this.#columns.map((column) => fields[column] ?? null),
    ];
  }

  #query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values: unknown[]) {
    return queryIn<R>(this.#pool, text, values);
  }
}

/** The connection of the transaction the current call runs in (see `inTransaction`). */
const transactionClient = new AsyncLocalStorage<pg.PoolClient>();

/**
 * Every query of the stores goes through here: on the transaction's connection when the call
 * runs inside `inTransaction`, else on any connection of the pool.
 */
export function queryIn<R extends pg.QueryResultRow = pg.QueryResultRow>(
  pool: pg.Pool,
  text: string,
  values: unknown[],
): Promise<pg.QueryResult<R>> {
  const db = transactionClient.getStore() ?? pool;
  return db.query<R>(text, values).then(
    (result) => {
      answered(pool);
      return result;
    },
    (error: unknown) => unavailable(error, pool),
  );
}

/**
 * Runs `work` in one transaction on a connection of its own, on which every store query made
 * by `work` runs (AsyncLocalStorage, so the stores need no connection passed around): COMMIT
 * when it resolves, ROLLBACK when it throws (and the error goes on). Inside a transaction
 * already, `work` joins it. A connection whose ROLLBACK failed is not returned to the pool, nor
 * one the database stopped answering on: a timed-out statement may still hold it, and a ROLLBACK
 * queued behind it would wait a second timeout. Closing it ends the transaction on the server.
 */
export async function inTransaction<R>(pool: pg.Pool, work: () => Promise<R>): Promise<R> {
  if (transactionClient.getStore() !== undefined) return work();
  const client = await pool.connect().catch((error: unknown) => unavailable(error, pool));
  let broken: Error | undefined;
  try {
    await client.query('BEGIN').catch((error: unknown) => unavailable(error, pool));
    const result = await transactionClient.run(client, work);
    await client.query('COMMIT').catch((error: unknown) => unavailable(error, pool));
    return result;
  } catch (error) {
    if (isDatabaseUnavailableAnswer(error)) {
      broken = error;
      throw error;
    }
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/** The table's rows as the records in their `doc` column, positions read from the rows. */
function documents<T>(rows: KeysetDataSource<Row>): KeysetDataSource<T> {
  const rowOf = new WeakMap<object, Row>();
  const records = (list: readonly Row[]): T[] =>
    list.map((row) => {
      const record = row.doc as T & object;
      rowOf.set(record, row);
      return record;
    });
  // A filter value with U+0000 matches no row (no stored text holds it); PostgreSQL would refuse
  // the parameter, and the in-memory store answers an empty page.
  const matchesNothing = (query: CollectionQuery) =>
    Object.values(query.filters).some((value) => containsNul(value));
  return {
    count: (query) => (matchesNothing(query) ? 0 : rows.count(query)),
    fetchPage: async (query) => (matchesNothing(query) ? [] : records(await rows.fetchPage(query))),
    fetchAfter: async (query, after) =>
      matchesNothing(query) ? [] : records(await rows.fetchAfter(query, after)),
    positionOf(record: T, query: CollectionQuery): KeysetPosition {
      const row = rowOf.get(record as T & object);
      if (row === undefined) throw new TypeError('PgRecords: a record not read by this source');
      return rows.positionOf(row, query);
    },
  };
}
