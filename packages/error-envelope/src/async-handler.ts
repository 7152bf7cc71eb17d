/**
 * @module Express 5 passes a rejected promise from a handler to `next`; Express 4 does not.
 * Wrapping a handler gives Express 4 the same behaviour.
 */

import { optionError } from './check-options.js';

type Next = (err?: unknown) => void;

/**
 * Wraps an async route handler so that a rejection reaches `next(err)` exactly once.
 * @throws TypeError `ERR_RESOURCEFUL_INVALID_OPTION` (option `handler`) when `handler` is not a
 *   function: at start-up, rather than as a 500 on every request of the route
 */
export function asyncHandler<Req, Res>(
  handler: (req: Req, res: Res, next: Next) => unknown,
): (req: Req, res: Res, next: Next) => void {
  if (typeof handler !== 'function') {
    throw optionError('asyncHandler', 'handler', 'a (req, res, next) function', handler);
  }
  return function asyncRouteHandler(req, res, next) {
    let result: unknown;
    try {
      result = handler(req, res, next);
    } catch (error) {
      next(error);
      return;
    }
    if (isThenable(result)) {
      // `||`, as Express 5 routes a rejection: a falsy reason (`''`, `0`, `false`) given to
      // next() as it is would mean "no error" and run the next handler.
      result.then(undefined, (error: unknown) => next(error || new Error('Promise rejected')));
    }
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}
