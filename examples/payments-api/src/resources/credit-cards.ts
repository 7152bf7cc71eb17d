/**
 * @module Stored payment cards: `/vault/credit-cards` (spec: "Stored payment card").
 */
import { paginate } from '@resourceful/collection-pagination';
import { asyncHandler } from '@resourceful/error-envelope';
import {
  jsonPatchUpdate,
  putReplace,
  type ResourceUpdateOptions,
} from '@resourceful/json-patch-update';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { createKey } from '../create-keys.js';
import { type Link, link } from '../links.js';
import type { ListDefaults } from '../lists.js';
import type { RecordStore, StoredRecord } from '../record-store.js';
import { checkCreateBody, checkedJsonBody } from '../require-json.js';
import { deleteHandler, updateOptions } from '../resource-updates.js';
import { findRecordOr404, sendCreated } from '../responses.js';

export const COLLECTION_PATH = '/vault/credit-cards';

export const BillingAddress = z.object({
  line1: z.string().min(1).max(300),
  city: z.string().min(1).max(120),
  country_code: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code'),
  state: z.string().max(120).optional(),
  postal_code: z.string().max(60).optional(),
});

const month = z.string().regex(/^(0?[1-9]|1[0-2])$/, 'must be a month from 1 to 12');
const year = z.string().regex(/^\d{4}$/, 'must be a four-digit year');

export const CreditCardCreate = z.object({
  payer_id: z.string().min(1).max(256),
  type: z.enum(['visa', 'mastercard', 'amex', 'discover', 'maestro']),
  number: z.string().regex(/^\d{12,19}$/, 'must be 12 to 19 digits'),
  expire_month: month,
  expire_year: year,
  first_name: z.string().min(1).max(100).optional(),
  last_name: z.string().min(1).max(100).optional(),
  billing_address: BillingAddress.optional(),
});

export type CreditCardInput = z.infer<typeof CreditCardCreate>;

/** What a card list accepts; the REST list and the API description both read it. */
export const CARD_LIST = {
  sortable: ['create_time', 'update_time', 'expire_year', 'last_name'],
  filterable: ['payer_id', 'state'],
  timeSelectable: ['create_time'],
  defaultSort: { by: 'create_time', order: 'desc' },
} as const;

export interface StoredCard extends StoredRecord, CreditCardInput {
  state: 'ok';
  valid_until: string;
}

/**
 * The whole card as PATCH and PUT produce it, from the card as a client reads it (`number`
 * masked: see `asShown`). `state` and `valid_until` are computed: a PUT may leave them out, and
 * `valid_until` follows the expiry date whatever was sent. Its keys come in `newCard`'s order,
 * so a card reads the same before and after an update.
 */
export const StoredCardSchema = z
  .object({
    id: z.string(),
    state: z.literal('ok').default('ok'),
    ...CreditCardCreate.shape,
    // The masked number the update started from: read-only, so it cannot have changed, and
    // `asShown` stores the card's own number in its place.
    number: z.string(),
    valid_until: z.string().optional(),
    create_time: z.string(),
    update_time: z.string(),
  })
  .transform(({ create_time, update_time, ...card }): StoredCard => {
    const valid_until = validUntil(card.expire_month, card.expire_year);
    return { ...card, valid_until, create_time, update_time };
  });

/** The number is read-only after create (design: "masked on output and read-only after create"). */
export const CARD_READ_ONLY = ['number', 'state', 'valid_until'] as const;

export interface CreditCard extends Omit<StoredCard, 'number'> {
  number: string;
  links: Link[];
}

// The masks of every stored number's length (12 to 19 digits), made once instead of per card.
const MASKS = Array.from({ length: 16 }, (_, length) => 'x'.repeat(length));

/** PayPal style: every digit but the last four replaced by `x`. */
export function maskNumber(number: string): string {
  const masked = Math.max(0, number.length - 4);
  return (MASKS[masked] ?? 'x'.repeat(masked)) + number.slice(-4);
}

/** The card expires at the end of its expiry month. */
export function validUntil(expireMonth: string, expireYear: string): string {
  const endOfMonth = new Date(Date.UTC(Number(expireYear), Number(expireMonth), 1) - 1000);
  return endOfMonth.toISOString().replace('.000Z', 'Z');
}

// Ids made here (`CARD-` and Crockford base32) need no encoding; a list links 20 of them.
const UNRESERVED = /^[A-Za-z0-9._~-]*$/;

export function cardPath(id: string): string {
  return `/v1${COLLECTION_PATH}/${UNRESERVED.test(id) ? id : encodeURIComponent(id)}`;
}

export function toRepresentation(req: Request, card: StoredCard): CreditCard {
  const path = cardPath(card.id);
  return {
    ...card,
    number: maskNumber(card.number),
    links: [
      link(req, path, 'self'),
      link(req, path, 'delete', 'DELETE'),
      link(req, path, 'replace', 'PUT'),
      link(req, path, 'patch', 'PATCH'),
    ],
  };
}

export interface CardSummary extends Omit<CreditCard, 'billing_address' | 'links'> {
  links: [Link];
}

/** The list form: no billing address, one link. The single card has the rest. */
export function toSummary(req: Request, card: StoredCard): CardSummary {
  // One copy in the card's own key order (as `{ ...rest, number, links }` gives) without the
  // address; object rest and spread made two copies, through V8's slow generic path.
  // for…in walks V8's cached key list of the card's shape (Object.keys allocates an array per
  // card); `Object.hasOwn` keeps enumerable properties of a polluted prototype out.
  const summary: Record<string, unknown> = {};
  for (const key in card) {
    if (key !== 'billing_address' && Object.hasOwn(card, key)) {
      summary[key] = card[key as keyof StoredCard];
    }
  }
  summary.number = maskNumber(card.number);
  summary.links = [link(req, cardPath(card.id), 'self')];
  return summary as unknown as CardSummary;
}

export function newCard(id: string, input: CreditCardInput, now: string): StoredCard {
  return {
    id,
    state: 'ok',
    ...input,
    valid_until: validUntil(input.expire_month, input.expire_year),
    create_time: now,
    update_time: now,
  };
}

export interface CreditCardRoutesOptions {
  router: Router;
  lists: ListDefaults;
  cards: RecordStore<StoredCard>;
  now: () => Date;
}

/**
 * PATCH and PUT start from the card as a client reads it, its number masked, and store the card's
 * own number in place of the mask. A write then judges the number as GET shows it: the masked
 * value sent back (PUT, merge patch) is no change and passes a JSON Patch `test`; the stored
 * number is a change of a read-only field (400) and fails a `test` (409), as any other value.
 * Judged against the stored number instead, each of these writes would tell a client whether a
 * number it guessed is the card's: a 204 for the right one.
 */
function asShown(
  cards: RecordStore<StoredCard>,
  options: ResourceUpdateOptions<StoredCard>,
): ResourceUpdateOptions<StoredCard> {
  const storedCards = new WeakMap<StoredCard, StoredCard>();
  return {
    ...options,
    load: async (id) => {
      const card = await cards.get(id);
      if (card === undefined) return undefined;
      const shown = { ...card, number: maskNumber(card.number) };
      storedCards.set(shown, card);
      return shown;
    },
    save: (card, { previous }) => {
      // Cards are created by POST only (no upsert, no PUT create): every update has a previous.
      const stored = previous === undefined ? undefined : storedCards.get(previous);
      if (stored === undefined) throw new Error(`card ${card.id} was not loaded before its save`);
      return cards.save({ ...card, number: stored.number }, stored);
    },
  };
}

export function findCard(cards: RecordStore<StoredCard>, id: string): Promise<StoredCard> {
  return findRecordOr404(cards, id, 'credit card', 'credit_card_id');
}

export function mountCreditCards({ router, lists, cards, now }: CreditCardRoutesOptions): void {
  router.get(
    COLLECTION_PATH,
    paginate({
      ...lists,
      source: cards.source,
      ...CARD_LIST,
      summary: (card, req) => toSummary(req as Request, card),
    }),
  );

  router.post(
    COLLECTION_PATH,
    checkedJsonBody,
    asyncHandler(async (req: Request, res: Response) => {
      const input = CreditCardCreate.parse(req.body);
      const record = newCard(cards.newId(), input, now().toISOString());
      checkCreateBody(req.body, input, toRepresentation(req, record));
      const card = await cards.insert(record, createKey(req));
      sendCreated(req, res, toRepresentation(req, card));
    }),
  );

  router.get(
    `${COLLECTION_PATH}/:id`,
    asyncHandler(async (req: Request, res: Response) => {
      res.json(toRepresentation(req, await findCard(cards, String(req.params.id))));
    }),
  );

  const resource = {
    collection: cards,
    schema: StoredCardSchema,
    represent: toRepresentation,
    readOnly: CARD_READ_ONLY,
    now,
  };
  const updates = asShown(cards, updateOptions(resource));
  router.patch(`${COLLECTION_PATH}/:id`, jsonPatchUpdate(updates));
  router.put(`${COLLECTION_PATH}/:id`, putReplace(updates));
  router.delete(`${COLLECTION_PATH}/:id`, deleteHandler(resource));
}
