/**
 * @module PostgreSQL errors a client's value can cause, as 400 envelopes. A filter is compared
 * with its column's own type (so indexes apply): a value that type cannot read (`?expire_year=x`
 * on an integer column) makes PostgreSQL refuse the statement with a data exception (SQLSTATE
 * class 22) before anything runs. A database that cannot be reached (connection refused or lost,
 * a server shutting down or refusing connections, a statement cancelled by `statement_timeout`)
 * is a 503 with `Retry-After`; nothing else is translated.
 * @see https://www.postgresql.org/docs/current/errcodes-appendix.html
 */

import type { CollectionQuery } from '@resourceful/collection-pagination';
import { ApiError } from '@resourceful/error-envelope';

/**
 * The filter a data exception is about: the one whose value PostgreSQL quotes; for a NUL
 * character, which no PostgreSQL text holds and whose error (SQLSTATE 22021, "invalid byte
 * sequence … 0x00") quotes no value, the one holding it; else the first.
 */
export function clientValueError(error: unknown, query: CollectionQuery): ApiError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('22')) return undefined;
  const names = Object.keys(query.filters);
  if (names.length === 0) return undefined;
  const message = String((error as { message?: unknown }).message ?? '');
  const target =
    names.find((name) => message.includes(`"${query.filters[name]}"`)) ??
    (code === '22021' ? names.find((name) => query.filters[name]!.includes('\0')) : undefined) ??
    names[0]!;
  return ApiError.invalidRequest(
    `The query parameter "${target}" is not a valid value for this property.`,
    { target, innererror: { code: 'INVALID_FILTER_VALUE' } },
  );
}

/** `Retry-After` of the 503 answered while the database cannot be reached, in seconds. */
export const DATABASE_RETRY_AFTER_SECONDS = 1;

// Socket errors of a connection that could not be made or was lost (Node's errno codes).
const CONNECTION_ERRNOS = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// SQLSTATE of a server that is going away or refusing sessions: admin_shutdown,
// crash_shutdown, cannot_connect_now, too_many_connections; and query_canceled, what
// `statement_timeout` (which the README recommends) raises: the database is too slow now, the
// request itself may succeed in a moment. Class 08 is connection_exception.
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300', '57014']);

// node-postgres throws these without a code: a connection ended under a query, a pool's
// `connectionTimeoutMillis` reached, or a client's `query_timeout` reached.
const CONNECTION_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^Client has encountered a connection error/,
];

/**
 * The 503 of a database that cannot be reached, or `undefined` for any other error. The cause
 * is kept for the error handler's log; the client learns only that it may retry.
 */
export function unavailableError(error: unknown): ApiError | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, message } = error as { code?: unknown; message?: unknown };
  const reachable =
    typeof code === 'string'
      ? !(CONNECTION_ERRNOS.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))
      : !(typeof message === 'string' && CONNECTION_MESSAGES.some((re) => re.test(message)));
  if (reachable) return undefined;
  return ApiError.serviceUnavailable('The collection cannot be read now; retry later.', {
    retryAfter: DATABASE_RETRY_AFTER_SECONDS,
    cause: error,
    innererror: { code: 'DATABASE_UNAVAILABLE' },
  });
}
