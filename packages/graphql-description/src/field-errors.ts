/**
 * @module What a client sees of a resolver's failure, and what the app's `onError` hears of it.
 * graphql-js puts a thrown error's own message in `errors[].message`; for an unexpected error
 * that is an internal detail (SQL, file paths). Every field error is therefore answered as the
 * REST routes answer the same error (error-envelope's `toApiError` with the app's
 * `exposeInternals`): an `ApiError` keeps its message, and its code, target, details and
 * innererror move to `extensions`, with its status and `Retry-After` under `extensions.http`
 * (the shape GraphQL Yoga uses); anything else becomes the generic 500 message with code
 * `INTERNAL_SERVER_ERROR` (as Yoga and Apollo Server mask). Each is reported once to the app's
 * `errorHandler({ onError })` hook, as the REST error handler reports, so faults are logged
 * where REST's are.
 */
import type { IncomingMessage } from 'node:http';
import {
  type ApiError,
  classifyError,
  type ErrorSettings,
  errorSettingsFor,
  REQUEST_ID_KEY,
  toApiError,
} from '@resourceful/error-envelope';
import { type ExecutionResult, GraphQLError } from 'graphql';

/** The HTTP answer the same error gets from the REST routes, as Yoga's `extensions.http`. */
interface HttpExtension {
  status: number;
  headers?: Record<string, string>;
}

function retryAfterOf(error: ApiError, settings: ErrorSettings): string | undefined {
  const own = error.headers['Retry-After'];
  if (own !== undefined) return own;
  // RFC 9110 §10.2.3: REST sends the app's default on a 429 or 503 that sets none.
  return error.status === 429 || error.status === 503 ? String(settings.retryAfter) : undefined;
}

function requestIdOf(req: IncomingMessage): string | undefined {
  const value = (req as unknown as Record<PropertyKey, unknown>)[REQUEST_ID_KEY];
  return typeof value === 'string' && value !== '' && value.length <= 200 ? value : undefined;
}

/** One field error as the client may see it (see the module), reported to `onError`. */
function answerable(
  error: GraphQLError,
  req: IncomingMessage,
  settings: ErrorSettings,
): GraphQLError {
  const cause = error.originalError;
  // graphql-js's own errors (coercion, a non-null field resolved to null) and the GraphQLErrors
  // a resolver throws on purpose (their extensions set) are written for the client already.
  if (error.path === undefined || cause === undefined || cause instanceof GraphQLError) {
    return error;
  }
  const apiError = toApiError(cause, { exposeInternals: settings.exposeInternals });
  const kind = classifyError(apiError);
  try {
    settings.onError({
      error: apiError,
      cause,
      status: apiError.status,
      kind,
      fault: kind === 'fault',
      headersSent: false,
      req,
      requestId: requestIdOf(req),
    });
  } catch (hookError) {
    console.error('graphql-description: onError threw', hookError);
  }
  return new GraphQLError(apiError.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: apiErrorExtensions(apiError, retryAfterOf(apiError, settings)),
  });
}

/**
 * The `extensions` of a GraphQL error for `apiError`: its envelope's code, target, details and
 * innererror, and its status (and `Retry-After`) under `http`, so every refusal has one shape.
 */
export function apiErrorExtensions(
  apiError: ApiError,
  retryAfter?: string,
): Record<string, unknown> {
  const { message: _message, ...envelope } = apiError.toJSON().error;
  const http: HttpExtension = { status: apiError.status };
  if (retryAfter !== undefined) http.headers = { 'Retry-After': retryAfter };
  return { ...envelope, http };
}

/** The result with every field error answerable (see the module); the same object when none. */
export function answerableResult(result: ExecutionResult, req: IncomingMessage): ExecutionResult {
  if (result.errors === undefined || result.errors.length === 0) return result;
  const settings = errorSettingsFor(req);
  return { ...result, errors: result.errors.map((error) => answerable(error, req, settings)) };
}
