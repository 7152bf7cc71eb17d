/**
 * @module Billing agreements: `/payments/billing-agreements`, the `suspend` action (a
 * sub-resource action, spec "Complex operations") and the `history` of its calls.
 */
import { memoryDataSource, paginate, searchCollection } from '@resourceful/collection-pagination';
import { jsonPatchUpdate } from '@resourceful/json-patch-update';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { type Link, link } from '../links.js';
import type { ListDefaults } from '../lists.js';
import type { MemoryCollection, StoredRecord } from '../memory-collection.js';
import { updateOptions } from '../resource-updates.js';
import { findOr404, sendCreated } from '../responses.js';
import { BillingAddress } from './credit-cards.js';

export const COLLECTION_PATH = '/payments/billing-agreements';

export const AgreementCreate = z.object({
  description: z.string().min(1).max(500),
  shipping_address: BillingAddress.optional(),
});

export const SuspendRequest = z.object({ note: z.string().max(500).optional() });

export const SEARCH_PATH = '/payments/search-billing-agreements';

/** Search criteria; `status` is the agreement's `state` (spec: search filter `status: ACTIVE`). */
export const AgreementSearch = z
  .object({
    status: z.enum(['ACTIVE', 'SUSPENDED']).optional(),
    description: z.string().min(1).max(200).optional(),
    create_time_before: z.iso.datetime({ offset: true }).optional(),
    create_time_after: z.iso.datetime({ offset: true }).optional(),
  })
  .strict();

type AgreementCriteria = z.infer<typeof AgreementSearch>;

function matches(agreement: StoredAgreement, criteria: AgreementCriteria): boolean {
  const created = Date.parse(agreement.create_time);
  return (
    (criteria.status === undefined || agreement.state === criteria.status) &&
    (criteria.description === undefined ||
      agreement.description.toLowerCase().includes(criteria.description.toLowerCase())) &&
    (criteria.create_time_before === undefined ||
      created < Date.parse(criteria.create_time_before)) &&
    (criteria.create_time_after === undefined || created > Date.parse(criteria.create_time_after))
  );
}

export type AgreementInput = z.infer<typeof AgreementCreate>;
export type AgreementState = 'ACTIVE' | 'SUSPENDED';

export interface HistoryEntry {
  id: string;
  action: 'suspend';
  note?: string;
  state_before: AgreementState;
  state_after: AgreementState;
  create_time: string;
}

export interface StoredAgreement extends StoredRecord, AgreementInput {
  state: AgreementState;
  history: HistoryEntry[];
}

const HistoryEntrySchema = z.object({
  id: z.string(),
  action: z.literal('suspend'),
  note: z.string().optional(),
  state_before: z.enum(['ACTIVE', 'SUSPENDED']),
  state_after: z.enum(['ACTIVE', 'SUSPENDED']),
  create_time: z.string(),
});

/** The whole stored agreement, as PATCH produces it; `state` and `history` are read-only. */
export const StoredAgreementSchema = AgreementCreate.extend({
  id: z.string(),
  state: z.enum(['ACTIVE', 'SUSPENDED']),
  history: z.array(HistoryEntrySchema),
  create_time: z.string(),
  update_time: z.string(),
});

export function agreementPath(id: string): string {
  return `/v1${COLLECTION_PATH}/${encodeURIComponent(id)}`;
}

export function newAgreement(id: string, input: AgreementInput, now: string): StoredAgreement {
  return { id, state: 'ACTIVE', ...input, create_time: now, update_time: now, history: [] };
}

export function toRepresentation(req: Request, agreement: StoredAgreement) {
  const { history: _history, ...fields } = agreement;
  const path = agreementPath(agreement.id);
  const links: Link[] = [link(req, path, 'self'), link(req, path, 'patch', 'PATCH')];
  // Offered only where it would change the state; calling it anyway answers 204.
  if (agreement.state === 'ACTIVE') links.push(link(req, `${path}/suspend`, 'suspend', 'POST'));
  links.push(link(req, `${path}/history`, 'history'));
  return { ...fields, links };
}

export function findAgreement(agreements: MemoryCollection<StoredAgreement>, id: string) {
  return findOr404(agreements, id, 'billing agreement', 'agreement_id');
}

export interface AgreementRoutesOptions {
  router: Router;
  lists: ListDefaults;
  agreements: MemoryCollection<StoredAgreement>;
  now: () => Date;
}

export function mountBillingAgreements({ router, lists, agreements, now }: AgreementRoutesOptions) {
  router.get(
    COLLECTION_PATH,
    paginate({
      ...lists,
      source: memoryDataSource(() => agreements.all()),
      sortable: ['create_time', 'update_time'],
      defaultSort: { by: 'create_time', order: 'desc' },
      filterable: ['state'],
      timeSelectable: ['create_time'],
      summary: (agreement, req) => toRepresentation(req as Request, agreement),
    }),
  );

  // Search (spec: "Complex operations"): criteria in the body, paging in the query, links that
  // repeat the POST.
  router.post(
    SEARCH_PATH,
    searchCollection({
      ...lists,
      criteria: AgreementSearch,
      source: (criteria) =>
        memoryDataSource(() =>
          agreements.all().filter((agreement) => matches(agreement, criteria)),
        ),
      summary: (agreement, req) => toRepresentation(req as Request, agreement),
    }),
  );

  router.post(COLLECTION_PATH, (req: Request, res: Response) => {
    const input = AgreementCreate.parse(req.body);
    const agreement = agreements.set(newAgreement(agreements.newId(), input, now().toISOString()));
    sendCreated(req, res, toRepresentation(req, agreement));
  });

  router.get(`${COLLECTION_PATH}/:id`, (req: Request, res: Response) => {
    res.json(toRepresentation(req, findAgreement(agreements, String(req.params.id))));
  });

  // Simple changes stay on PATCH (spec: description, shipping_address); the state changes only
  // through the suspend action, so that every change is in the history.
  router.patch(
    `${COLLECTION_PATH}/:id`,
    jsonPatchUpdate(
      updateOptions({
        collection: agreements,
        schema: StoredAgreementSchema,
        represent: toRepresentation,
        readOnly: ['state', 'history'],
        now,
      }),
    ),
  );

  // Every call of an action, oldest first (spec: "its history can be read with GET").
  router.get(
    `${COLLECTION_PATH}/:id/history`,
    paginate({
      ...lists,
      source: (req) =>
        memoryDataSource(findAgreement(agreements, String((req as Request).params.id)).history),
      filterable: ['action'],
      timeSelectable: ['create_time'],
    }),
  );

  // Spec: 200 with the resource when the state changed, 204 when it did not. Every call is
  // recorded in the agreement's history, including the ones that changed nothing.
  router.post(`${COLLECTION_PATH}/:id/suspend`, (req: Request, res: Response) => {
    const agreement = findAgreement(agreements, String(req.params.id));
    const { note } = SuspendRequest.parse(req.body ?? {});
    const time = now().toISOString();
    const before = agreement.state;
    const entry: HistoryEntry = {
      id: `${agreement.id}-H${agreement.history.length + 1}`,
      action: 'suspend',
      state_before: before,
      state_after: 'SUSPENDED',
      create_time: time,
    };
    if (note !== undefined) entry.note = note;
    agreement.history.push(entry);
    if (before === 'SUSPENDED') {
      res.status(204).end();
      return;
    }
    agreement.state = 'SUSPENDED';
    agreement.update_time = time;
    res.status(200).json(toRepresentation(req, agreement));
  });
}
