/**
 * @module Every collection of the example: in memory, or, with a database, the resources that
 * clients change with `If-Match` (cards, customers, webhooks) in PostgreSQL.
 */
import type { AppDatabase } from './database/app-database.js';
import { migrate } from './database/migrate.js';
import { PgRecords } from './database/pg-records.js';
import { MemoryCollection } from './memory-collection.js';
import type { RecordStore } from './record-store.js';
import type { StoredAgreement } from './resources/billing-agreements.js';
import { CARD_LIST, type StoredCard } from './resources/credit-cards.js';
import { CUSTOMER_LIST, type StoredCustomer } from './resources/customers.js';
import type { StoredCapture, StoredPayment, StoredRefund } from './resources/refunds.js';
import type { StoredDecision } from './resources/risk.js';
import { type StoredWebhook, WEBHOOK_LIST } from './resources/webhooks.js';

export interface Stores {
  cards: RecordStore<StoredCard>;
  customers: RecordStore<StoredCustomer>;
  agreements: MemoryCollection<StoredAgreement>;
  webhooks: RecordStore<StoredWebhook>;
  payments: MemoryCollection<StoredPayment>;
  captures: MemoryCollection<StoredCapture>;
  refunds: MemoryCollection<StoredRefund>;
  decisions: MemoryCollection<StoredDecision>;
}

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
  return {
    cards: table<StoredCard>('cards', 'CARD', CARD_LIST, ['last_name']),
    customers: table<StoredCustomer>('customers', 'CUST', CUSTOMER_LIST, ['last_name']),
    agreements: new MemoryCollection('AGREEMENT'),
    webhooks: table<StoredWebhook>('webhooks', 'WH', WEBHOOK_LIST),
    payments: new MemoryCollection('PAY'),
    captures: new MemoryCollection('CAPTURE'),
    refunds: new MemoryCollection('REFUND'),
    decisions: new MemoryCollection('DECISION'),
  };
}

/** Creates and migrates the database's tables; nothing to do in memory. */
export async function prepareStores(database: AppDatabase | undefined): Promise<void> {
  if (database !== undefined) await migrate(database.pool, database.schema);
}
