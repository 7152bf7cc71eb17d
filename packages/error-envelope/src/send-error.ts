/**
 * @module The one way an error is answered: mapped to an ApiError, written as the envelope with
 * the app's code header and `Retry-After` default, and reported to the app's `onError`. The
 * error handler, other packages (through `sendError`) and the server-level handlers all use it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError, ErrorEnvelope } from './api-error.js';
import {
  type ErrorHandlerOptions,
  type ErrorKind,
  type ErrorSettings,
  errorSettingsFor,
  requestIdOf,
  resolveErrorSettings,
} from './error-settings.js';
import { isHeaderName, isHeaderValue } from './header-checks.js';
import { toApiError } from './normalize.js';

/**
 * Representation headers an earlier middleware may have set for the success it expected; they
 * describe a resource, not the error, so they go (RFC 9110 §8.8.3: no ETag on error responses).
 */
const REPRESENTATION_HEADERS = [
  'ETag',
  'Last-Modified',
  'Location',
  'Content-Location',
  'Content-Disposition',
  'Content-Encoding',
  'Content-Language',
  'Content-Range',
  'Content-Length',
  'Preference-Applied',
] as const;

/**
 * Headers an error may not hand on (lower case): they frame, encode or type a body, and the body
 * sent is the envelope, which sets its own `Content-Type` and `Content-Length`. An error built
 * from an upstream answer (`createError(502, { headers: upstream.headers })`) carries the
 * upstream's: `Transfer-Encoding` beside the envelope's `Content-Length` makes a response no
 * client can parse (RFC 9112 §6.3), and `Content-Encoding: gzip` labels plain JSON as gzip. The
 * connection's own (`Connection`, `Keep-Alive`, RFC 9110 §7.6.1) belong to the hop, not to an
 * error.
 */
const BODY_FRAMING_HEADERS: ReadonlySet<string> = new Set([
  'content-type',
  'content-length',
  'content-encoding',
  'transfer-encoding',
  'trailer',
  'connection',
  'keep-alive',
  'upgrade',
]);

/** Options of `sendError`: each one given overrides the app's `errorHandler` option. */
export type SendErrorOptions = ErrorHandlerOptions;

export function classifyError(error: ApiError): ErrorKind {
  if (error.throttling) return 'throttled';
  return error.status >= 500 ? 'fault' : 'client-error';
}

/**
 * Answers `error` on `res` as the app's error handler would: same code header, `Retry-After`
 * default, exposure of internals, and one call of its `onError`. For packages that must answer
 * outside an Express error chain; inside one, `next(error)` does the same.
 */
export function sendError(res: ServerResponse, error: unknown, options?: SendErrorOptions): void {
  const appSettings = errorSettingsFor(res.req);
  const settings =
    options === undefined ? appSettings : resolveErrorSettings('sendError', options, appSettings);
  answerError(res, error, settings);
}

/**
 * Marks a response this package cut. A registered symbol, as the `ApiError` brand: every copy
 * of the package (ESM and CommonJS builds) reads the same mark.
 */
const CUT = Symbol.for('@resourceful/error-envelope.cut');

type CutResponse = ServerResponse & { [CUT]?: true };

/**
 * Whether an error handler of this package cut `res`: an error reached it after the response
 * had started (headers sent), so the connection was closed with the response unfinished. A
 * response destroyed otherwise (the client went away) is not marked. For middleware that keeps
 * state while a response is pending (an idempotency lock) and must tell a failed response from
 * one whose handler may still be running.
 */
export function wasCutByErrorHandler(res: ServerResponse): boolean {
  return (res as CutResponse)[CUT] === true;
}

/** Writes the envelope (or cuts a half-sent response) and reports the error once. */
export function answerError(res: ServerResponse, cause: unknown, settings: ErrorSettings): void {
  const error = readableError(cause, settings.exposeInternals);
  const req: IncomingMessage | undefined = res.req;
  const requestId = requestIdOf(req);
  const headersSent = res.headersSent;
  if (headersSent) {
    // The status line is gone; the only honest signal left is a cut connection.
    if (!res.writableEnded) {
      (res as CutResponse)[CUT] = true;
      res.destroy();
    }
  } else if (!res.writableEnded) {
    writeEnvelope(res, error, settings, requestId);
  }
  reportError(settings, { error, cause, headersSent, req, requestId });
}

/**
 * `cause` mapped to an `ApiError`, or the generic 500 when reading it throws (a getter or a
 * Proxy trap that throws, a zod-shaped error whose issues are not objects): the handler must
 * answer with an envelope whatever was thrown, not fail into Express's HTML page.
 */
function readableError(cause: unknown, exposeInternals: boolean): ApiError {
  try {
    const error = toApiError(cause, { exposeInternals });
    if (isWritable(error)) return error;
  } catch {
    // Answered below.
  }
  return toApiError(new Error('The error passed to the error handler could not be read.'), {
    exposeInternals,
  });
}

/**
 * Whether the envelope and its headers can be written from `error` as this package reads it.
 * An `ApiError` of this copy always can; the brand is a registered symbol, so an object carrying
 * it may come from another copy of another shape (another major), or only pretend: a string
 * status, no `headers` or no `toJSON` would throw while the answer is half written, and Express
 * would send its HTML page instead of an envelope.
 */
function isWritable(error: ApiError): boolean {
  const { status, code, message, target, headers } = error;
  return (
    Number.isInteger(status) &&
    status >= 400 &&
    status <= 599 &&
    typeof code === 'string' &&
    typeof message === 'string' &&
    (target === undefined || typeof target === 'string') &&
    typeof headers === 'object' &&
    headers !== null &&
    typeof error.toJSON === 'function'
  );
}

export function reportError(
  settings: ErrorSettings,
  report: {
    error: ApiError;
    cause: unknown;
    headersSent: boolean;
    req: IncomingMessage | undefined;
    requestId: string | undefined;
  },
): void {
  const kind = classifyError(report.error);
  try {
    settings.onError({ ...report, status: report.error.status, kind, fault: kind === 'fault' });
  } catch (hookError) {
    // The response is written; a throw from here would reach Express's own final handler,
    // which cuts the connection. A failing hook (a metrics client that is down) is logged.
    console.error('error-envelope: onError threw', hookError);
  }
}

/** The headers an envelope is sent with, beyond Content-Type and Content-Length. */
export function envelopeHeaders(error: ApiError, settings: ErrorSettings): [string, string][] {
  const headers: [string, string][] = [];
  for (const [name, value] of Object.entries(error.headers)) {
    // node:http throws on an invalid header; skipping it keeps the envelope (and no CR/LF).
    if (
      isHeaderName(name) &&
      isHeaderValue(value) &&
      !BODY_FRAMING_HEADERS.has(name.toLowerCase())
    ) {
      headers.push([name, value]);
    }
  }
  // RFC 9110 §15.6.4 and RFC 6585 §4: tell a throttled or turned-away client when to retry.
  if (
    (error.status === 429 || error.status === 503) &&
    !headers.some(([name]) => name.toLowerCase() === 'retry-after')
  ) {
    headers.push(['Retry-After', String(settings.retryAfter)]);
  }
  const { codeHeader } = settings;
  if (codeHeader !== false && isHeaderName(codeHeader) && isHeaderValue(error.code)) {
    headers.push([codeHeader, error.code]);
  }
  return headers;
}

function writeEnvelope(
  res: ServerResponse,
  error: ApiError,
  settings: ErrorSettings,
  requestId: string | undefined,
): void {
  for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
  for (const [name, value] of envelopeHeaders(error, settings)) res.setHeader(name, value);
  const body = serialiseEnvelope(error, requestId);
  res.statusCode = error.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  // Given to HEAD too: Node sends no content for it (RFC 9110 §9.3.2), while a middleware that
  // rewrites the envelope (content negotiation's XML) sees it and sets the GET's headers.
  res.end(body);
}

/**
 * The envelope as JSON, with the request id in `innererror.request_id` (where Microsoft Graph
 * puts its `request-id`). When `details` or `innererror` hold what JSON cannot write (a BigInt,
 * a cycle), they are dropped: the client still gets the status, code, message and target.
 */
export function serialiseEnvelope(error: ApiError, requestId: string | undefined): string {
  try {
    return JSON.stringify(withRequestId(error.toJSON(), requestId));
  } catch {
    const { code, message, target } = error;
    const base: ErrorEnvelope = {
      error: target === undefined ? { code, message } : { code, message, target },
    };
    return JSON.stringify(withRequestId(base, requestId));
  }
}

function withRequestId(envelope: ErrorEnvelope, requestId: string | undefined): ErrorEnvelope {
  if (requestId === undefined) return envelope;
  envelope.error.innererror = { ...envelope.error.innererror, request_id: requestId };
  return envelope;
}
