/**
 * @module The representations the example answers with, as schemas: the resources' create
 * schemas (which the routes validate with) extended by the fields the service computes.
 */
import { z } from 'zod';
import { BillingAddress, CreditCardCreate } from '../resources/credit-cards.js';
import { CustomerCreate } from '../resources/customers.js';
import { WebhookCreate } from '../resources/webhooks.js';

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

export { BillingAddress };
