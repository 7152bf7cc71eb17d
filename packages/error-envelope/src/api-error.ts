/**
 * @module The error class every Resourceful package throws, and one-line constructors for the
 * common cases.
 */
import { ERROR_CATALOGUE, type ErrorCode } from './catalogue.js';
import { optionError } from './check-options.js';

/** One further error of the same request (spec: "details"). */
export interface ErrorDetail {
  code: string;
  message: string;
  target?: string;
}

/** Service-chosen, nested, more specific information (spec: "innererror"). */
export interface InnerError {
  code?: string;
  innererror?: InnerError;
  [key: string]: unknown;
}

/** The object under the envelope's single `error` key. */
export interface ErrorObject {
  code: string;
  message: string;
  target?: string;
  details?: ErrorDetail[];
  innererror?: InnerError;
}

/** `{ "error": { … } }`, the only error body Resourceful sends. */
export interface ErrorEnvelope {
  error: ErrorObject;
}

export interface ApiErrorInit {
  status: number;
  code: ErrorCode | (string & {});
  message: string;
  target?: string;
  details?: readonly ErrorDetail[];
  innererror?: InnerError;
  /** Response headers sent with the error, for instance `Retry-After` or `Accept-Patch`. */
  headers?: Readonly<Record<string, string>>;
  /**
   * Marks a rejection because of throttling: the spec does not count it as a fault even when
   * its status is 5xx (a 503 with `Retry-After` from a rate limiter, say). 429 always is one.
   */
  throttling?: boolean;
  cause?: unknown;
}

/** Options shared by the one-line constructors. */
export interface ErrorOptions {
  target?: string;
  details?: readonly ErrorDetail[];
  innererror?: InnerError;
  headers?: Readonly<Record<string, string>>;
  cause?: unknown;
}

export interface RetryableErrorOptions extends ErrorOptions {
  /** Seconds, or the date after which the client may retry. Sent as `Retry-After`. */
  retryAfter?: number | Date;
}

// A registered symbol, not `instanceof`: an app may load the CommonJS build of one package and
// the ESM build of another (the dual-package hazard), giving two ApiError classes.
const API_ERROR_BRAND = Symbol.for('@resourceful/error-envelope.ApiError');

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly [API_ERROR_BRAND] = true;
  readonly status: number;
  readonly code: string;
  readonly target: string | undefined;
  readonly details: readonly ErrorDetail[];
  readonly innererror: InnerError | undefined;
  readonly headers: Readonly<Record<string, string>>;
  readonly throttling: boolean;

  constructor(init: ApiErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    checkInit(init);
    this.status = init.status;
    this.code = init.code;
    this.target = init.target;
    this.details = init.details ?? [];
    this.innererror = init.innererror;
    this.headers = init.headers ?? {};
    this.throttling = init.throttling ?? init.status === 429;
  }

  /** The envelope as sent. Never includes the stack or the cause. */
  toJSON(): ErrorEnvelope {
    const error: ErrorObject = { code: this.code, message: this.message };
    if (this.target !== undefined) error.target = this.target;
    if (this.details.length > 0) error.details = this.details.map((detail) => ({ ...detail }));
    if (this.innererror !== undefined) error.innererror = this.innererror;
    return { error };
  }

  /** 400 `INVALID_REQUEST`: a parameter, header or field is wrong; name it in `target`. */
  static invalidRequest(message: string, options?: ErrorOptions): ApiError {
    return fromCatalogue('INVALID_REQUEST', message, options);
  }

  /** 400 `MALFORMED_REQUEST`: the body could not be parsed. */
  static malformedRequest(message = 'The request body is not valid JSON.', options?: ErrorOptions) {
    return fromCatalogue('MALFORMED_REQUEST', message, options);
  }

  /**
   * 400 `VALIDATION_ERROR` with one detail per problem. The top-level `target` is the field every
   * detail names, when they all name the same one (one problem, or several on one field).
   */
  static validation(details: readonly ErrorDetail[], message?: string, options?: ErrorOptions) {
    const count = details.length;
    return fromCatalogue(
      'VALIDATION_ERROR',
      message ??
        `The request failed validation (${count} ${count === 1 ? 'problem' : 'problems'}).`,
      { target: sharedTarget(details), ...options, details },
    );
  }

  /** 400 `READ_ONLY_FIELD`: `target` is the field the request tried to change. */
  static readOnlyField(target: string, message?: string, options?: ErrorOptions): ApiError {
    return fromCatalogue('READ_ONLY_FIELD', message ?? `The field "${target}" is read-only.`, {
      ...options,
      target,
    });
  }

  /** 401 `UNAUTHENTICATED`. */
  static unauthenticated(message = 'Authentication is required.', options?: ErrorOptions) {
    return fromCatalogue('UNAUTHENTICATED', message, options);
  }

  /** 403 `FORBIDDEN`: the caller is known but may not do this (RFC 9110 §15.5.4). */
  static forbidden(
    message = 'The request is not allowed for this caller.',
    options?: ErrorOptions,
  ) {
    return fromCatalogue('FORBIDDEN', message, options);
  }

  /** 404 `NOT_FOUND`: the resource (or route) does not exist. */
  static notFound(message = 'The requested resource does not exist.', options?: ErrorOptions) {
    return fromCatalogue('NOT_FOUND', message, options);
  }

  /** 405 `METHOD_NOT_ALLOWED` with the `Allow` header. */
  static methodNotAllowed(allow: readonly string[], options?: ErrorOptions): ApiError {
    return fromCatalogue('METHOD_NOT_ALLOWED', 'The resource does not support this method.', {
      ...options,
      headers: { Allow: allow.join(', '), ...options?.headers },
    });
  }

  /**
   * 406 `NOT_ACCEPTABLE`: nothing the service can send matches the request's `Accept*` headers;
   * list what is available in `details` (RFC 9110 §15.5.7).
   */
  static notAcceptable(
    message = 'No available representation matches the Accept headers.',
    options?: ErrorOptions,
  ): ApiError {
    return fromCatalogue('NOT_ACCEPTABLE', message, options);
  }

  /** 409 `CONFLICT`. */
  static conflict(message: string, options?: RetryableErrorOptions): ApiError {
    return fromCatalogue('CONFLICT', message, options);
  }

  /** 412 `PRECONDITION_FAILED`. */
  static preconditionFailed(message = 'A request precondition failed.', options?: ErrorOptions) {
    return fromCatalogue('PRECONDITION_FAILED', message, options);
  }

  /** 413 `PAYLOAD_TOO_LARGE`. */
  static payloadTooLarge(message = 'The request body is too large.', options?: ErrorOptions) {
    return fromCatalogue('PAYLOAD_TOO_LARGE', message, options);
  }

  /** 414 `URI_TOO_LONG`. */
  static uriTooLong(message = 'The request URL is too long.', options?: ErrorOptions) {
    return fromCatalogue('URI_TOO_LONG', message, options);
  }

  /** 415 `UNSUPPORTED_MEDIA_TYPE`. */
  static unsupportedMediaType(
    message = 'The request body media type is not supported.',
    options?: ErrorOptions,
  ): ApiError {
    return fromCatalogue('UNSUPPORTED_MEDIA_TYPE', message, options);
  }

  /** 422 `UNPROCESSABLE_ENTITY`. */
  static unprocessable(message: string, options?: ErrorOptions): ApiError {
    return fromCatalogue('UNPROCESSABLE_ENTITY', message, options);
  }

  /** 428 `PRECONDITION_REQUIRED`. */
  static preconditionRequired(message = 'This request requires If-Match.', options?: ErrorOptions) {
    return fromCatalogue('PRECONDITION_REQUIRED', message, options);
  }

  /** 429 `TOO_MANY_REQUESTS`; a throttling rejection, never counted as a fault. */
  static tooManyRequests(message = 'Too many requests.', options?: RetryableErrorOptions) {
    return fromCatalogue('TOO_MANY_REQUESTS', message, options);
  }

  /** 500 `INTERNAL_SERVER_ERROR`. */
  static internal(message = 'The service failed to process the request.', options?: ErrorOptions) {
    return fromCatalogue('INTERNAL_SERVER_ERROR', message, options);
  }

  /** 502 (or 504 when `timeout`) `UPSTREAM_ERROR`. */
  static upstream(
    message: string,
    options?: RetryableErrorOptions & { timeout?: boolean },
  ): ApiError {
    return newApiError({
      ...withRetryAfter(options),
      status: options?.timeout ? 504 : 502,
      code: 'UPSTREAM_ERROR',
      message,
    });
  }

  /** 503 `SERVICE_UNAVAILABLE`, with `Retry-After` when given. */
  static serviceUnavailable(
    message = 'The service is temporarily unavailable.',
    options?: RetryableErrorOptions & { throttling?: boolean },
  ): ApiError {
    return newApiError({
      ...withRetryAfter(options),
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      message,
      throttling: options?.throttling,
    });
  }
}

/** True for an ApiError from any copy or build (ESM or CommonJS) of this package. */
export function isApiError(value: unknown): value is ApiError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { [API_ERROR_BRAND]?: unknown })[API_ERROR_BRAND] === true
  );
}

/**
 * Refuses an init the envelope could not carry as the spec's strings, with the
 * `ERR_RESOURCEFUL_INVALID_OPTION` error of every Resourceful factory (naming the member in
 * `option`): a status that is no error status, and a `code`, `message` or `target` that is not a
 * string (a number `code` would be sent as a number, a missing `message` as nothing).
 */
function checkInit(init: ApiErrorInit): void {
  const { status, code, message, target } = init;
  if (!Number.isInteger(status) || status < 400 || status > 599) {
    throw optionError('ApiError', 'status', 'an integer from 400 to 599', status);
  }
  if (typeof code !== 'string' || code === '') {
    throw optionError('ApiError', 'code', 'a non-empty string', code);
  }
  if (typeof message !== 'string') throw optionError('ApiError', 'message', 'a string', message);
  if (target !== undefined && typeof target !== 'string') {
    throw optionError('ApiError', 'target', 'a string', target);
  }
}

/**
 * Outside the class on purpose: a class naming itself in its own body is compiled by esbuild
 * with an inner binding (`class _ApiError`), and `ApiError.name` would read `_ApiError` in the
 * built package (scripts/check-packages.mjs checks it).
 */
function newApiError(init: ApiErrorInit): ApiError {
  return new ApiError(init);
}

function fromCatalogue(
  code: ErrorCode,
  message: string,
  options?: RetryableErrorOptions,
): ApiError {
  return newApiError({
    ...withRetryAfter(options),
    status: ERROR_CATALOGUE[code].status,
    code,
    message,
  });
}

function withRetryAfter(options: RetryableErrorOptions | undefined): ErrorOptions {
  if (options === undefined) return {};
  const { retryAfter, ...rest } = options;
  const value = retryAfterValue(retryAfter);
  if (value === undefined) return rest;
  return { ...rest, headers: { ...rest.headers, 'Retry-After': value } };
}

/**
 * `Retry-After = HTTP-date / delay-seconds` (RFC 9110 §10.2.3). A value computed at run time may
 * be NaN or an invalid date; it is left out rather than failing the error response being built.
 * Huge delays are capped so they stay digits (`String(1e21)` is `"1e+21"`).
 */
function retryAfterValue(retryAfter: number | Date | undefined): string | undefined {
  if (retryAfter instanceof Date) {
    return Number.isNaN(retryAfter.getTime()) ? undefined : retryAfter.toUTCString();
  }
  if (typeof retryAfter !== 'number' || !Number.isFinite(retryAfter)) return undefined;
  return String(Math.min(Math.max(0, Math.ceil(retryAfter)), Number.MAX_SAFE_INTEGER));
}

/**
 * The `target` all of `details` name, or undefined when they name different ones, or one of them
 * names none (a problem with the whole document), or there are none.
 */
export function sharedTarget(details: readonly { readonly target?: string }[]): string | undefined {
  const target = details[0]?.target;
  if (target === undefined) return undefined;
  for (const detail of details) if (detail.target !== target) return undefined;
  return target;
}
