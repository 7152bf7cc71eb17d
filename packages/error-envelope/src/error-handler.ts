/**
 * @module The final Express error handler: every failure leaves as one `{ "error": … }` body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from './api-error.js';
import { checkOptions, optionError } from './check-options.js';
import { isHeaderName } from './header-checks.js';
import { toApiError } from './normalize.js';
import { DEFAULT_CODE_HEADER, sendError } from './send-error.js';

/**
 * How an error counts for availability (spec, "Errors"): 5xx are faults and reduce it, except a
 * throttling rejection; 4xx are the client's and do not.
 */
export type ErrorKind = 'fault' | 'client-error' | 'throttled';

export interface ErrorReport {
  readonly error: ApiError;
  /** What was thrown or passed to `next`, before it was mapped to `error`. */
  readonly cause: unknown;
  readonly status: number;
  readonly kind: ErrorKind;
  /** `kind === 'fault'`: counts against availability. */
  readonly fault: boolean;
  /** The response had already started; the envelope could not be sent. */
  readonly headersSent: boolean;
  readonly req: IncomingMessage;
}

export interface ErrorHandlerOptions {
  /**
   * Put the message and stack of unknown errors into `innererror`. Never in production.
   * @default false
   */
  exposeInternals?: boolean;
  /**
   * Header carrying the error code (as Azure's `x-ms-error-code`), or `false` for none.
   * @default 'Error-Code'
   */
  codeHeader?: string | false;
  /**
   * Called once per error, after the response is written. Default: faults are written to
   * stderr (unless `NODE_ENV` is `test`), client errors are not.
   */
  onError?: (report: ErrorReport) => void;
}

export function classifyError(error: ApiError): ErrorKind {
  if (error.throttling) return 'throttled';
  return error.status >= 500 ? 'fault' : 'client-error';
}

function logFault(report: ErrorReport): void {
  if (report.fault && process.env.NODE_ENV !== 'test') {
    console.error(report.cause instanceof Error ? report.cause : report.error);
  }
}

const KNOWN_OPTIONS = ['exposeInternals', 'codeHeader', 'onError'];

function resolveOptions(options: unknown): Required<ErrorHandlerOptions> {
  const factory = 'errorHandler';
  const { exposeInternals, codeHeader, onError } = checkOptions(factory, options, KNOWN_OPTIONS);
  if (exposeInternals !== undefined && typeof exposeInternals !== 'boolean') {
    throw optionError(factory, 'exposeInternals', 'a boolean', exposeInternals);
  }
  // Checked here, not by setHeader on the first error: there it would lose the envelope.
  if (codeHeader !== undefined && codeHeader !== false && !isHeaderName(codeHeader)) {
    throw optionError(
      factory,
      'codeHeader',
      'a header name such as "Error-Code", or false',
      codeHeader,
    );
  }
  if (onError !== undefined && typeof onError !== 'function') {
    throw optionError(factory, 'onError', 'a function', onError);
  }
  return {
    exposeInternals: exposeInternals ?? false,
    codeHeader: codeHeader ?? DEFAULT_CODE_HEADER,
    onError: (onError as ErrorHandlerOptions['onError']) ?? logFault,
  };
}

/** Ends the error chain of an app: `app.use(errorHandler())` after every route. */
export function errorHandler(options: ErrorHandlerOptions = {}) {
  const { exposeInternals, codeHeader, onError } = resolveOptions(options);

  return function errorEnvelopeHandler(
    cause: unknown,
    req: IncomingMessage,
    res: ServerResponse,
    // Express recognises error handlers by their four parameters.
    _next: (err?: unknown) => void,
  ): void {
    const error = toApiError(cause, { exposeInternals });
    const headersSent = res.headersSent;
    if (headersSent) {
      // The status line is gone; the only honest signal left is a cut connection.
      if (!res.writableEnded) res.destroy();
    } else {
      sendError(res, error, { codeHeader });
    }
    const kind = classifyError(error);
    try {
      onError({
        error,
        cause,
        status: error.status,
        kind,
        fault: kind === 'fault',
        headersSent,
        req,
      });
    } catch (hookError) {
      // The response is written; a throw from here would reach Express's own final handler,
      // which cuts the connection. A failing hook (a metrics client that is down) is logged.
      console.error('errorHandler: onError threw', hookError);
    }
  };
}
