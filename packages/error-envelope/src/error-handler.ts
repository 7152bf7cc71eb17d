/**
 * @module The final Express error handler: every failure leaves as one `{ "error": … }` body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  attachSettings,
  type ErrorHandlerOptions,
  resolveErrorSettings,
} from './error-settings.js';
import { answerError } from './send-error.js';

/**
 * Ends the error chain of an app: `app.use(errorHandler())` after every route. Its options
 * become the app's error settings: `sendError` from any package and the server-level handlers
 * find them through the app, so every envelope of the app is written and reported the same way.
 */
export function errorHandler(options: ErrorHandlerOptions = {}) {
  const settings = resolveErrorSettings('errorHandler', options);

  return attachSettings(function errorEnvelopeHandler(
    cause: unknown,
    _req: IncomingMessage,
    res: ServerResponse,
    // Express recognises error handlers by their four parameters.
    _next: (err?: unknown) => void,
  ): void {
    answerError(res, cause, settings);
  }, settings);
}
