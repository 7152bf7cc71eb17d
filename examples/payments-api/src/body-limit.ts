/**
 * @module Every request body is held to one bound, `MAX_BODY_BYTES`, and a body past it gets one
 * 413 envelope whichever reader met it. body-parser and raw-body (under express.json() and
 * json-patch-update) tag their refusal `entity.too.large` with the `limit` it broke, which
 * error-envelope answers itself with the bound in its message and `innererror.max_bytes`;
 * content-negotiation, reading Latin-1 and compressed bodies, names the bound in its message
 * only. Here its 413 gets the same `innererror`, as the 414 of a long URL gives
 * `innererror.max_length`.
 */
import { ApiError, isApiError } from '@resourceful/error-envelope';
import type { NextFunction, Request, Response } from 'express';
import { MAX_BODY_BYTES } from './server-limits.js';

/** `innererror.code` of a body over the bound (error-envelope's, for body-parser's refusal). */
export const BODY_TOO_LARGE = 'BODY_TOO_LARGE';

/** The message of a 413 for a body over `maxBytes` (content-negotiation's and error-envelope's). */
function tooLargeMessage(maxBytes: number): string {
  return `The request body is larger than ${maxBytes} bytes.`;
}

/** The 413 of a body over `maxBytes`. */
export function tooLargeBody(maxBytes: number = MAX_BODY_BYTES, cause?: unknown): ApiError {
  return ApiError.payloadTooLarge(tooLargeMessage(maxBytes), {
    innererror: { code: BODY_TOO_LARGE, max_bytes: maxBytes },
    ...(cause === undefined ? {} : { cause }),
  });
}

/**
 * Error middleware, mounted before the error handler: content-negotiation's 413 of a body that
 * decodes or inflates past the bound becomes `tooLargeBody`. body-parser's and raw-body's refusal
 * (`entity.too.large`) passes on: error-envelope answers it with this same envelope. Every other
 * error (json-patch-update's 413s for too many operations or copies among them, with codes of
 * their own) passes unchanged.
 */
export function nameBodyLimit(
  error: unknown,
  _req: Request,
  _res: Response,
  next: NextFunction,
): void {
  if (
    isApiError(error) &&
    error.status === 413 &&
    error.innererror === undefined &&
    error.message === tooLargeMessage(MAX_BODY_BYTES)
  ) {
    next(tooLargeBody(MAX_BODY_BYTES, error));
    return;
  }
  next(error);
}
