/**
 * @module The final Express error handler: every failure leaves as one `{ "error": … }` body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiError } from './api-error.js';
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

/** Ends the error chain of an app: `app.use(errorHandler())` after every route. */
export function errorHandler(options: ErrorHandlerOptions = {}) {
  const exposeInternals = options.exposeInternals ?? false;
  const codeHeader = options.codeHeader ?? DEFAULT_CODE_HEADER;
  const onError = options.onError ?? logFault;

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
    onError({
      error,
      cause,
      status: error.status,
      kind,
      fault: kind === 'fault',
      headersSent,
      req,
    });
  };
}
