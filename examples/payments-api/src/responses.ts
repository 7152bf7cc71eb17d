/**
 * @module Small answers every resource gives the same way.
 */
import { ApiError } from '@resourceful/error-envelope';
import { sendPreferred } from '@resourceful/prefer-header';
import type { Request, Response } from 'express';
import type { Link } from './links.js';
import type { MemoryCollection, StoredRecord } from './memory-collection.js';
import type { RecordStore } from './record-store.js';

/** The record, or a 404 envelope naming the path parameter. */
export function findOr404<T extends StoredRecord>(
  collection: MemoryCollection<T>,
  id: string,
  label: string,
  target: string,
): T {
  const record = collection.get(id);
  if (record === undefined) throw ApiError.notFound(`The ${label} does not exist.`, { target });
  return record;
}

/** `findOr404` for a store that may be a database. */
export async function findRecordOr404<T extends StoredRecord>(
  store: RecordStore<T>,
  id: string,
  label: string,
  target: string,
): Promise<T> {
  const record = await store.get(id);
  if (record === undefined) throw ApiError.notFound(`The ${label} does not exist.`, { target });
  return record;
}

/**
 * 201 with `Location` set to the body's `self` link (spec: "Create"); the body unless the client
 * sent `Prefer: return=minimal`.
 */
export function sendCreated(req: Request, res: Response, body: { links: Link[] }): void {
  const self = body.links.find((link) => link.rel === 'self');
  if (self !== undefined) res.location(self.href);
  sendPreferred(req, res, { operation: 'create', body });
}
