/**
 * @module PostgreSQL errors a client's value can cause, as 400 envelopes. A filter is compared
 * with its column's own type (so indexes apply): a value that type cannot read (`?expire_year=x`
 * on an integer column) makes PostgreSQL refuse the statement with a data exception (SQLSTATE
 * class 22) before anything runs. Nothing else is translated.
 * @see https://www.postgresql.org/docs/current/errcodes-appendix.html
 */

import type { CollectionQuery } from '@resourceful/collection-pagination';
import { ApiError } from '@resourceful/error-envelope';

/** The filter a data exception is about: the one whose value PostgreSQL quotes, else the first. */
export function clientValueError(error: unknown, query: CollectionQuery): ApiError | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !code.startsWith('22')) return undefined;
  const names = Object.keys(query.filters);
  if (names.length === 0) return undefined;
  const message = String((error as { message?: unknown }).message ?? '');
  const target = names.find((name) => message.includes(`"${query.filters[name]}"`)) ?? names[0]!;
  return ApiError.invalidRequest(
    `The query parameter "${target}" is not a valid value for this property.`,
    { target, innererror: { code: 'INVALID_FILTER_VALUE' } },
  );
}
