/**
 * @module The key a create stores with its row, so that a retry of a create the database applied
 * after its client was answered (a 503 from a frozen database: the idempotency middleware
 * releases the `Service-Request-Id` on a 5xx) finds that row instead of making a second one.
 *
 * The key is what the idempotency middleware matches a retry by, computed the same way: the id
 * scoped by the caller's credentials (its default principal, a hash of `Authorization`), and the
 * request's fingerprint (method, path and body). A retry with the same id and another body is
 * another request, as it is for the middleware once the id was released.
 */
import { hash } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import {
  authorizationPrincipal,
  DEFAULT_OPTIONS,
  type FingerprintRequest,
  IDEMPOTENCY_KEY_HEADER,
  readRequestId,
  requestFingerprint,
  SERVICE_REQUEST_ID_HEADER,
  scopedKey,
} from '@resourceful/service-request-idempotency';

const ID_NAMES = [SERVICE_REQUEST_ID_HEADER, IDEMPOTENCY_KEY_HEADER];
const READ = {
  names: ID_NAMES,
  query: DEFAULT_OPTIONS.query,
  maxLength: DEFAULT_OPTIONS.maxIdLength,
};

/** What a key is computed from: an Express request has all of it. */
export interface CreateRequest extends FingerprintRequest {
  readonly headers: IncomingHttpHeaders;
}

/**
 * The create key of `req`, or `undefined` without a `Service-Request-Id` (the common request:
 * nothing is hashed). Called by a create's handler, after the middleware accepted the id.
 */
export function createKey(req: CreateRequest): string | undefined {
  const read = readRequestId(req, READ);
  if (read.kind !== 'found') return undefined;
  const scoped = scopedKey(authorizationPrincipal(req), read.id);
  return hash('sha256', `${scoped}\u0000${requestFingerprint(req, ID_NAMES)}`);
}
