/**
 * @module PATCH, PUT and DELETE of a stored resource, through json-patch-update and
 * conditional-requests: one definition per resource, so the ETag a GET sends is the one PATCH,
 * PUT and DELETE check.
 */
import { conditionalWrite, etagFor } from '@resourceful/conditional-requests';
import { asyncHandler } from '@resourceful/error-envelope';
import type { ResourceUpdateOptions, StandardSchemaV1 } from '@resourceful/json-patch-update';
import type { NextFunction, Request, Response } from 'express';
import type { RecordStore, StoredRecord } from './record-store.js';
import { MAX_BODY_BYTES } from './server-limits.js';

export interface UpdatableResource<T extends StoredRecord> {
  collection: RecordStore<T>;
  /** The whole stored shape, computed fields included; its output is what gets stored. */
  schema: StandardSchemaV1<unknown, T>;
  /** What GET sends for the record; PATCH and PUT answers use it too. */
  represent: (req: Request, record: T) => unknown;
  /** Read-only fields besides id, create_time and update_time. */
  readOnly?: readonly string[];
  now: () => Date;
}

/** The options json-patch-update's `jsonPatchUpdate` and `putReplace` share for a resource. */
export function updateOptions<T extends StoredRecord>(
  resource: UpdatableResource<T>,
): ResourceUpdateOptions<T> {
  const { collection, schema, represent, readOnly = [], now } = resource;
  return {
    load: (id) => collection.get(id),
    // A database store compares and sets (across instances); memory takes the process's lock.
    save: (record, { previous }) => collection.save(record, previous),
    compareAndSet: collection.compareAndSet,
    schema,
    readOnly,
    represent: (record, req) => represent(req as Request, record),
    now,
    maxBodyBytes: MAX_BODY_BYTES,
  };
}

/**
 * DELETE: 204, also when the record is already gone (spec: a repeated DELETE is not a 404).
 * `If-Match` is honoured under the same lock PATCH and PUT take, or by the store's
 * compare-and-set.
 */
export function deleteHandler<T extends StoredRecord>(
  resource: UpdatableResource<T>,
): (req: Request, res: Response, next: NextFunction) => void {
  const { collection, represent } = resource;
  return asyncHandler(async (req: Request, res: Response) => {
    const id = String(req.params.id);
    await conditionalWrite(req, {
      // The lock PATCH and PUT take for this record (json-patch-update locks by the id).
      identity: id,
      compareAndSet: collection.compareAndSet,
      load: () => collection.get(id),
      etag: (record) => etagFor(represent(req, record)),
      ifMissing: 'proceed',
      write: async (current) => {
        if (current !== undefined) await collection.remove(current);
      },
    });
    res.status(204).end();
  });
}
