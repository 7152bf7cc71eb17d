/**
 * @module The app's error configuration (the options given to `errorHandler`), found from a
 * request or a server, so every writer of an envelope (the error handler, `sendError` called
 * by another package, the server-level handlers for raw sockets) answers the same way.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { ApiError } from './api-error.js';
import { checkOptions, optionError } from './check-options.js';
import { isHeaderName } from './header-checks.js';

/** The header that carries the error code, so logs and proxies can read it without the body. */
export const DEFAULT_CODE_HEADER = 'Error-Code';

/** Seconds sent as `Retry-After` on a 429 or 503 whose error does not set its own. */
export const DEFAULT_RETRY_AFTER_SECONDS = 5;

/**
 * Where the request id lives on a request (set by `@resourceful/http-conventions`, or by any
 * middleware that gives requests an id). Read, never imported: any package may set it.
 */
export const REQUEST_ID_KEY = Symbol.for('@resourceful/request-id');

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
  /**
   * The request answered. Undefined for a refusal of bytes Node's parser could not read as a
   * request (`clientErrorHandler`): there is no request object then.
   */
  readonly req: IncomingMessage | undefined;
  /** The request's id (`innererror.request_id` of the envelope), when one is known. */
  readonly requestId: string | undefined;
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
  /**
   * Seconds sent as `Retry-After` on a 429 or 503 whose error sets none (RFC 9110 §10.2.3).
   * @default 5
   */
  retryAfter?: number;
}

export interface ErrorSettings {
  readonly exposeInternals: boolean;
  readonly codeHeader: string | false;
  readonly onError: (report: ErrorReport) => void;
  readonly retryAfter: number;
}

function logFault(report: ErrorReport): void {
  if (report.fault && process.env.NODE_ENV !== 'test') {
    console.error(report.cause instanceof Error ? report.cause : report.error);
  }
}

export const DEFAULT_ERROR_SETTINGS: ErrorSettings = Object.freeze({
  exposeInternals: false,
  codeHeader: DEFAULT_CODE_HEADER,
  onError: logFault,
  retryAfter: DEFAULT_RETRY_AFTER_SECONDS,
});

/** The options of `errorHandler`, which every factory of the package takes. */
export const OPTION_NAMES = ['exposeInternals', 'codeHeader', 'onError', 'retryAfter'] as const;

/**
 * Checks the options once, when the factory runs (a bad header name found by `setHeader` on
 * the first error would lose that envelope). Options left out come from `base`.
 */
export function resolveErrorSettings(
  factory: string,
  options: unknown,
  base: ErrorSettings = DEFAULT_ERROR_SETTINGS,
): ErrorSettings {
  const { exposeInternals, codeHeader, onError, retryAfter } = checkOptions(
    factory,
    options,
    OPTION_NAMES,
  );
  if (exposeInternals !== undefined && typeof exposeInternals !== 'boolean') {
    throw optionError(factory, 'exposeInternals', 'a boolean', exposeInternals);
  }
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
  if (
    retryAfter !== undefined &&
    (typeof retryAfter !== 'number' || !Number.isSafeInteger(retryAfter) || retryAfter < 0)
  ) {
    throw optionError(factory, 'retryAfter', 'a whole number of seconds (0 or more)', retryAfter);
  }
  return Object.freeze({
    exposeInternals: exposeInternals ?? base.exposeInternals,
    codeHeader: (codeHeader as string | false | undefined) ?? base.codeHeader,
    onError: (onError as ErrorSettings['onError'] | undefined) ?? base.onError,
    retryAfter: retryAfter ?? base.retryAfter,
  });
}

// Registered, so the CommonJS and ESM builds of this package find each other's handlers.
const SETTINGS_KEY = Symbol.for('@resourceful/error-envelope.settings');

/** Marks the error handler with its settings, which `errorSettingsFor` finds in the app. */
export function attachSettings<T extends object>(handler: T, settings: ErrorSettings): T {
  Object.defineProperty(handler, SETTINGS_KEY, { value: settings });
  return handler;
}

function settingsOf(value: unknown): ErrorSettings | undefined {
  if ((typeof value !== 'function' && typeof value !== 'object') || value === null) return;
  return (value as { [SETTINGS_KEY]?: ErrorSettings })[SETTINGS_KEY];
}

interface ExpressAppLike {
  _router?: { stack?: unknown };
  router?: { stack?: unknown };
  parent?: unknown;
}

/** The app's router stack: `_router` in Express 4, `router` in Express 5. */
function stackOf(app: ExpressAppLike): readonly unknown[] {
  let router = app._router;
  if (router === undefined) {
    try {
      // Express 4 defines `app.router` as a getter that throws (removed in 4.0).
      router = app.router;
    } catch {
      return [];
    }
  }
  return Array.isArray(router?.stack) ? router.stack : [];
}

const appSettings = new WeakMap<object, ErrorSettings>();

/** A router's own stack: `express.Router()` is a function with `stack` in Express 4 and 5. */
function routerStackOf(handle: unknown): readonly unknown[] | undefined {
  if (typeof handle !== 'function' && (typeof handle !== 'object' || handle === null)) return;
  const stack = (handle as { stack?: unknown }).stack;
  return Array.isArray(stack) ? stack : undefined;
}

/**
 * The settings of the first `errorHandler` in an app's stack, level by level: the app's own
 * first, then those mounted in its routers (`v1.use(errorHandler())`), nested to any depth.
 * Mounted sub-apps are not entered: their handler answers their own requests only.
 */
function settingsInStack(stack: readonly unknown[]): ErrorSettings | undefined {
  let level: readonly unknown[] = stack;
  const seen = new Set<unknown>();
  for (let depth = 0; level.length > 0 && depth < 16; depth++) {
    const next: unknown[] = [];
    for (const layer of level) {
      const handle = (layer as { handle?: unknown }).handle;
      const found = settingsOf(handle);
      if (found) return found;
      const inner = routerStackOf(handle);
      if (inner !== undefined && !seen.has(inner)) {
        seen.add(inner);
        next.push(...inner);
      }
    }
    level = next;
  }
  return undefined;
}

/**
 * The settings of the `errorHandler` mounted on this Express app (or in one of its routers), or
 * on the app it is mounted in (a sub-app's errors usually reach its parent's handler).
 */
export function settingsOfApp(app: unknown): ErrorSettings | undefined {
  for (let current = app, depth = 0; current && depth < 16; depth++) {
    if (typeof current !== 'function' && typeof current !== 'object') return undefined;
    const cached = appSettings.get(current);
    if (cached) return cached;
    const found = settingsInStack(stackOf(current as ExpressAppLike));
    if (found) {
      // Only found settings are remembered: an app may mount its error handler later.
      appSettings.set(current, found);
      return found;
    }
    current = (current as ExpressAppLike).parent;
  }
  return undefined;
}

/**
 * The error settings that apply to a request: those of the `errorHandler` of the Express app
 * answering it (`req.app`), else the defaults. Other packages use it to agree with the app,
 * e.g. to replay the configured code header.
 */
export function errorSettingsFor(req: IncomingMessage | undefined): ErrorSettings {
  return settingsOfApp((req as { app?: unknown } | undefined)?.app) ?? DEFAULT_ERROR_SETTINGS;
}

/** The settings of the app a server serves (its `request` listeners), for raw-socket answers. */
export function settingsOfServer(server: unknown): ErrorSettings {
  if (typeof (server as Server | undefined)?.listeners !== 'function') {
    return DEFAULT_ERROR_SETTINGS;
  }
  for (const listener of (server as Server).listeners('request')) {
    const found = settingsOfApp(listener);
    if (found) return found;
  }
  return DEFAULT_ERROR_SETTINGS;
}

/** The request id another middleware stored on the request, if it is a usable string. */
export function requestIdOf(req: IncomingMessage | undefined): string | undefined {
  const value = (req as { [REQUEST_ID_KEY]?: unknown } | undefined)?.[REQUEST_ID_KEY];
  return typeof value === 'string' && value.length > 0 && value.length <= 200 ? value : undefined;
}
