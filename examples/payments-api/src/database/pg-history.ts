/**
 * @module The actions' history in PostgreSQL (`action_history`, migration 2): resource-operations'
 * `HistoryStore`, shared by every instance. Ordered as the memory store's contract says: newest
 * call first without a sort; sorted by `create_time`, calls of one millisecond by their call
 * number `n`, both in the query's direction.
 */
import type { CollectionQuery, DataSource } from '@resourceful/collection-pagination';
import { StaleVersionError } from '@resourceful/conditional-requests';
import type { ActionRecord, HistoryStore } from '@resourceful/resource-operations';
import type pg from 'pg';
import { quotedSchema } from './migrate.js';
import { queryIn } from './pg-records.js';

/** The history list's declared properties and their columns: nothing else reaches the SQL. */
const COLUMNS: Readonly<Record<string, string>> = {
  create_time: 'create_time',
  action: 'action',
  outcome: 'outcome',
};

const OPERATORS = { gt: '>', gte: '>=', lt: '<' } as const;

function column(property: string): string {
  const name = Object.hasOwn(COLUMNS, property) ? COLUMNS[property] : undefined;
  if (name === undefined) throw new TypeError(`pgHistoryStore: "${property}" is not a column.`);
  return name;
}

/** The call number of `{resource id}-H{n}`. */
function callNumber(record: ActionRecord): number {
  const n = Number(record.id.slice(record.id.lastIndexOf('-H') + 2));
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new TypeError(`pgHistoryStore: the record id ${record.id} has no call number.`);
  }
  return n;
}

export function pgHistoryStore(pool: pg.Pool, schema: string): HistoryStore {
  const table = `${quotedSchema(schema)}.action_history`;
  const query = <R extends pg.QueryResultRow>(text: string, values: unknown[]) =>
    queryIn<R>(pool, text, values);

  /** WHERE of one resource's records and the query's filters and time conditions. */
  function where(resourceId: string, collection: CollectionQuery): [string, unknown[]] {
    const values: unknown[] = [resourceId];
    const clauses = ['resource_id = $1'];
    for (const [property, value] of Object.entries(collection.filters)) {
      values.push(value);
      clauses.push(`${column(property)} = $${values.length}`);
    }
    for (const condition of collection.time) {
      values.push(condition.value);
      clauses.push(
        `${column(condition.property)} ${OPERATORS[condition.operator]} $${values.length}`,
      );
    }
    return [` WHERE ${clauses.join(' AND ')}`, values];
  }

  return {
    async count(resourceId) {
      const { rows } = await query<{ count: number }>(
        `SELECT count(*)::int AS count FROM ${table} WHERE resource_id = $1`,
        [resourceId],
      );
      return rows[0]?.count ?? 0;
    },
    async append(resourceId, record) {
      // Only after the record it follows, and only when that record left the state this one
      // starts from (`doc` is json, its text as written, so the state's text compares): a call
      // that loaded the resource before a change recorded meanwhile does not land after it.
      const { rowCount } = await query(
        `INSERT INTO ${table} (resource_id, n, doc, create_time, action, outcome)
         SELECT $1, $2, $3, $4, $5, $6
         WHERE $2 = 1 OR EXISTS (
           SELECT 1 FROM ${table}
           WHERE resource_id = $1 AND n = $2 - 1 AND (doc -> 'state_after')::text = $7
         )
         ON CONFLICT (resource_id, n) DO NOTHING`,
        [
          resourceId,
          callNumber(record),
          JSON.stringify(record),
          record.create_time,
          record.action,
          record.outcome,
          JSON.stringify(record.state_before),
        ],
      );
      // The number is taken, or the call before it left another state: resource-operations
      // runs the call again or, its change stored, takes the next number.
      if (rowCount !== 1) throw new StaleVersionError();
    },
    source(resourceId): DataSource<ActionRecord> {
      return {
        async count(collection) {
          const [clause, values] = where(resourceId, collection);
          const { rows } = await query<{ count: number }>(
            `SELECT count(*)::int AS count FROM ${table}${clause}`,
            values,
          );
          return rows[0]?.count ?? 0;
        },
        async fetchPage(collection) {
          const [clause, values] = where(resourceId, collection);
          const { sort } = collection;
          const order =
            sort === undefined
              ? 'n DESC'
              : `${column(sort.by)} ${sort.order === 'desc' ? 'DESC' : 'ASC'}, n ${sort.order === 'desc' ? 'DESC' : 'ASC'}`;
          values.push(collection.limit, collection.offset);
          const { rows } = await query<{ doc: ActionRecord }>(
            `SELECT doc FROM ${table}${clause} ORDER BY ${order} LIMIT $${values.length - 1} OFFSET $${values.length}`,
            values,
          );
          return rows.map((row) => row.doc);
        },
      };
    },
  };
}
