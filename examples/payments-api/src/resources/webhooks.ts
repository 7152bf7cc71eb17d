/**
 * @module Webhooks: `/notifications/webhooks` and the `event-types` sub-collection.
 */

import { memoryDataSource, paginate } from '@resourceful/collection-pagination';
import { getLanguage } from '@resourceful/content-negotiation';
import { ApiError, asyncHandler } from '@resourceful/error-envelope';
import { jsonPatchUpdate } from '@resourceful/json-patch-update';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { createKey } from '../create-keys.js';
import { absoluteUrl, type Link, link } from '../links.js';
import type { ListDefaults } from '../lists.js';
import type { RecordStore, StoredRecord } from '../record-store.js';
import { checkCreateBody, checkedJsonBody } from '../require-json.js';
import { deleteHandler, updateOptions } from '../resource-updates.js';
import { findRecordOr404, sendCreated } from '../responses.js';

export const COLLECTION_PATH = '/notifications/webhooks';

export const EventType = z.object({
  name: z
    .string()
    .regex(/^[A-Z0-9_.*-]{1,100}$/, 'must be an event name like PAYMENT.SALE.COMPLETED'),
  description: z.string().max(500).optional(),
});

export const WebhookCreate = z.object({
  url: z
    .string()
    .max(2048)
    .url()
    .refine((value) => /^https?:\/\//i.test(value), 'must be an http or https URL'),
  event_types: z.array(EventType).min(1).max(50),
});

export type WebhookInput = z.infer<typeof WebhookCreate>;

/** What a webhook list accepts; the REST list and the API description both read it. */
export const WEBHOOK_LIST = {
  sortable: ['create_time', 'update_time', 'url'],
  filterable: ['url'],
  timeSelectable: ['create_time'],
  defaultSort: { by: 'create_time', order: 'desc' },
} as const;
/** What a webhook's event-types list accepts. */
export const EVENT_TYPE_LIST = { sortable: ['name'], filterable: ['name'] } as const;

/** The languages event type descriptions are written in; the first is the default. */
export const EVENT_TYPE_LANGUAGES = ['en', 'fr'] as const;
type EventTypeLanguage = (typeof EVENT_TYPE_LANGUAGES)[number];

/**
 * The service's descriptions of the event types it emits, in each of its languages. An event
 * type the service does not know keeps the description its subscriber gave.
 */
export const EVENT_TYPE_DESCRIPTIONS: Readonly<
  Record<string, Readonly<Record<EventTypeLanguage, string>>>
> = {
  'PAYMENT.SALE.COMPLETED': { en: 'A sale completed.', fr: 'Une vente a été conclue.' },
  'PAYMENT.SALE.REFUNDED': { en: 'A sale was refunded.', fr: 'Une vente a été remboursée.' },
  'PAYMENT.SALE.REVERSED': { en: 'A sale was reversed.', fr: 'Une vente a été contrepassée.' },
  'PAYMENT.CAPTURE.COMPLETED': { en: 'A capture completed.', fr: 'Une capture a été effectuée.' },
  'PAYMENT.CAPTURE.REFUNDED': {
    en: 'A capture was refunded.',
    fr: 'Une capture a été remboursée.',
  },
  'BILLING.SUBSCRIPTION.SUSPENDED': {
    en: 'An agreement was suspended.',
    fr: 'Un accord de facturation a été suspendu.',
  },
  'BILLING.SUBSCRIPTION.RE-ACTIVATED': {
    en: 'An agreement was re-activated.',
    fr: 'Un accord de facturation a été réactivé.',
  },
};

/** An event type with its description in the language negotiated for the request. */
export function localizedEventType(eventType: z.infer<typeof EventType>, req: Request) {
  const descriptions = EVENT_TYPE_DESCRIPTIONS[eventType.name];
  if (descriptions === undefined) return eventType;
  const language = (getLanguage(req) ?? 'en') as EventTypeLanguage;
  return { ...eventType, description: descriptions[language] ?? descriptions.en };
}
export type StoredWebhook = StoredRecord & WebhookInput;

/** The whole stored webhook, as PATCH produces it. */
export const StoredWebhookSchema = z.object({
  id: z.string(),
  ...WebhookCreate.shape,
  create_time: z.string(),
  update_time: z.string(),
});

/** Client-chosen ids (PATCH creates with upsert) are short and URL-safe. */
const CLIENT_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

function webhookIdFrom(req: { params?: Record<string, string | string[] | undefined> }): string {
  const id = req.params?.id;
  if (typeof id !== 'string' || !CLIENT_ID.test(id)) {
    throw ApiError.invalidRequest(
      'A webhook id is 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit.',
      { target: 'webhook_id' },
    );
  }
  return id;
}

export function webhookPath(id: string): string {
  return `/v1${COLLECTION_PATH}/${encodeURIComponent(id)}`;
}

export function newWebhook(id: string, input: WebhookInput, now: string): StoredWebhook {
  return { id, ...input, create_time: now, update_time: now };
}

export function toRepresentation(req: Request, webhook: StoredWebhook) {
  const path = webhookPath(webhook.id);
  const links: Link[] = [
    link(req, path, 'self'),
    link(req, path, 'patch', 'PATCH'),
    link(req, path, 'delete', 'DELETE'),
    link(req, `${path}/event-types`, 'event_types'),
  ];
  return { ...webhook, links };
}

export function findWebhook(webhooks: RecordStore<StoredWebhook>, id: string) {
  return findRecordOr404(webhooks, id, 'webhook', 'webhook_id');
}

export interface WebhookRoutesOptions {
  router: Router;
  lists: ListDefaults;
  webhooks: RecordStore<StoredWebhook>;
  now: () => Date;
}

export function mountWebhooks({ router, lists, webhooks, now }: WebhookRoutesOptions): void {
  router.get(
    COLLECTION_PATH,
    paginate({
      ...lists,
      source: webhooks.source,
      ...WEBHOOK_LIST,
      summary: (webhook, req) => toRepresentation(req as Request, webhook),
    }),
  );

  // The event types of one webhook: a paged sub-collection (by offset: a webhook holds at
  // most 50, so no continuation tokens).
  const { continuation: _tokens, ...eventTypeLists } = lists;
  router.get(
    `${COLLECTION_PATH}/:id/event-types`,
    paginate({
      ...eventTypeLists,
      source: async (req) =>
        memoryDataSource(
          (await findWebhook(webhooks, String((req as Request).params.id))).event_types,
        ),
      ...EVENT_TYPE_LIST,
      // Descriptions in English, or French for Accept-Language: fr (with Content-Language).
      summary: (eventType, req) => localizedEventType(eventType, req as Request),
    }),
  );

  router.post(
    COLLECTION_PATH,
    checkedJsonBody,
    asyncHandler(async (req: Request, res: Response) => {
      const input = WebhookCreate.parse(req.body);
      const record = newWebhook(webhooks.newId(), input, now().toISOString());
      checkCreateBody(req.body, input, toRepresentation(req, record));
      const webhook = await webhooks.insert(record, createKey(req));
      sendCreated(req, res, toRepresentation(req, webhook));
    }),
  );

  router.get(
    `${COLLECTION_PATH}/:id`,
    asyncHandler(async (req: Request, res: Response) => {
      res.json(toRepresentation(req, await findWebhook(webhooks, String(req.params.id))));
    }),
  );

  const resource = {
    collection: webhooks,
    schema: StoredWebhookSchema,
    represent: toRepresentation,
    now,
  };
  // Upsert (the spec's other convention): PATCH of a missing webhook creates it, unless the
  // request carries If-Match; If-None-Match: * makes it create-only.
  router.patch(
    `${COLLECTION_PATH}/:id`,
    jsonPatchUpdate({
      ...updateOptions(resource),
      upsert: true,
      id: webhookIdFrom,
      location: (webhook, req) => absoluteUrl(req as Request, webhookPath(webhook.id)),
    }),
  );
  router.delete(`${COLLECTION_PATH}/:id`, deleteHandler(resource));
}
