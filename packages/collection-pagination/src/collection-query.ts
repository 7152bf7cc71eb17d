/**
 * @module Where the parsed list parameters of a request are kept: on `req.collectionQuery` (typed
 * on Express's request only), and readable through `getCollectionQuery(req)` with node:http types.
 */
import type { IncomingMessage } from 'node:http';
import type { CollectionQuery } from './types.js';

type WithQuery = IncomingMessage & { collectionQuery?: CollectionQuery };

export function setCollectionQuery(req: IncomingMessage, query: CollectionQuery): void {
  (req as WithQuery).collectionQuery = query;
}

/**
 * The list parameters `paginate()` or `searchCollection()` parsed for this request, or
 * `undefined` when neither ran for it.
 */
export function getCollectionQuery(req: IncomingMessage): CollectionQuery | undefined {
  return (req as WithQuery).collectionQuery;
}
