/**
 * @module Customers: `/customers/customers` (spec: "Customer").
 */
import { paginate } from '@resourceful/collection-pagination';
import { asyncHandler } from '@resourceful/error-envelope';
import { jsonPatchUpdate, putReplace } from '@resourceful/json-patch-update';
import type { Request, Response, Router } from 'express';
import { z } from 'zod';
import { createKey } from '../create-keys.js';
import { type Link, link } from '../links.js';
import type { ListDefaults } from '../lists.js';
import type { RecordStore, StoredRecord } from '../record-store.js';
import { checkCreateBody, checkedJsonBody } from '../require-json.js';
import { deleteHandler, updateOptions } from '../resource-updates.js';
import { findRecordOr404, sendCreated } from '../responses.js';

export const COLLECTION_PATH = '/customers/customers';

export const CustomerCreate = z.object({
  merchant_customer_id: z.string().min(1).max(256),
  merchant_id: z.string().min(1).max(256),
  first_name: z.string().min(1).max(100).optional(),
  last_name: z.string().min(1).max(100).optional(),
});

export type CustomerInput = z.infer<typeof CustomerCreate>;

/** What a customer list accepts; the REST list and the API description both read it. */
export const CUSTOMER_LIST = {
  sortable: ['create_time', 'update_time', 'last_name'],
  filterable: ['merchant_id', 'merchant_customer_id'],
  timeSelectable: ['create_time', 'update_time'],
  defaultSort: { by: 'create_time', order: 'desc' },
} as const;
export type StoredCustomer = StoredRecord & CustomerInput;

/** The whole stored customer, as PATCH and PUT produce it, in `newCustomer`'s key order. */
export const StoredCustomerSchema = z.object({
  id: z.string(),
  ...CustomerCreate.shape,
  create_time: z.string(),
  update_time: z.string(),
});

export function customerPath(id: string): string {
  return `/v1${COLLECTION_PATH}/${encodeURIComponent(id)}`;
}

export function newCustomer(id: string, input: CustomerInput, now: string): StoredCustomer {
  return { id, ...input, create_time: now, update_time: now };
}

export function toRepresentation(req: Request, customer: StoredCustomer) {
  const path = customerPath(customer.id);
  const links: Link[] = [
    link(req, path, 'self'),
    link(req, path, 'replace', 'PUT'),
    link(req, path, 'patch', 'PATCH'),
    link(req, path, 'delete', 'DELETE'),
  ];
  return { ...customer, links };
}

export function findCustomer(customers: RecordStore<StoredCustomer>, id: string) {
  return findRecordOr404(customers, id, 'customer', 'customer_id');
}

export interface CustomerRoutesOptions {
  router: Router;
  lists: ListDefaults;
  customers: RecordStore<StoredCustomer>;
  now: () => Date;
}

export function mountCustomers({ router, lists, customers, now }: CustomerRoutesOptions): void {
  router.get(
    COLLECTION_PATH,
    paginate({
      ...lists,
      source: customers.source,
      ...CUSTOMER_LIST,
      summary: (customer, req) => toRepresentation(req as Request, customer),
    }),
  );

  router.post(
    COLLECTION_PATH,
    checkedJsonBody,
    asyncHandler(async (req: Request, res: Response) => {
      const input = CustomerCreate.parse(req.body);
      const record = newCustomer(customers.newId(), input, now().toISOString());
      checkCreateBody(req.body, input, toRepresentation(req, record));
      const customer = await customers.insert(record, createKey(req));
      sendCreated(req, res, toRepresentation(req, customer));
    }),
  );

  router.get(
    `${COLLECTION_PATH}/:id`,
    asyncHandler(async (req: Request, res: Response) => {
      res.json(toRepresentation(req, await findCustomer(customers, String(req.params.id))));
    }),
  );

  const resource = {
    collection: customers,
    schema: StoredCustomerSchema,
    represent: toRepresentation,
    now,
  };
  router.patch(`${COLLECTION_PATH}/:id`, jsonPatchUpdate(updateOptions(resource)));
  router.put(`${COLLECTION_PATH}/:id`, putReplace(updateOptions(resource)));
  router.delete(`${COLLECTION_PATH}/:id`, deleteHandler(resource));
}
