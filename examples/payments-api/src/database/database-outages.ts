/**
 * @module How the database's unavailability becomes answers and log lines: the errors of a
 * database that cannot answer now (refused, reset, timed out, shutting down) become 503
 * `SERVICE_UNAVAILABLE` with `Retry-After: 1`, marked with `innererror.code`
 * `DATABASE_UNAVAILABLE`; an outage is logged as one line when it starts and one when it ends,
 * as the idempotency store's is, instead of a stack trace per refused request.
 *
 * collection-pagination-pg answers an outage of its own queries with the same 503 (its
 * `unavailableError`), so this mapping looks redundant for the lists; it is not, and every query
 * of the stores, the lists' included, goes through it (`queryIn` in pg-records.ts, the lists'
 * `pool` as well). The source sees this 503 already made and passes it on unchanged, so the
 * package's mapping never runs here. Were the lists left to it, three things would change: its
 * message differs from this one; it does not count a cancelled statement (57014, the query
 * timeout's `statement_timeout`) or node-postgres's `Query read timeout` as an outage, so a list
 * stalled by the database would be a 500 while a read of one record is a 503; and the outage
 * log would miss the lists' failures and successes. The non-list calls (reads, writes,
 * transactions, the history and the refund summary) have no other mapping at all.
 */
import { ApiError, type ErrorReport, isApiError } from '@resourceful/error-envelope';
import type pg from 'pg';
import { type Logger, type OutageLog, outageLog } from '../outage-log.js';

/** The `innererror.code` of the 503 a database outage answers. */
export const DATABASE_UNAVAILABLE = 'DATABASE_UNAVAILABLE';

/**
 * SQLSTATE classes of a database that cannot answer now (connection exception, operator
 * intervention, insufficient resources), and 57014 (query_canceled: `statement_timeout`): the
 * client may retry, so 503 rather than 500.
 */
const UNAVAILABLE_SQLSTATE = /^(08|57P|53|57014$)/;
const UNAVAILABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE']);
/** node-postgres and pg-pool say these in messages only (no code). */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error/;

export function isDatabaseUnavailable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = (error as Error | null)?.message ?? '';
  return (
    (typeof code === 'string' &&
      (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_ERRNO.has(code))) ||
    UNAVAILABLE_MESSAGE.test(message)
  );
}

/** True for the 503 that `unavailable` throws. */
export function isDatabaseUnavailableAnswer(error: unknown): error is ApiError {
  return isApiError(error) && error.innererror?.code === DATABASE_UNAVAILABLE;
}

const outages = new WeakMap<pg.Pool, OutageLog>();

/** Logs the pool's outages to `logger` from now on (the service does; tests may). */
export function logDatabaseOutages(pool: pg.Pool, logger: Logger): OutageLog {
  const outage = outageLog(logger, {
    down: (reason) =>
      `database unreachable (${reason}): requests that need it answer 503 until it is back`,
    back: (seconds, refused) =>
      `database reachable again after ${seconds} s; ${refused} request(s) refused with 503 meanwhile`,
  });
  outages.set(pool, outage);
  return outage;
}

/** Rethrows `error`, as the 503 when the database cannot answer now (see the module). */
export function unavailable(error: unknown, pool?: pg.Pool): never {
  if (isDatabaseUnavailableAnswer(error)) throw error;
  if (isDatabaseUnavailable(error)) {
    if (pool !== undefined) outages.get(pool)?.failed(error);
    throw ApiError.serviceUnavailable('The database is unavailable; retry shortly.', {
      retryAfter: 1,
      cause: error,
      innererror: { code: DATABASE_UNAVAILABLE },
    });
  }
  throw error;
}

/** Reports a query that got an answer (ends a logged outage after a quiet stretch). */
export function answered(pool: pg.Pool): void {
  outages.get(pool)?.succeeded();
}

/**
 * For `errorHandler({ onError })`: counts a database 503 toward the outage's log line and says
 * it was handled (true), so it is not logged as a fault.
 */
export function countDatabaseRefusal(report: ErrorReport, pool: pg.Pool | undefined): boolean {
  if (report.error.innererror?.code !== DATABASE_UNAVAILABLE) return false;
  if (pool !== undefined) outages.get(pool)?.refusedOne();
  return true;
}
