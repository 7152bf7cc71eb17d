import { z } from 'zod';
import { describeApi, type ResourceStorage } from '../src/index.js';

const link = z.object({ href: z.string(), rel: z.string(), method: z.string().optional() });
const address = z.object({ line1: z.string(), city: z.string(), country_code: z.string() });

export const CardCreate = z.object({
  payer_id: z.string().min(1),
  type: z.enum(['visa', 'mastercard']),
  number: z.string().regex(/^\d{12,19}$/),
  first_name: z.string().optional(),
  billing_address: address.optional(),
});

export const Card = CardCreate.extend({
  id: z.string(),
  state: z.enum(['ok', 'expired']),
  create_time: z.iso.datetime(),
  update_time: z.iso.datetime(),
  links: z.array(link),
});

export const Decision = z.object({
  id: z.string(),
  code: z.string(),
  status: z.enum(['APPROVED']),
  create_time: z.iso.datetime(),
  update_time: z.iso.datetime(),
  links: z.array(link),
});

export const EventType = z.object({ name: z.string(), description: z.string().optional() });

/**
 * The cards API. `tokens`: the card list and the card's decisions also page by continuation
 * token (the event types do not); `storage` and `idempotencyStorage` as `describeApi` takes them.
 */
export function exampleApi(
  deployment: {
    tokens?: boolean;
    storage?: ResourceStorage;
    idempotencyStorage?: ResourceStorage;
  } = {},
) {
  return describeApi({
    title: 'Cards',
    version: '1.0.0',
    pathVersion: 'v1',
    ...(deployment.storage === undefined ? {} : { storage: deployment.storage }),
    ...(deployment.idempotencyStorage === undefined
      ? {}
      : { idempotencyStorage: deployment.idempotencyStorage }),
    resources: [
      {
        name: 'CreditCard',
        path: '/vault/credit-cards',
        summary: 'Stored payment cards.',
        representation: Card,
        readOnly: ['number', 'state'],
        deprecated: { first_name: 'Use billing_address.', 'state.expired': 'Cards are deleted.' },
        operations: {
          list: {
            sortable: ['create_time'],
            filterable: ['state'],
            timeSelectable: ['create_time'],
            ...(deployment.tokens ? { paging: ['page', 'offset', 'token'] as const } : {}),
            totals: 'on-request',
          },
          create: CardCreate,
          read: true,
          replace: { upsert: true },
          patch: true,
          delete: true,
        },
        example: { payer_id: 'user1', type: 'visa', number: '4111111111111111' },
        actions: [
          {
            name: 're-validate',
            summary: 'Check the card again.',
            body: z.object({ note: z.string() }),
          },
        ],
        subCollections: [
          {
            name: 'decisions',
            summary: 'The decisions taken on the card.',
            items: 'PaymentDecision',
            list: {
              sortable: ['create_time'],
              timeSelectable: ['create_time'],
              ...(deployment.tokens ? { paging: ['offset', 'token'] as const } : {}),
            },
          },
          {
            name: 'event-types',
            summary: 'The event types the card notifies.',
            items: { name: 'EventType', schema: EventType },
            list: { filterable: ['name'], paging: ['page'] },
          },
        ],
        search: {
          path: '/vault/search-credit-cards',
          summary: 'Search cards by state.',
          criteria: z.object({ state: z.enum(['ok', 'expired']).optional() }).strict(),
          example: { state: 'ok' },
        },
      },
      {
        name: 'PaymentDecision',
        path: '/risk/decisions',
        summary: 'Payment decisions.',
        representation: Decision,
        operations: { read: true },
      },
    ],
    operations: [
      {
        operationId: 'createPaymentDecision',
        method: 'POST',
        path: '/risk/decisions',
        summary: 'Decide on a payment.',
        kind: 'resource-oriented',
        body: z.object({ code: z.string() }),
        response: Decision,
        creates: 'PaymentDecision',
      },
      {
        operationId: 'evaluate',
        method: 'POST',
        path: '/risk/evaluate',
        summary: 'Evaluate a code.',
        kind: 'transient',
        body: z.object({ code: z.string() }),
        response: {
          type: 'object',
          properties: { status: { type: 'string', enum: ['VALID'] } },
          required: ['status'],
        },
      },
      {
        operationId: 'getRefundSummary',
        method: 'GET',
        path: '/payments/captures/{capture_id}/refund-summary',
        summary: 'Sum the refunds of a capture.',
        kind: 'computed',
        query: z.object({ currency: z.string().length(3).optional() }),
        example: { currency: 'USD' },
        response: z.object({ total: z.string() }),
      },
    ],
  });
}
