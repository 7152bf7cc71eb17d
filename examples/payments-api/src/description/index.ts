/**
 * @module The payments API described once (`@resourceful/api-description`): the OpenAPI
 * document, the GraphQL schema and the documentation page are all generated from this.
 */
import { describeApi } from '@resourceful/api-description';
import {
  CARD_LIST,
  CARD_READ_ONLY,
  COLLECTION_PATH as CARDS,
  CreditCardCreate,
} from '../resources/credit-cards.js';
import {
  CUSTOMER_LIST,
  COLLECTION_PATH as CUSTOMERS,
  CustomerCreate,
} from '../resources/customers.js';
import { WEBHOOK_LIST, COLLECTION_PATH as WEBHOOKS, WebhookCreate } from '../resources/webhooks.js';
import {
  CreditCardRepresentation,
  CreditCardSummary,
  CustomerRepresentation,
  WebhookRepresentation,
} from './schemas.js';

function listOf(list: {
  readonly sortable: readonly string[];
  readonly filterable: readonly string[];
  readonly timeSelectable: readonly string[];
}) {
  return {
    sortable: list.sortable,
    filterable: list.filterable,
    timeSelectable: list.timeSelectable,
  };
}

export const paymentsApi = describeApi({
  title: 'Resourceful payments API',
  version: '1.0.0',
  pathVersion: 'v1',
  summary: 'The example service of Resourceful: every convention working end to end.',
  resources: [
    {
      name: 'CreditCard',
      path: CARDS,
      summary: 'A stored payment card; the number is masked on output and read-only after create.',
      representation: CreditCardRepresentation,
      readOnly: [...CARD_READ_ONLY],
      example: {
        payer_id: 'user12345',
        type: 'visa',
        number: '4111111111111111',
        expire_month: '11',
        expire_year: '2031',
        first_name: 'Betsy',
        last_name: 'Buyer',
        billing_address: {
          line1: '111 First Street',
          city: 'Saratoga',
          country_code: 'US',
          postal_code: '95070',
        },
      },
      deprecated: {
        'type.maestro': 'Maestro is being retired by Mastercard; new cards are mastercard.',
      },
      operations: {
        list: { ...listOf(CARD_LIST), summary: CreditCardSummary },
        create: CreditCardCreate,
        read: true,
        replace: true,
        patch: true,
        delete: true,
      },
    },
    {
      name: 'Customer',
      path: CUSTOMERS,
      summary: 'A customer of a merchant.',
      representation: CustomerRepresentation,
      example: {
        merchant_customer_id: 'cust-1001',
        merchant_id: 'MERCHANT-7',
        first_name: 'Ada',
        last_name: 'Lovelace',
      },
      operations: {
        list: listOf(CUSTOMER_LIST),
        create: CustomerCreate,
        read: true,
        replace: true,
        patch: true,
        delete: true,
      },
    },
    {
      name: 'Webhook',
      path: WEBHOOKS,
      summary: 'A URL notified of the event types it subscribes to.',
      representation: WebhookRepresentation,
      example: {
        url: 'https://merchant.test/hooks/payments',
        event_types: [{ name: 'PAYMENT.CAPTURE.COMPLETED' }, { name: 'PAYMENT.CAPTURE.REFUNDED' }],
      },
      operations: {
        list: listOf(WEBHOOK_LIST),
        create: WebhookCreate,
        read: true,
        // PATCH creates a webhook with the client's id when none exists (upsert).
        patch: true,
        delete: true,
      },
    },
  ],
});
