/**
 * @module The error answers of this package, as error-envelope errors. Catalogue codes only;
 * the finer cause is in `innererror.code`.
 */
import { ApiError } from '@resourceful/error-envelope';

/** Finer causes, sent as `innererror.code`. */
export const IDEMPOTENCY_ERROR_CAUSES = {
  /** 400: the id is empty, too long or has characters outside the allowed set. */
  invalid: 'SERVICE_REQUEST_ID_INVALID',
  /** 400: header and query parameter (or two header names) carry different ids. */
  ambiguous: 'SERVICE_REQUEST_ID_AMBIGUOUS',
  /** 400: `required` is set and the request has no id. */
  required: 'SERVICE_REQUEST_ID_REQUIRED',
  /** 409: the first request with this id is still being processed. */
  inProgress: 'REQUEST_IN_PROGRESS',
  /**
   * 409: the request was processed, but its response could not be stored: too large, or its
   * body already encoded (`Content-Encoding`) when it reached the middleware.
   */
  notReplayable: 'RESPONSE_NOT_REPLAYABLE',
  /** 422: the id was first used for another request (method, path or body). */
  reused: 'SERVICE_REQUEST_ID_REUSED',
  /** 503: the store of ids cannot be reached. */
  storeUnavailable: 'IDEMPOTENCY_STORE_UNAVAILABLE',
} as const;

export function invalidIdError(target: string, maxLength: number): ApiError {
  return ApiError.invalidRequest(
    `The ${target} must be 1 to ${maxLength} characters: letters, digits and -._~:+=/@.`,
    { target, innererror: { code: IDEMPOTENCY_ERROR_CAUSES.invalid } },
  );
}

export function ambiguousIdError(target: string): ApiError {
  return ApiError.invalidRequest(`The request carries more than one ${target}.`, {
    target,
    innererror: { code: IDEMPOTENCY_ERROR_CAUSES.ambiguous },
  });
}

export function requiredIdError(target: string): ApiError {
  return ApiError.invalidRequest(`This request requires the ${target} header.`, {
    target,
    innererror: { code: IDEMPOTENCY_ERROR_CAUSES.required },
  });
}

export function inProgressError(target: string, retryAfter: number): ApiError {
  return ApiError.conflict(`A request with this ${target} is still being processed.`, {
    target,
    retryAfter,
    innererror: { code: IDEMPOTENCY_ERROR_CAUSES.inProgress },
  });
}

export function notReplayableError(target: string, status: number): ApiError {
  return ApiError.conflict(
    `The request with this ${target} was already processed (status ${status}); its response could not be stored for replay (larger than the limit, or encoded before it reached the idempotency middleware).`,
    { target, innererror: { code: IDEMPOTENCY_ERROR_CAUSES.notReplayable, status } },
  );
}

export function reusedIdError(target: string): ApiError {
  return ApiError.unprocessable(
    `This ${target} was already used for a different request; use a new id for a new request.`,
    { target, innererror: { code: IDEMPOTENCY_ERROR_CAUSES.reused } },
  );
}

export function storeUnavailableError(retryAfter: number, cause: unknown): ApiError {
  return ApiError.serviceUnavailable('The idempotency store is unavailable; retry later.', {
    retryAfter,
    cause,
    innererror: { code: IDEMPOTENCY_ERROR_CAUSES.storeUnavailable },
  });
}
