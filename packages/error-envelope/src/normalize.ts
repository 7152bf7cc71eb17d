/**
 * @module Turns whatever reached the error handler into an ApiError: body-parser failures,
 * path parameters Express could not decode, zod validation errors, http-errors style errors, and unknown throws.
 */
import {
  ApiError,
  type ErrorDetail,
  type InnerError,
  isApiError,
  sharedTarget,
} from './api-error.js';
import { codeForStatus, ERROR_CATALOGUE } from './catalogue.js';

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

/**
 * Details listed for one zod error. A body of many small invalid items yields an issue for each
 * missing field, so the response could be far larger than the request; past this, only the count
 * is told.
 */
const MAX_VALIDATION_DETAILS = 100;

/**
 * A 400 `VALIDATION_ERROR` with one detail per zod issue (the first 100), `target` the field
 * path. The top-level `target` is the field every issue (listed or not) names, when they all name
 * the same one; an issue about the whole document (`[]` for an object schema) names no field, as
 * this cannot tell a body from a query.
 */
export function fromZodError(error: ZodErrorLike, message?: string): ApiError {
  const details: ErrorDetail[] = error.issues.slice(0, MAX_VALIDATION_DETAILS).map((issue) => {
    const detail: ErrorDetail = { code: 'VALIDATION_ERROR', message: issue.message };
    const target = formatFieldPath(issue.path);
    if (target !== undefined) detail.target = target;
    return detail;
  });
  const total = error.issues.length;
  const summary =
    message ??
    (total > MAX_VALIDATION_DETAILS
      ? `The request failed validation (${total} problems; the first ${MAX_VALIDATION_DETAILS} are listed).`
      : undefined);
  // Over every issue, not only the listed ones: a 101st issue on another field means no one field.
  const target =
    total > MAX_VALIDATION_DETAILS
      ? sharedTarget(error.issues.map((issue) => ({ target: formatFieldPath(issue.path) })))
      : sharedTarget(details);
  return ApiError.validation(details, summary, { target, cause: error });
}

// body-parser (and raw-body) tag their errors with `type`; see body-parser's README "Errors".
const BODY_PARSER_TYPES: Readonly<Record<string, (cause: unknown) => ApiError>> = {
  'entity.parse.failed': (cause) =>
    ApiError.malformedRequest(parseFailureMessage(cause), { cause }),
  'entity.verify.failed': (cause) =>
    ApiError.invalidRequest('The request body failed verification.', { cause }),
  'entity.too.large': (cause) => bodyTooLarge(cause),
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

/**
 * A body over the reader's limit. raw-body's error carries the `limit` it broke (with `length`
 * when `Content-Length` declared the size, `received` when the stream passed it): the client is
 * told the bound in the message and in `innererror.max_bytes`, as content-negotiation words its
 * own 413 and http-conventions gives a long URL's `innererror.max_length`. An error without a
 * usable limit keeps the catalogue's message.
 */
function bodyTooLarge(cause: unknown): ApiError {
  const limit = (cause as { limit?: unknown }).limit;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 0) {
    return ApiError.payloadTooLarge(undefined, { cause });
  }
  return ApiError.payloadTooLarge(`The request body is larger than ${limit} bytes.`, {
    innererror: { code: 'BODY_TOO_LARGE', max_bytes: limit },
    cause,
  });
}

/**
 * express.json() in its default strict mode refuses JSON that is not an object or an array
 * (`null`, `42`, `"text"`) with the same error as broken JSON; say which one it was. Only short
 * bodies are looked at again: the answer is the same either way, only the message differs.
 */
function parseFailureMessage(cause: unknown): string | undefined {
  const body = (cause as { body?: unknown }).body;
  if (typeof body !== 'string' || body.length > 1024) return undefined;
  try {
    JSON.parse(body);
  } catch {
    return undefined;
  }
  return 'The request body must be a JSON object or array.';
}

export function toApiError(error: unknown, options: NormalizeOptions = {}): ApiError {
  if (isApiError(error)) return error;
  if (isZodError(error)) return fromZodError(error);
  const exposeInternals = options.exposeInternals === true;

  const tagged = error as { type?: unknown; status?: unknown; statusCode?: unknown };
  if (typeof error === 'object' && error !== null) {
    if (typeof tagged.type === 'string' && Object.hasOwn(BODY_PARSER_TYPES, tagged.type)) {
      return BODY_PARSER_TYPES[tagged.type]!(error);
    }
    if (isParamDecodeError(error)) return malformedPathParameter(error);
    const status = Number(tagged.status ?? tagged.statusCode);
    if (Number.isInteger(status) && status >= 400 && status < 600) {
      return fromStatusError(error, status, exposeInternals);
    }
  }
  if (!exposeInternals) return ApiError.internal(undefined, { cause: error });
  return ApiError.internal(undefined, { cause: error, innererror: describeThrown(error) });
}

/**
 * Express 4's router (`decode_param`) and Express 5's (`router`'s `decodeParam`) throw the
 * URIError of `decodeURIComponent` for a path parameter that is not percent-encoded UTF-8 (`%FF`,
 * `%zz`), with status 400 and this message. Neither says which parameter it was.
 */
function isParamDecodeError(error: object): error is URIError {
  return (
    error instanceof URIError &&
    (error as { status?: unknown }).status === 400 &&
    error.message.startsWith('Failed to decode param ')
  );
}

function malformedPathParameter(cause: URIError): ApiError {
  return ApiError.invalidRequest(
    'A parameter of the request path is not valid percent-encoded UTF-8 (RFC 3986 §2.1): each "%" must start a "%XX" octet, and the octets must be UTF-8.',
    { target: 'path', innererror: { code: 'MALFORMED_PATH_PARAMETER' }, cause },
  );
}

/**
 * An error that carries its own status (http-errors and alike), answered as Express's final
 * handler would: that status and the error's `headers` (a 401's `WWW-Authenticate`, a 405's
 * `Allow`, a 503's `Retry-After`), the code of the catalogue for the status.
 */
function fromStatusError(error: object, status: number, exposeInternals: boolean): ApiError {
  // http-errors marks messages safe to show with `expose` (by default on 4xx only).
  const expose = (error as { expose?: unknown }).expose === true && error instanceof Error;
  const code = codeForStatus(status);
  // A 4xx the catalogue names says what it is (a 404 "No route or resource at this path."), not
  // "invalid"; a status it does not name, and every 5xx, keeps the generic text.
  const generic =
    status >= 500
      ? 'The service failed to process the request.'
      : ERROR_CATALOGUE[code].status === status
        ? ERROR_CATALOGUE[code].meaning
        : 'The request is invalid.';
  return new ApiError({
    status,
    code,
    message: expose ? error.message : generic,
    headers: headersOf(error),
    innererror: status >= 500 && exposeInternals ? describeThrown(error) : undefined,
    cause: error,
  });
}

/** The error's string and number `headers` (sendError leaves out those node:http refuses). */
function headersOf(error: object): Record<string, string> | undefined {
  const headers = (error as { headers?: unknown }).headers;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return undefined;
  const valid: [string, string][] = [];
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value === 'string') valid.push([name, value]);
    else if (typeof value === 'number' && Number.isFinite(value)) valid.push([name, String(value)]);
  }
  // fromEntries defines own properties, so a "__proto__" name cannot reach the prototype.
  return Object.fromEntries(valid);
}

/** The message and stack of what was thrown, for `exposeInternals` (development only). */
function describeThrown(error: unknown): InnerError {
  if (error instanceof Error)
    return { code: error.name, message: error.message, stack: error.stack };
  let message: string;
  try {
    message = String(error);
  } catch {
    // An object without prototype (or with a throwing toString) has no string form of its own.
    message = Object.prototype.toString.call(error);
  }
  return { code: 'NonError', message };
}
