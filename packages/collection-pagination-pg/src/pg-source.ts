/**
 * @module `pgDataSource(options)`: a `KeysetDataSource` over one PostgreSQL table or view, for
 * `paginate()`. Counts and pages in the database; `fetchAfter` pages by keyset for continuation
 * tokens, so a deep page costs what the first does.
 */
import type {
  CollectionQuery,
  KeysetDataSource,
  KeysetPosition,
  KeyValue,
} from '@resourceful/collection-pagination';
import { ApiError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  invalidOption,
  OPTION_ERROR_CODES,
  optionError,
  positiveIntegerOption,
} from '@resourceful/option-checks';
import { clientValueError, unavailableError } from './errors.js';
import { quotedIdentifier, quotedTableName } from './identifiers.js';
import {
  type Column,
  type Columns,
  keysetCondition,
  orderBy,
  Parameters,
  POSITION_FIELD,
  selection,
  selectList,
  where,
} from './sql.js';

/**
 * What the source sends queries to: a `pg.Pool`, a `pg.Client` or a checked-out `PoolClient`
 * (typed structurally, so any driver with node-postgres's `query(text, values)` fits).
 */
export interface Queryable {
  query(text: string, values: unknown[]): Promise<{ rows: unknown[] }>;
}

/** A column name, or a column that may hold NULL. */
export type ColumnOption = string | { readonly column: string; readonly nullable?: boolean };

export interface PgDataSourceOptions {
  /** Where queries go: a `pg.Pool` (usual), a `pg.Client` or a `PoolClient`. */
  pool: Queryable;
  /** The table or view, optionally schema-qualified: `cards`, `vault.cards`. */
  table: string;
  /** The unique column every order ends with (the tie-breaker), usually the primary key. */
  key: string;
  /**
   * The allow-list: property name (as the route declares it sortable, filterable or
   * time-selectable) → column name, or `{ column, nullable: true }` for a column that may hold
   * NULL (keyset paging then continues among the NULLs). A property not listed is never put in
   * SQL.
   */
  columns: Readonly<Record<string, ColumnOption>>;
  /**
   * The deepest `offset` (or `(page - 1) * page_size`) answered; deeper is a 400 naming the
   * position parameter. An offset costs O(offset) in any SQL database; continuation tokens do
   * not. @default 10000 (as Elasticsearch's `index.max_result_window`)
   */
  maxOffset?: number;
}

const OPTION_KEYS = ['pool', 'table', 'key', 'columns', 'maxOffset'] as const;
export const DEFAULT_MAX_OFFSET = 10_000;

/**
 * A data source over a PostgreSQL table: `paginate({ source: pgDataSource({ pool, table: 'cards',
 * key: 'id', columns: { create_time: 'create_time', state: 'state' } }), … })`. Rows are returned
 * as node-postgres reads them (`summary` maps them to their list form).
 */
export function pgDataSource<Row extends object = Record<string, unknown>>(
  options: PgDataSourceOptions,
): KeysetDataSource<Row> {
  const factory = 'pgDataSource';
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, OPTION_KEYS);
  const { pool } = options;
  if (typeof pool !== 'object' || pool === null || typeof pool.query !== 'function') {
    invalidOption(
      factory,
      'pool',
      'a pg.Pool, pg.Client or anything with query(text, values)',
      pool,
    );
  }
  const table = quotedTableName(factory, options.table);
  const keyColumn = quotedIdentifier(factory, 'key', options.key);
  const keyName = options.key;
  const columns: Columns = {
    byProperty: resolveColumns(factory, options.columns),
    key: keyColumn,
    table: options.table,
  };
  const maxOffset = positiveIntegerOption(
    factory,
    'maxOffset',
    options.maxOffset,
    DEFAULT_MAX_OFFSET,
  );
  // Property → row field, to read a position back from a returned row.
  const fieldOf = new Map(
    Object.entries(options.columns).map(([property, option]) => [
      property,
      typeof option === 'string' ? option : option.column,
    ]),
  );

  async function run(text: string, params: Parameters, query: CollectionQuery) {
    try {
      return (await pool.query(text, params.values)).rows;
    } catch (error) {
      throw clientValueError(error, query) ?? unavailableError(error) ?? error;
    }
  }

  // The exact text of each returned row's sort value, kept beside the row rather than in it.
  const positions = new WeakMap<object, string | null>();
  async function page(text: string, params: Parameters, query: CollectionQuery) {
    const rows = (await run(text, params, query)) as Record<string, unknown>[];
    for (const row of rows) {
      if (!Object.hasOwn(row, POSITION_FIELD)) continue;
      const position = row[POSITION_FIELD];
      positions.set(row, typeof position === 'string' ? position : null);
      delete row[POSITION_FIELD];
    }
    return rows as unknown as Row[];
  }

  return {
    async count(query) {
      const params = new Parameters();
      const clauses = selection(query, columns, params);
      const rows = await run(
        `SELECT count(*) AS total FROM ${table}${where(clauses)}`,
        params,
        query,
      );
      // count(*) is a bigint, which node-postgres reads as a string.
      return Number((rows[0] as { total: string | number }).total);
    },

    async fetchPage(query) {
      if (query.offset > maxOffset) {
        const parameter = query.paging.position;
        throw ApiError.invalidRequest(
          `The query parameter "${parameter}" reaches past record ${maxOffset}; follow the "next" links to page deeper.`,
          { target: parameter, innererror: { code: 'OFFSET_TOO_LARGE' } },
        );
      }
      const params = new Parameters();
      const clauses = selection(query, columns, params);
      const text = `SELECT ${selectList(query, columns)} FROM ${table}${where(clauses)} ${orderBy(query, columns)} LIMIT ${params.add(query.limit)} OFFSET ${params.add(query.offset)}`;
      return page(text, params, query);
    },

    async fetchAfter(query, after) {
      const params = new Parameters();
      const clauses = selection(query, columns, params);
      if (after !== undefined) clauses.push(keysetCondition(query, columns, after, params));
      const text = `SELECT ${selectList(query, columns)} FROM ${table}${where(clauses)} ${orderBy(query, columns)} LIMIT ${params.add(query.limit)}`;
      return page(text, params, query);
    },

    positionOf(row, query): KeysetPosition {
      const record = row as Record<string, unknown>;
      const id = record[keyName];
      if (typeof id !== 'string' && typeof id !== 'number') {
        throw new TypeError(
          `pgDataSource: the key column "${keyName}" must be selected and read as a string or number.`,
        );
      }
      if (query.sort === undefined) return { key: null, id };
      if (positions.has(row)) return { key: positions.get(row) ?? null, id };
      const field = fieldOf.get(query.sort.by);
      const value = field === undefined ? undefined : record[field];
      return { key: (value ?? null) as KeyValue, id };
    },
  };
}

const PROPERTY_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const FORBIDDEN_PROPERTIES = new Set(['constructor', 'prototype']);

function resolveColumns(factory: string, value: unknown): ReadonlyMap<string, Column> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    invalidOption(factory, 'columns', 'an object from property name to column name', value);
  }
  const entries = Object.entries(value);
  if (entries.length === 0) {
    // A source that maps nothing can only page by key: every property a route declares would
    // fail on its first request instead.
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      factory,
      '"columns" must map at least one property to its column (every property the route declares sortable, filterable or time-selectable), got an empty object.',
      'columns',
    );
  }
  const resolved = new Map<string, Column>();
  for (const [property, option] of entries) {
    // The names collection-pagination accepts in sortable, filterable and timeSelectable: any
    // other key could never be reached by a query, so it is a mistake in the configuration.
    if (!PROPERTY_NAME.test(property) || FORBIDDEN_PROPERTIES.has(property)) {
      invalidOption(
        factory,
        'columns',
        'an object keyed by property names (a letter, then letters, digits or underscores)',
        property,
      );
    }
    if (typeof option === 'string') {
      resolved.set(property, {
        sql: quotedIdentifier(factory, `columns.${property}`, option),
        nullable: false,
      });
    } else if (typeof option === 'object' && option !== null) {
      assertKnownOptions(factory, option, ['column', 'nullable'], `columns.${property}`);
      const { column, nullable } = option as { column?: unknown; nullable?: unknown };
      if (nullable !== undefined && typeof nullable !== 'boolean') {
        invalidOption(factory, `columns.${property}.nullable`, 'a boolean', nullable);
      }
      resolved.set(property, {
        sql: quotedIdentifier(factory, `columns.${property}.column`, column),
        nullable: nullable === true,
      });
    } else {
      invalidOption(
        factory,
        `columns.${property}`,
        'a column name or { column, nullable }',
        option,
      );
    }
  }
  return resolved;
}
