/**
 * @module Every collection of the example, in memory.
 */
import { MemoryCollection } from './memory-collection.js';
import type { StoredAgreement } from './resources/billing-agreements.js';
import type { StoredCard } from './resources/credit-cards.js';
import type { StoredCustomer } from './resources/customers.js';
import type { StoredCapture, StoredPayment, StoredRefund } from './resources/refunds.js';
import type { StoredDecision } from './resources/risk.js';
import type { StoredWebhook } from './resources/webhooks.js';

export interface Stores {
  cards: MemoryCollection<StoredCard>;
  customers: MemoryCollection<StoredCustomer>;
  agreements: MemoryCollection<StoredAgreement>;
  webhooks: MemoryCollection<StoredWebhook>;
  payments: MemoryCollection<StoredPayment>;
  captures: MemoryCollection<StoredCapture>;
  refunds: MemoryCollection<StoredRefund>;
  decisions: MemoryCollection<StoredDecision>;
}

export function createStores(): Stores {
  return {
    cards: new MemoryCollection('CARD'),
    customers: new MemoryCollection('CUST'),
    agreements: new MemoryCollection('AGREEMENT'),
    webhooks: new MemoryCollection('WH'),
    payments: new MemoryCollection('PAY'),
    captures: new MemoryCollection('CAPTURE'),
    refunds: new MemoryCollection('REFUND'),
    decisions: new MemoryCollection('DECISION'),
  };
}
