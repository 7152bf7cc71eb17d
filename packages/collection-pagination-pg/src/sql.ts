/**
 * @module The SQL of one page: WHERE from filters, time conditions and a keyset position, ORDER BY
 * from the sort, each value a bound parameter (`$n`), each identifier from the allow-list.
 */
import type {
  CollectionQuery,
  KeysetPosition,
  TimeCondition,
} from '@resourceful/collection-pagination';
import { OPTION_ERROR_CODES, type OptionError, optionError } from '@resourceful/option-checks';

/** A resolved column: its quoted identifier and whether it may hold NULL. */
export interface Column {
  readonly sql: string;
  readonly nullable: boolean;
}

export interface Columns {
  /** Property name → column; the allow-list for sorting, filtering and time selection. */
  readonly byProperty: ReadonlyMap<string, Column>;
  /** The unique tie-breaker (the primary key). */
  readonly key: string;
  /** The `table` option as given, for error messages only. */
  readonly table: string;
}

const OPERATORS: Readonly<Record<TimeCondition['operator'], string>> = {
  gt: '>',
  gte: '>=',
  lt: '<',
};

/** Collects bound values; `add` returns the placeholder. */
export class Parameters {
  readonly values: unknown[] = [];
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

function column(columns: Columns, property: string): Column {
  const found = columns.byProperty.get(property);
  if (found === undefined) throw unmappedProperty(columns, property);
  return found;
}

/**
 * The route declared a property (sortable, filterable or time-selectable) that the source does
 * not map: the app's configuration bug, not the client's, so not an ApiError (a 500 once it
 * reaches the error handler, which logs this message). The data source never sees the route's
 * declarations (collection-pagination's `DataSource` contract has no hook for them), so it can
 * only tell when a query first names the property. The error is the conflicting-options error
 * of every Resourceful factory, naming `columns`.
 */
function unmappedProperty(columns: Columns, property: string): OptionError {
  return optionError(
    OPTION_ERROR_CODES.conflictingOptions,
    'pgDataSource',
    `the route sorts, filters or selects by time on "${property}", which "columns" of the source over table "${columns.table}" does not map; add "${property}" to "columns", or take it out of the route's sortable, filterable and timeSelectable.`,
    'columns',
  );
}

/** The conditions of filters and time selection, joined with AND. */
export function selection(query: CollectionQuery, columns: Columns, params: Parameters): string[] {
  const clauses: string[] = [];
  for (const property of Object.keys(query.filters)) {
    clauses.push(`${column(columns, property).sql} = ${params.add(query.filters[property])}`);
  }
  for (const condition of query.time) {
    const { sql } = column(columns, condition.property);
    clauses.push(`${sql} ${OPERATORS[condition.operator]} ${params.add(condition.value)}`);
  }
  return clauses;
}

/**
 * Records strictly after `after` in the order `(sort column, key)`, both in the sort's
 * direction. NULLs sort last ascending and first descending (PostgreSQL's default, which the
 * ORDER BY keeps), so a position on a NULL key continues among the NULLs.
 */
export function keysetCondition(
  query: CollectionQuery,
  columns: Columns,
  after: KeysetPosition,
  params: Parameters,
): string {
  const descending = query.sort?.order === 'desc';
  const beyond = descending ? '<' : '>';
  const key = columns.key;
  if (query.sort === undefined) return `${key} ${beyond} ${params.add(after.id)}`;
  const sort = column(columns, query.sort.by);
  if (after.key === null) {
    const amongNulls = `(${sort.sql} IS NULL AND ${key} ${beyond} ${params.add(after.id)})`;
    // Descending, the NULLs come first: every non-NULL value is still ahead.
    return descending ? `(${amongNulls} OR ${sort.sql} IS NOT NULL)` : amongNulls;
  }
  const value = params.add(after.key);
  const id = params.add(after.id);
  // A row comparison walks an index on (column, key) directly (PostgreSQL "9.24.5. Row
  // Constructor Comparison").
  const past = `(${sort.sql}, ${key}) ${beyond} (${value}, ${id})`;
  return sort.nullable && !descending ? `(${past} OR ${sort.sql} IS NULL)` : past;
}

/**
 * The select list: every column, and the sort column's text form, which carries its full
 * precision into a continuation token (a `timestamptz` read as a JavaScript `Date` would lose
 * its microseconds; the text is parsed back exactly when compared with the column).
 */
export function selectList(query: CollectionQuery, columns: Columns): string {
  if (query.sort === undefined) return '*';
  return `*, ${column(columns, query.sort.by).sql}::text AS ${POSITION_FIELD}`;
}

/** The field of each row that holds the sort column's text; taken off the row once read. */
export const POSITION_FIELD = '__resourceful_position';

export function orderBy(query: CollectionQuery, columns: Columns): string {
  const direction = query.sort?.order === 'desc' ? 'DESC' : 'ASC';
  if (query.sort === undefined) return `ORDER BY ${columns.key} ${direction}`;
  return `ORDER BY ${column(columns, query.sort.by).sql} ${direction}, ${columns.key} ${direction}`;
}

export function where(clauses: readonly string[]): string {
  return clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`;
}
