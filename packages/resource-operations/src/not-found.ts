/**
 * @module Loading the record a path names, or the 404 envelope naming its path parameter.
 */
import { ApiError } from '@resourceful/error-envelope';
import type { MaybePromise, NotFoundOptions, OperationRequest } from './types.js';

/** A record by id; `undefined` or `null` when there is none (404). */
export type Loader<T> = (id: string, req: OperationRequest) => MaybePromise<T | null | undefined>;

export function loaderOr404<T>(
  load: Loader<T>,
  parameter: string,
  notFound: NotFoundOptions | undefined,
): (id: string, req: OperationRequest) => Promise<T> {
  const message = notFound?.message ?? 'The resource does not exist.';
  const target = notFound?.target ?? parameter;
  return async function loadOr404(id, req) {
    // `null` is "not found" too: what Prisma's `findUnique`, many drivers and JSON stores answer.
    const record = await load(id, req);
    if (record === undefined || record === null) throw ApiError.notFound(message, { target });
    return record;
  };
}
