/**
 * @module The signal a compare-and-set store gives when its write found the resource changed:
 * the row it was told to update no longer has the version that was read (or, for an insert, a
 * row now exists). `conditionalWrite` then loads again and evaluates the preconditions against
 * what is stored now.
 */

// A registered symbol, not `instanceof`: the CommonJS build of one package and the ESM build of
// another may both be loaded (the dual-package hazard), giving two classes.
const STALE_VERSION_BRAND = Symbol.for('@resourceful/conditional-requests.StaleVersionError');

/**
 * Thrown by a compare-and-set `write` when nothing matched its condition: `UPDATE … WHERE id = $1
 * AND etag = $2` or `DELETE … WHERE id = $1 AND etag = $2` touched no row, or `INSERT … ON
 * CONFLICT DO NOTHING` inserted none. Never reaches the client: `conditionalWrite` answers it by
 * reloading (a client whose `If-Match` named the replaced version then gets 412).
 */
export class StaleVersionError extends Error {
  override readonly name = 'StaleVersionError';
  readonly [STALE_VERSION_BRAND] = true;

  constructor(message = 'The stored resource changed between the read and the write.') {
    super(message);
  }
}

/** Whether `error` is a `StaleVersionError`, from whichever build of this package threw it. */
export function isStaleVersionError(error: unknown): error is StaleVersionError {
  return (
    typeof error === 'object' &&
    error !== null &&
    (error as Record<symbol, unknown>)[STALE_VERSION_BRAND] === true
  );
}
