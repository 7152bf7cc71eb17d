/**
 * @module The payments API described once (`@resourceful/api-description`): the OpenAPI
 * document, the GraphQL schema and the documentation page are all generated from this, for the
 * configuration the service runs with (continuation tokens or not, PostgreSQL or memory).
 */
import {
  type ApiDescription,
  describeApi,
  type PagingKind,
  type ResourceStorage,
} from '@resourceful/api-description';
import { DEFAULT_MAX_OFFSET } from '@resourceful/collection-pagination-pg';
import {
  ActionNote,
  AGREEMENT_LIST,
  SEARCH_PATH as AGREEMENT_SEARCH,
  COLLECTION_PATH as AGREEMENTS,
  AgreementCreate,
  AgreementSearch,
} from '../resources/billing-agreements.js';
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
import {
  CAPTURE_LIST,
  CAPTURE_REFUND_LIST,
  RefundCreate,
  RefundSummaryQuery,
} from '../resources/refunds.js';
import { DecisionRequest } from '../resources/risk.js';
import {
  EVENT_TYPE_LIST,
  WEBHOOK_LIST,
  COLLECTION_PATH as WEBHOOKS,
  WebhookCreate,
} from '../resources/webhooks.js';
import {
  AgreementActionRecord,
  BillingAgreementRepresentation,
  CaptureRepresentation,
  CreditCardRepresentation,
  CreditCardSummary,
  CustomerRepresentation,
  EvaluationResult,
  EventType,
  PaymentDecisionRepresentation,
  PaymentRepresentation,
  RefundRepresentation,
  RefundSummaryRepresentation,
  WebhookRepresentation,
} from './schemas.js';

/** A list's options as the description takes them (the REST lists also take a default sort). */
function listOf(list: {
  readonly sortable?: readonly string[];
  readonly filterable?: readonly string[];
  readonly timeSelectable?: readonly string[];
}) {
  return {
    sortable: list.sortable ?? [],
    filterable: list.filterable ?? [],
    timeSelectable: list.timeSelectable ?? [],
  };
}

/** The history list of `@resourceful/resource-operations`' sub-resource actions. */
export const HISTORY_LIST = {
  sortable: ['create_time'],
  filterable: ['action', 'outcome'],
  timeSelectable: ['create_time'],
};

/** What the description depends on in the service's configuration. */
export interface PaymentsApiDeployment {
  /**
   * The card, customer and webhook lists hand out continuation tokens (`pageTokenSecrets`, from
   * `PAGE_TOKEN_SECRETS`): only then do they take `page_token` (without, it is a 400).
   */
  readonly pageTokens: boolean;
  /** `external` on PostgreSQL (which can be unreachable: 503 anywhere), else `in-process`. */
  readonly storage: ResourceStorage;
  /**
   * `external` with Redis for `Service-Request-Id` (`REDIS_URL`, `REDIS_CLUSTER_URLS`: the POSTs
   * can answer 503 while it is unreachable), `in-process` with the memory store. @default 'external'
   */
  readonly idempotencyStorage?: ResourceStorage;
}

const described = new Map<string, ApiDescription>();

/** The description of one configuration, built once per process (apps of one kind share it). */
export function describePaymentsApi(deployment: PaymentsApiDeployment): ApiDescription {
  const key = `${deployment.pageTokens} ${deployment.storage} ${deployment.idempotencyStorage ?? 'external'}`;
  let api = described.get(key);
  if (api === undefined) {
    api = describeDeployment(deployment);
    described.set(key, api);
  }
  return api;
}

/** The description of the default configuration: memory, offset paging only. */
export const paymentsApi = describePaymentsApi({
  pageTokens: false,
  storage: 'in-process',
  idempotencyStorage: 'in-process',
});

function describeDeployment({
  pageTokens,
  storage,
  idempotencyStorage,
}: PaymentsApiDeployment): ApiDescription {
  // The lists whose routes get keysetListDefaults (src/lists.ts): tokens beside both conventions.
  // Their stores serve offsets up to collection-pagination-pg's maxOffset (memory as well, so
  // both answer alike: src/memory-collection.ts).
  const keyset: { paging?: PagingKind[]; maxOffset: number } = pageTokens
    ? { paging: ['page', 'offset', 'token'], maxOffset: DEFAULT_MAX_OFFSET }
    : { maxOffset: DEFAULT_MAX_OFFSET };
  return describeApi({
    title: 'Resourceful payments API',
    version: '1.0.0',
    pathVersion: 'v1',
    summary: 'The example service of Resourceful: every convention working end to end.',
    storage,
    ...(idempotencyStorage === undefined ? {} : { idempotencyStorage }),
    resources: [
      {
        name: 'CreditCard',
        path: CARDS,
        summary:
          'A stored payment card; the number is masked on output and read-only after create.',
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
          list: { ...listOf(CARD_LIST), ...keyset, summary: CreditCardSummary },
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
          list: { ...listOf(CUSTOMER_LIST), ...keyset },
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
          event_types: [
            { name: 'PAYMENT.CAPTURE.COMPLETED' },
            { name: 'PAYMENT.CAPTURE.REFUNDED' },
          ],
        },
        operations: {
          list: { ...listOf(WEBHOOK_LIST), ...keyset },
          create: WebhookCreate,
          read: true,
          // PATCH creates a webhook with the client's id when none exists (upsert).
          patch: { upsert: true },
          delete: true,
        },
        subCollections: [
          {
            name: 'event-types',
            summary:
              'The event types the webhook subscribes to, described in English, or in French with `Accept-Language: fr`.',
            items: { name: 'EventType', schema: EventType },
            list: listOf(EVENT_TYPE_LIST),
          },
        ],
      },
      {
        name: 'BillingAgreement',
        path: AGREEMENTS,
        summary:
          'A billing agreement; its state changes only through the suspend and re-activate actions, each recorded in its history.',
        representation: BillingAgreementRepresentation,
        readOnly: ['state'],
        example: {
          description: 'Monthly plan, billed on the first',
          shipping_address: {
            line1: '111 First Street',
            city: 'Saratoga',
            country_code: 'US',
            postal_code: '95070',
          },
        },
        operations: {
          list: listOf(AGREEMENT_LIST),
          create: AgreementCreate,
          read: true,
          patch: true,
        },
        actions: [
          {
            name: 'suspend',
            summary:
              'Suspend an active agreement: 200 with the agreement, or 204 when it was suspended already.',
            body: ActionNote,
            example: { note: 'Customer asked for a pause.' },
          },
          {
            name: 're-activate',
            summary:
              'Re-activate a suspended agreement: 200 with the agreement, or 204 when it was active already.',
            body: ActionNote,
            example: { note: 'Pause over.' },
          },
        ],
        subCollections: [
          {
            name: 'history',
            summary: 'Every call of the agreement’s actions, newest first.',
            items: { name: 'BillingAgreementActionRecord', schema: AgreementActionRecord },
            list: HISTORY_LIST,
          },
        ],
        search: {
          path: AGREEMENT_SEARCH,
          summary: 'Search billing agreements by state, description and creation time.',
          criteria: AgreementSearch,
          example: { status: 'ACTIVE', create_time_before: '2030-01-01T00:00:00Z' },
        },
      },
      {
        name: 'Payment',
        path: '/payments/payments',
        summary: 'A payment; its captures are listed at /v1/payments/captures?parent_payment={id}.',
        representation: PaymentRepresentation,
        operations: { read: true },
      },
      {
        name: 'Capture',
        path: '/payments/captures',
        summary:
          'Captured money of a payment (seeded); its refunds change its state from completed to partially_refunded to refunded.',
        representation: CaptureRepresentation,
        operations: { list: listOf(CAPTURE_LIST), read: true },
        subCollections: [
          {
            name: 'refunds',
            summary: 'The refunds of the capture, oldest first.',
            items: 'Refund',
            list: listOf(CAPTURE_REFUND_LIST),
          },
        ],
      },
      {
        name: 'Refund',
        path: '/payments/refunds',
        summary:
          'A refund of (part of) a capture, created by POST /v1/payments/captures/{id}/refund.',
        representation: RefundRepresentation,
        operations: { read: true },
      },
      {
        name: 'PaymentDecision',
        path: '/risk/decisions',
        summary: 'A recorded risk decision on a payment code.',
        representation: PaymentDecisionRepresentation,
        operations: { read: true },
      },
    ],
    operations: [
      {
        operationId: 'refundCapture',
        method: 'POST',
        path: '/payments/captures/{capture_id}/refund',
        summary:
          'Refund (part of) a capture: creates a refund and updates the capture, atomically (composite operation). Without `amount` (an empty object or no body), refunds all of the capture not yet refunded.',
        kind: 'composite',
        body: RefundCreate,
        example: { amount: { total: '1.00', currency: 'USD' } },
        response: RefundRepresentation,
        creates: 'Refund',
      },
      {
        operationId: 'createPaymentDecision',
        method: 'POST',
        path: '/risk/decisions',
        summary: 'Decide on a payment code; the decision is kept (resource-oriented operation).',
        kind: 'resource-oriented',
        body: DecisionRequest,
        example: { code: 'RISK-CHECK-1' },
        response: PaymentDecisionRepresentation,
        creates: 'PaymentDecision',
      },
      {
        operationId: 'evaluatePayment',
        method: 'POST',
        path: '/risk/evaluate',
        summary: 'Evaluate a payment code; nothing is kept (transient operation).',
        kind: 'transient',
        body: DecisionRequest,
        example: { code: 'RISK-CHECK-1' },
        response: EvaluationResult,
        responseName: 'Evaluation',
      },
      {
        operationId: 'refundSummary',
        method: 'GET',
        path: '/payments/refund-summary',
        summary:
          'Totals of the captures of one currency created between start_time and end_time, and of their refunds (read-only computed resource).',
        kind: 'computed',
        query: RefundSummaryQuery,
        example: { currency: 'USD' },
        response: RefundSummaryRepresentation,
        responseName: 'RefundSummary',
      },
    ],
  });
}
