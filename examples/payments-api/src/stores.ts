/**
 * @module Every collection of the example, and the actions' history: in memory, or, with a
 * database, all of them in PostgreSQL, so that instances sharing it keep every guarantee.
 */
import { type HistoryStore, memoryHistoryStore } from '@resourceful/resource-operations';
import type { AppDatabase } from './database/app-database.js';
import { migrate, quotedSchema } from './database/migrate.js';
import { pgHistoryStore } from './database/pg-history.js';
import { inTransaction, PgRecords, queryIn } from './database/pg-records.js';
import { MemoryCollection } from './memory-collection.js';
import type { ListedRecordStore, RecordStore, StoredRecord } from './record-store.js';
import type { StoredAgreement } from './resources/billing-agreements.js';
import { CARD_LIST, type StoredCard } from './resources/credit-cards.js';
import { CUSTOMER_LIST, type StoredCustomer } from './resources/customers.js';
import type { StoredCapture, StoredPayment, StoredRefund } from './resources/refunds.js';
import type { StoredDecision } from './resources/risk.js';
import { type StoredWebhook, WEBHOOK_LIST } from './resources/webhooks.js';

export interface Stores {
  cards: RecordStore<StoredCard>;
  customers: RecordStore<StoredCustomer>;
  agreements: ListedRecordStore<StoredAgreement>;
  webhooks: RecordStore<StoredWebhook>;
  payments: RecordStore<StoredPayment>;
  captures: ListedRecordStore<StoredCapture>;
  refunds: ListedRecordStore<StoredRefund>;
  decisions: RecordStore<StoredDecision>;
  /** The billing agreement actions' history. */
  agreementHistory: HistoryStore;
  /**
   * Runs `work` so that all the writes it makes through the stores are kept or none (a refund
   * and its capture's new refunded amount; an agreement's new state and its history record).
   * PostgreSQL: one transaction, rolled back when `work` throws (a compare-and-set that lost, a
   * failed insert, a lost connection), and no other call sees its writes before the commit. In
   * memory: `work` runs as it is, under the process's lock; there is nothing durable a crash
   * between two writes could leave half done.
   */
  transaction<R>(work: () => Promise<R>): Promise<R>;
  /**
   * Runs `work` (storing the seed records) unless a store shared with other instances has
   * recorded it already. PostgreSQL: the record (`seed_runs`, migration 3) and the writes of
   * `work` are one transaction, so instances starting together seed once, and an instance
   * starting later does not bring back a seed record a client deleted. In memory: every new
   * app's stores are empty, so `work` runs.
   */
  seedOnce(work: () => Promise<void>): Promise<void>;
}

/** The name the seed is recorded under in `seed_runs`. */
const SEED_NAME = 'payments-api';

/** The properties a list sorts, filters or selects by time: the table's columns. */
function listColumns(list: {
  sortable: readonly string[];
  filterable: readonly string[];
  timeSelectable: readonly string[];
}): string[] {
  return [...new Set([...list.sortable, ...list.filterable, ...list.timeSelectable])];
}

export function createStores(database?: AppDatabase): Stores {
  const table = <T extends StoredCard | StoredCustomer | StoredWebhook>(
    name: string,
    prefix: string,
    list: Parameters<typeof listColumns>[0],
    nullable: readonly string[] = [],
  ): RecordStore<T> =>
    database === undefined
      ? new MemoryCollection<T>(prefix)
      : new PgRecords<T>({
          ...database,
          table: name,
          prefix,
          columns: listColumns(list),
          nullable,
        });
  // The tables of migration 2: listed in creation order, in process (see ListedRecordStore).
  const listed = <T extends StoredRecord>(
    name: string,
    prefix: string,
    columns: readonly string[],
  ): ListedRecordStore<T> =>
    database === undefined
      ? new MemoryCollection<T>(prefix)
      : new PgRecords<T>({
          ...database,
          table: name,
          prefix,
          columns: ['create_time', 'update_time', ...columns],
        });
  return {
    cards: table<StoredCard>('cards', 'CARD', CARD_LIST, ['last_name']),
    customers: table<StoredCustomer>('customers', 'CUST', CUSTOMER_LIST, ['last_name']),
    agreements: listed<StoredAgreement>('agreements', 'AGREEMENT', ['state']),
    webhooks: table<StoredWebhook>('webhooks', 'WH', WEBHOOK_LIST),
    payments: listed<StoredPayment>('payments', 'PAY', []),
    captures: listed<StoredCapture>('captures', 'CAPTURE', ['parent_payment', 'state']),
    refunds: listed<StoredRefund>('refunds', 'REFUND', ['capture_id']),
    decisions: listed<StoredDecision>('decisions', 'DECISION', []),
    agreementHistory:
      database === undefined
        ? memoryHistoryStore()
        : pgHistoryStore(database.pool, database.schema),
    transaction:
      database === undefined ? (work) => work() : (work) => inTransaction(database.pool, work),
    seedOnce:
      database === undefined
        ? (work) => work()
        : (work) =>
            inTransaction(database.pool, async () => {
              // A second instance waits here for the first one's transaction, then finds the row.
              const { rowCount } = await queryIn(
                database.pool,
                `INSERT INTO ${quotedSchema(database.schema)}.seed_runs (name) VALUES ($1) ON CONFLICT DO NOTHING`,
                [SEED_NAME],
              );
              if (rowCount === 1) await work();
            }),
  };
}

/** Creates and migrates the database's tables; nothing to do in memory. */
export async function prepareStores(database: AppDatabase | undefined): Promise<void> {
  if (database !== undefined) await migrate(database.pool, database.schema);
}
