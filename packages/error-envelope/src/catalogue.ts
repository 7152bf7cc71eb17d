/**
 * @module The catalogue of error codes. The spec asks for a small, stable set ("at most about
 * 20"); finer causes go into `innererror`, so adding one never breaks a client. Every status a
 * Resourceful package sends has a code of its own here (400 has several: what is wrong with
 * the request is worth a code; 502 and 504 share `UPSTREAM_ERROR`, told apart by the status).
 */

export interface CatalogueEntry {
  /** The status the code is sent with (`UPSTREAM_ERROR` also with 504, a timeout). */
  readonly status: number;
  readonly meaning: string;
}

export const ERROR_CATALOGUE = {
  INVALID_REQUEST: { status: 400, meaning: 'A parameter, header or field is invalid.' },
  MALFORMED_REQUEST: { status: 400, meaning: 'The body could not be parsed.' },
  VALIDATION_ERROR: { status: 400, meaning: 'The body failed validation; see details.' },
  READ_ONLY_FIELD: { status: 400, meaning: 'The request tried to change a read-only field.' },
  UNSUPPORTED_VERSION: { status: 400, meaning: 'The API version in the path is not served.' },
  UNAUTHENTICATED: { status: 401, meaning: 'Credentials are missing or invalid.' },
  FORBIDDEN: { status: 403, meaning: 'The caller may not do this to this resource.' },
  NOT_FOUND: { status: 404, meaning: 'No route or resource at this path.' },
  METHOD_NOT_ALLOWED: { status: 405, meaning: 'The resource does not support this method.' },
  NOT_ACCEPTABLE: {
    status: 406,
    meaning: 'No representation matches the Accept headers; details list what is offered.',
  },
  REQUEST_TIMEOUT: { status: 408, meaning: 'The request did not arrive in time.' },
  CONFLICT: {
    status: 409,
    meaning: 'The request conflicts with the current state (a failed JSON Patch `test` too).',
  },
  PRECONDITION_FAILED: { status: 412, meaning: 'If-Match or If-None-Match did not hold.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The body is larger than the service accepts.' },
  URI_TOO_LONG: { status: 414, meaning: 'The URL is longer than the service can process.' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    meaning: 'The body media type or charset is not supported.',
  },
  EXPECTATION_FAILED: { status: 417, meaning: 'The Expect header names an unknown expectation.' },
  UNPROCESSABLE_ENTITY: {
    status: 422,
    meaning: 'The request is well-formed but cannot be processed as sent.',
  },
  PRECONDITION_REQUIRED: { status: 428, meaning: 'This update requires If-Match.' },
  TOO_MANY_REQUESTS: { status: 429, meaning: 'Throttled; retry after Retry-After.' },
  HEADERS_TOO_LARGE: {
    status: 431,
    meaning: 'The request line or headers are larger than the service reads.',
  },
  INTERNAL_SERVER_ERROR: { status: 500, meaning: 'The service failed; not caused by the client.' },
  UPSTREAM_ERROR: {
    status: 502,
    meaning: 'An upstream service failed (502) or did not answer in time (504).',
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    meaning: 'The service or a store it needs is unavailable; retry after Retry-After.',
  },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;

/** The catalogue code for a status, for errors that carry only a status (http-errors and alike). */
export function codeForStatus(status: number): ErrorCode {
  switch (status) {
    case 400:
      return 'INVALID_REQUEST';
    case 401:
      return 'UNAUTHENTICATED';
    case 403:
      return 'FORBIDDEN';
    case 404:
      return 'NOT_FOUND';
    case 405:
      return 'METHOD_NOT_ALLOWED';
    case 406:
      return 'NOT_ACCEPTABLE';
    case 408:
      return 'REQUEST_TIMEOUT';
    case 409:
      return 'CONFLICT';
    case 412:
      return 'PRECONDITION_FAILED';
    case 413:
      return 'PAYLOAD_TOO_LARGE';
    case 414:
      return 'URI_TOO_LONG';
    case 415:
      return 'UNSUPPORTED_MEDIA_TYPE';
    case 417:
      return 'EXPECTATION_FAILED';
    case 422:
      return 'UNPROCESSABLE_ENTITY';
    case 428:
      return 'PRECONDITION_REQUIRED';
    case 429:
      return 'TOO_MANY_REQUESTS';
    case 431:
      return 'HEADERS_TOO_LARGE';
    case 502:
    case 504:
      return 'UPSTREAM_ERROR';
    case 503:
      return 'SERVICE_UNAVAILABLE';
    default:
      return status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'INVALID_REQUEST';
  }
}
