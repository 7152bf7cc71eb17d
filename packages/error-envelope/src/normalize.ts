/**
 * @module Turns whatever reached the error handler into an ApiError: body-parser failures,
 * zod validation errors, http-errors style errors, and unknown throws.
 */
import { ApiError, type ErrorDetail, isApiError } from './api-error.js';
import { codeForStatus } from './catalogue.js';

/** The shape of a zod issue that this package reads (zod 3 and 4 agree on it). */
interface ZodIssueLike {
  code: string;
  message: string;
  path: readonly PropertyKey[];
}

interface ZodErrorLike {
  issues: readonly ZodIssueLike[];
}

export interface NormalizeOptions {
  /** Put the message and stack of unknown errors into `innererror` (development only). */
  exposeInternals?: boolean;
}

export function isZodError(value: unknown): value is ZodErrorLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { name?: unknown }).name === 'ZodError' &&
    Array.isArray((value as { issues?: unknown }).issues)
  );
}

/**
 * Formats a zod path as a field target: `billing_address.city`, `event_types[0].name`.
 * @returns undefined for the root of the document
 */
export function formatFieldPath(path: readonly PropertyKey[]): string | undefined {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out === '' ? undefined : out;
}

/** A 400 `VALIDATION_ERROR` with one detail per zod issue, `target` the field path. */
export function fromZodError(error: ZodErrorLike, message?: string): ApiError {
  const details: ErrorDetail[] = error.issues.map((issue) => {
    const detail: ErrorDetail = { code: 'VALIDATION_ERROR', message: issue.message };
    const target = formatFieldPath(issue.path);
    if (target !== undefined) detail.target = target;
    return detail;
  });
  return ApiError.validation(details, message, { cause: error });
}

// body-parser (and raw-body) tag their errors with `type`; see body-parser's README "Errors".
const BODY_PARSER_TYPES: Readonly<Record<string, (cause: unknown) => ApiError>> = {
  'entity.parse.failed': (cause) => ApiError.malformedRequest(undefined, { cause }),
  'entity.verify.failed': (cause) =>
    ApiError.invalidRequest('The request body failed verification.', { cause }),
  'entity.too.large': (cause) => ApiError.payloadTooLarge(undefined, { cause }),
  'parameters.too.many': (cause) =>
    ApiError.payloadTooLarge('The request body has too many parameters.', { cause }),
  'request.aborted': (cause) =>
    ApiError.invalidRequest('The request was aborted by the client.', { cause }),
  'request.size.invalid': (cause) =>
    ApiError.invalidRequest('The request body length does not match Content-Length.', { cause }),
  'charset.unsupported': (cause) =>
    ApiError.unsupportedMediaType('The request body charset is not supported.', {
      target: 'Content-Type',
      cause,
    }),
  'encoding.unsupported': (cause) =>
    ApiError.unsupportedMediaType('The request body content encoding is not supported.', {
      target: 'Content-Encoding',
      cause,
    }),
};

export function toApiError(error: unknown, options: NormalizeOptions = {}): ApiError {
  if (isApiError(error)) return error;
  if (isZodError(error)) return fromZodError(error);

  const tagged = error as { type?: unknown; status?: unknown; statusCode?: unknown };
  if (typeof error === 'object' && error !== null) {
    if (typeof tagged.type === 'string' && Object.hasOwn(BODY_PARSER_TYPES, tagged.type)) {
      return BODY_PARSER_TYPES[tagged.type]!(error);
    }
    const status = Number(tagged.status ?? tagged.statusCode);
    if (Number.isInteger(status) && status >= 400 && status < 500) {
      // http-errors marks 4xx messages as safe to show (`expose`); anything else stays generic.
      const expose = (error as { expose?: unknown }).expose === true;
      const message = expose && error instanceof Error ? error.message : 'The request is invalid.';
      return new ApiError({ status, code: codeForStatus(status), message, cause: error });
    }
  }
  return internalError(error, options.exposeInternals === true);
}

function internalError(error: unknown, expose: boolean): ApiError {
  if (!expose) return ApiError.internal(undefined, { cause: error });
  const innererror =
    error instanceof Error
      ? { code: error.name, message: error.message, stack: error.stack }
      : { code: 'NonError', message: String(error) };
  return ApiError.internal(undefined, { cause: error, innererror });
}
