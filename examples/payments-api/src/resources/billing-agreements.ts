/**
 * @module Billing agreements: `/payments/billing-agreements`, the `suspend` and `re-activate`
 * actions (sub-resource actions, spec "Complex operations") and the `history` of their calls,
 * declared with @resourceful/resource-operations.
 */
import { memoryDataSource, paginate, searchCollection } from '@resourceful/collection-pagination';
import { asyncHandler } from '@resourceful/error-envelope';
import { jsonPatchUpdate } from '@resourceful/json-patch-update';
import {
  type HistoryStore,
  type OperationRequest,
  type SubResourceActions,
  subResourceActions,
} from '@resourceful/resource-operations';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { createKey } from '../create-keys.js';
import { type Link, link } from '../links.js';
import type { ListDefaults } from '../lists.js';
import type { ListedRecordStore, StoredRecord } from '../record-store.js';
import { checkCreateBody, checkedJsonBody } from '../require-json.js';
import { updateOptions } from '../resource-updates.js';
import { findRecordOr404, sendCreated } from '../responses.js';
import { unstorableReason } from '../storable-strings.js';
import { BillingAddress } from './credit-cards.js';

export const COLLECTION_PATH = '/payments/billing-agreements';

export const AgreementCreate = z.object({
  description: z.string().min(1).max(500),
  shipping_address: BillingAddress.optional(),
});

/**
 * The body of `suspend` and `re-activate`: an optional note, kept in the history, so held to the
 * rule of every stored string (no U+0000, no lone surrogate: PostgreSQL's json operators refuse
 * both, and the next action, checked against this record, would fail).
 */
export const ActionNote = z
  .object({
    note: z
      .string()
      .max(500)
      .check((ctx) => {
        const reason = unstorableReason(ctx.value);
        if (reason !== undefined)
          ctx.issues.push({ code: 'custom', message: reason, input: ctx.value });
      })
      .optional(),
  })
  .strict();

/** What an agreement list accepts; the REST list and the API description both read it. */
export const AGREEMENT_LIST = {
  sortable: ['create_time', 'update_time'],
  filterable: ['state'],
  timeSelectable: ['create_time'],
  defaultSort: { by: 'create_time', order: 'desc' },
} as const;

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

/** Whether an agreement meets search criteria (the search route's filter, also GraphQL's). */
export function matchesCriteria(agreement: StoredAgreement, criteria: AgreementCriteria): boolean {
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

export interface StoredAgreement extends StoredRecord, AgreementInput {
  state: AgreementState;
}

/**
 * The whole stored agreement, as PATCH produces it, in `newAgreement`'s key order; `state` is
 * read-only.
 */
export const StoredAgreementSchema = z.object({
  id: z.string(),
  state: z.enum(['ACTIVE', 'SUSPENDED']),
  ...AgreementCreate.shape,
  create_time: z.string(),
  update_time: z.string(),
});

export function agreementPath(id: string): string {
  return `/v1${COLLECTION_PATH}/${encodeURIComponent(id)}`;
}

export function newAgreement(id: string, input: AgreementInput, now: string): StoredAgreement {
  return { id, state: 'ACTIVE', ...input, create_time: now, update_time: now };
}

export function findAgreement(agreements: ListedRecordStore<StoredAgreement>, id: string) {
  return findRecordOr404(agreements, id, 'billing agreement', 'agreement_id');
}

export interface AgreementRoutesOptions {
  router: Router;
  lists: ListDefaults;
  agreements: ListedRecordStore<StoredAgreement>;
  now: () => Date;
  /** Where the actions' history is kept (GraphQL reads it too). @default in memory */
  history?: HistoryStore;
  /** Keeps an agreement's new state and its history record together (see `Stores`). */
  transaction?: <R>(work: () => Promise<R>) => Promise<R>;
}

/** The agreement as GET answers it: its links offer the actions possible now, then `history`. */
export function agreementRepresentation(
  req: Request | OperationRequest,
  agreement: StoredAgreement,
  actions: SubResourceActions<StoredAgreement>,
) {
  const path = agreementPath(agreement.id);
  const links: Link[] = [
    link(req as Request, path, 'self'),
    link(req as Request, path, 'patch', 'PATCH'),
    // `suspend` while ACTIVE, `re-activate` while SUSPENDED; then `history`.
    ...actions.links(req, agreement),
  ];
  return { ...agreement, links };
}

/**
 * The agreement's state change by one action; `false` (204) when it is already there. Saved over
 * the version loaded: a database store refuses it when another instance changed the agreement.
 */
async function moveTo(
  agreements: ListedRecordStore<StoredAgreement>,
  agreement: StoredAgreement,
  state: AgreementState,
  time: Date,
): Promise<boolean> {
  if (agreement.state === state) return false;
  await agreements.save({ ...agreement, state, update_time: time.toISOString() }, agreement);
  return true;
}

/** Mounts the agreement routes; returns the actions' declaration for `mountOperations`. */
export function mountBillingAgreements({
  router,
  lists,
  agreements,
  now,
  history,
  transaction,
}: AgreementRoutesOptions): SubResourceActions<StoredAgreement> {
  function toRepresentation(req: Request | OperationRequest, agreement: StoredAgreement) {
    return agreementRepresentation(req, agreement, actions);
  }

  // Simple changes stay on PATCH (spec, rule 3: description, shipping_address); the state
  // changes only through the actions, so that every change of state is in the history.
  const actions: SubResourceActions<StoredAgreement> = subResourceActions({
    ...(lists.publicBaseUrl === undefined ? {} : { publicBaseUrl: lists.publicBaseUrl }),
    resource: `${COLLECTION_PATH}/:id`,
    load: (id) => agreements.get(id),
    notFound: { message: 'The billing agreement does not exist.', target: 'agreement_id' },
    represent: (agreement, req) => toRepresentation(req, agreement),
    state: (agreement) => agreement.state,
    ...(history === undefined ? {} : { historyStore: history }),
    // In memory the process's lock keeps calls apart; in PostgreSQL the store's compare-and-set,
    // and the state change and its record commit together.
    compareAndSet: agreements.compareAndSet,
    ...(transaction === undefined ? {} : { transaction }),
    historyPaging: { allowedParameters: lists.allowedParameters ?? [] },
    now,
    actions: {
      suspend: {
        body: ActionNote,
        available: (agreement) => agreement.state === 'ACTIVE',
        perform: ({ resource, now: time }) => moveTo(agreements, resource, 'SUSPENDED', time),
      },
      're-activate': {
        body: ActionNote,
        available: (agreement) => agreement.state === 'SUSPENDED',
        perform: ({ resource, now: time }) => moveTo(agreements, resource, 'ACTIVE', time),
      },
    },
  });

  router.get(
    COLLECTION_PATH,
    paginate({
      ...lists,
      source: async () => memoryDataSource(await agreements.all()),
      ...AGREEMENT_LIST,
      summary: (agreement, req) => toRepresentation(req as Request, agreement),
    }),
  );

  // Search (spec: "Complex operations"): criteria in the body, paging in the query, links that
  // repeat the POST.
  router.post(
    SEARCH_PATH,
    checkedJsonBody,
    searchCollection({
      ...lists,
      criteria: AgreementSearch,
      source: async (criteria) =>
        memoryDataSource(
          (await agreements.all()).filter((agreement) => matchesCriteria(agreement, criteria)),
        ),
      summary: (agreement, req) => toRepresentation(req as Request, agreement),
    }),
  );

  router.post(
    COLLECTION_PATH,
    checkedJsonBody,
    asyncHandler(async (req: Request, res: Response) => {
      const input = AgreementCreate.parse(req.body);
      const record = newAgreement(agreements.newId(), input, now().toISOString());
      checkCreateBody(req.body, input, toRepresentation(req, record));
      const agreement = await agreements.insert(record, createKey(req));
      sendCreated(req, res, toRepresentation(req, agreement));
    }),
  );

  router.get(
    `${COLLECTION_PATH}/:id`,
    asyncHandler(async (req: Request, res: Response) => {
      res.json(toRepresentation(req, await findAgreement(agreements, String(req.params.id))));
    }),
  );

  router.patch(
    `${COLLECTION_PATH}/:id`,
    jsonPatchUpdate(
      updateOptions({
        collection: agreements,
        schema: StoredAgreementSchema,
        represent: toRepresentation,
        readOnly: ['state'],
        now,
      }),
    ),
  );

  return actions;
}
