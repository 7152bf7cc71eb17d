/**
 * @module The handler for requests no route matched.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './api-error.js';
import { checkOptions, optionError } from './check-options.js';

export interface NotFoundHandlerOptions {
  /** @default 'No resource matches this path.' */
  message?: string;
}

/** Mount after every route: `app.use(notFoundHandler())`. Passes a 404 `NOT_FOUND` on. */
export function notFoundHandler(options: NotFoundHandlerOptions = {}) {
  const { message } = checkOptions('notFoundHandler', options, ['message']);
  // The spec's error body requires a message: readable text, so not an empty or blank one.
  if (message !== undefined && (typeof message !== 'string' || message.trim() === '')) {
    throw optionError('notFoundHandler', 'message', 'a non-empty string', message);
  }
  const resolvedMessage = message ?? 'No resource matches this path.';
  return function notFoundEnvelopeHandler(
    _req: IncomingMessage,
    _res: ServerResponse,
    next: (err?: unknown) => void,
  ): void {
    // The path is not echoed: it is client input and may be huge or carry markup.
    next(ApiError.notFound(resolvedMessage));
  };
}
