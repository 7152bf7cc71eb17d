/**
 * @module The representations the example answers with, as schemas: the resources' create
 * schemas (which the routes validate with) extended by the fields the service computes.
 */
import { z } from 'zod';
import { ActionNote, AgreementCreate } from '../resources/billing-agreements.js';
import { BillingAddress, CreditCardCreate } from '../resources/credit-cards.js';
import { CustomerCreate } from '../resources/customers.js';
import { DecisionRequest } from '../resources/risk.js';
import { EventType, WebhookCreate } from '../resources/webhooks.js';

export const LinkSchema = z.object({
  href: z.url(),
  rel: z.string(),
  method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
});

const envelope = {
  id: z.string(),
  create_time: z.iso.datetime(),
  update_time: z.iso.datetime(),
  links: z.array(LinkSchema),
};

export const CreditCardRepresentation = CreditCardCreate.extend({
  ...envelope,
  number: z.string().regex(/^x*\d{4}$/, 'masked: every digit but the last four is x'),
  state: z.enum(['ok']),
  valid_until: z.iso.datetime(),
});

/** The list form of a card: no billing address. */
export const CreditCardSummary = CreditCardRepresentation.omit({ billing_address: true });

export const CustomerRepresentation = CustomerCreate.extend(envelope);

export const WebhookRepresentation = WebhookCreate.extend(envelope);

export const BillingAgreementRepresentation = AgreementCreate.extend({
  ...envelope,
  state: z.enum(['ACTIVE', 'SUSPENDED']),
});

/** One call of `suspend` or `re-activate`, as the agreement's history lists it. */
export const AgreementActionRecord = z.object({
  id: z.string(),
  action: z.enum(['suspend', 're-activate']),
  outcome: z.enum(['STATE_CHANGED', 'NO_CHANGE']),
  request: ActionNote,
  state_before: z.enum(['ACTIVE', 'SUSPENDED']),
  state_after: z.enum(['ACTIVE', 'SUSPENDED']),
  actor: z.string().optional(),
  create_time: z.iso.datetime(),
});

/** An amount as the service answers it: a decimal string in the currency's minor unit. */
export const MoneySchema = z.object({
  total: z.string().regex(/^-?\d{1,15}(\.\d{1,3})?$/),
  currency: z.string().regex(/^[A-Z]{3}$/),
});

export const PaymentRepresentation = z.object({
  ...envelope,
  intent: z.enum(['sale']),
  state: z.enum(['approved']),
  amount: MoneySchema,
});

export const CaptureRepresentation = z.object({
  ...envelope,
  parent_payment: z.string(),
  amount: MoneySchema,
  refunded_amount: MoneySchema,
  remaining_amount: MoneySchema,
  state: z.enum(['completed', 'partially_refunded', 'refunded']),
});

export const RefundRepresentation = z.object({
  ...envelope,
  state: z.enum(['completed']),
  amount: MoneySchema,
  capture_id: z.string(),
  parent_payment: z.string(),
});

export const PaymentDecisionRepresentation = DecisionRequest.extend({
  ...envelope,
  status: z.enum(['APPROVED']),
});

export const EvaluationResult = z.object({ status: z.enum(['VALID']) });

/** The refund summary, computed on every read. */
export const RefundSummaryRepresentation = z.object({
  currency: z.string(),
  start_time: z.iso.datetime({ offset: true }).optional(),
  end_time: z.iso.datetime({ offset: true }).optional(),
  capture_count: z.number().int().min(0),
  refund_count: z.number().int().min(0),
  captured_amount: MoneySchema,
  refunded_amount: MoneySchema,
  remaining_amount: MoneySchema,
});

export { BillingAddress, EventType };
