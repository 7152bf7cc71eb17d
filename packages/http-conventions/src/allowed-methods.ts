/**
 * @module OPTIONS and 405 from the app's real routes. The spec's verb table: OPTIONS "returns
 * at least the supported verbs" and "may add a `Link` header with rel help"; RFC 9110 §15.5.6:
 * a 405 "MUST generate an Allow header field". An unknown path stays the app's 404.
 */

import type { IncomingMessage, ServerResponse } from 'node:http';
import { shareShape } from '@resourceful/application-hooks';
import { ApiError } from '@resourceful/error-envelope';
import { helpLinkOption } from '@resourceful/option-checks';
import { checkOptions } from './options.js';
import {
  allowList,
  appStack,
  methodsOfAnyRoute,
  refusedAt,
  routesRefusing,
  servedMethods,
} from './route-methods.js';

export interface AllowedMethodsOptions {
  /**
   * The API's documentation, sent on every OPTIONS answer as `Link: <help>; rel="help"`
   * (RFC 8288; `help` is an IANA link relation); several URLs (a reference page and a
   * machine-readable description) are one link each, in order. `false` sends no Link.
   * @default false
   */
  help?: string | readonly string[] | false;
}

type Next = (err?: unknown) => void;

export interface ExpressRequest extends IncomingMessage {
  app?: unknown;
  originalUrl?: string;
  baseUrl?: string;
}

function pathname(url: string): string {
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  // absolute-form request target (RFC 9112 §3.2.2)
  if (path.startsWith('/')) return path;
  const scheme = path.indexOf('://');
  if (scheme === -1) return path;
  const slash = path.indexOf('/', scheme + 3);
  return slash === -1 ? '/' : path.slice(slash);
}

/**
 * The path as the app the request is in (`req.app`) registers its routes: the whole path for
 * the main app; for a sub-app (`app.use('/x', subApp)`, or under a router), the part below its
 * mount point, which is `req.baseUrl` where the sub-app's own top-level middleware runs. A
 * middleware inside a router of the app reads the whole path, as the app's routes are walked
 * from the top.
 */
function appPath(req: ExpressRequest, atTop: boolean): string {
  const path = pathname(req.originalUrl ?? req.url ?? '/');
  const base = req.baseUrl;
  if (!atTop || !base || !path.startsWith(base)) return path;
  const below = path.slice(base.length);
  return below.startsWith('/') ? below : `/${below}`;
}

/** `checkAllowedMethods` answered the request itself (OPTIONS). */
export const ANSWERED: unique symbol = Symbol('answered');

/**
 * What `allowedMethods()` does with one request: `ANSWERED` (an OPTIONS it answered), the 405
 * error, or `undefined` (passed on).
 */
export type CheckAllowedMethods = (
  req: ExpressRequest,
  res: ServerResponse,
) => typeof ANSWERED | ApiError | undefined;

/**
 * Checks the options and makes the per-request work (shared with `httpConventions`).
 * `isOwnLayer` tells the middleware that runs it apart in an app's stack.
 */
export function allowedMethodsStep(
  options: AllowedMethodsOptions,
  isOwnLayer: (handle: unknown) => boolean,
): CheckAllowedMethods {
  const checked = checkOptions<AllowedMethodsOptions>('allowedMethods', options, ['help']);
  const link = helpLinkOption('allowedMethods', checked.help);

  /** Per app: whether this middleware is in the app's own stack (rather than in a router). */
  const topOf = new WeakMap<object, boolean>();

  function isAtTop(app: unknown): boolean {
    if ((typeof app !== 'function' && typeof app !== 'object') || app === null) return false;
    let known = topOf.get(app);
    if (known === undefined) {
      known = appStack(app).some((layer) => isOwnLayer(layer.handle));
      topOf.set(app, known);
    }
    return known;
  }

  /** 204 with `Allow` (and `Link`): no content to describe beyond the headers (§9.3.7). */
  function answerOptions(res: ServerResponse, allow: readonly string[]): typeof ANSWERED {
    res.statusCode = 204;
    res.setHeader('Allow', allow.join(', '));
    if (link !== undefined) res.setHeader('Link', link);
    res.end();
    return ANSWERED;
  }

  return function checkAllowedMethods(req: ExpressRequest, res: ServerResponse) {
    const method = req.method ?? 'GET';
    // `OPTIONS *` asks about the server, not a resource (RFC 9110 §9.3.7): the methods some
    // route serves, rather than the 404 of a path no route has.
    if (method === 'OPTIONS' && (req.originalUrl ?? req.url) === '*') {
      const allow = allowList(methodsOfAnyRoute(req.app));
      return answerOptions(res, allow.length === 0 ? ['OPTIONS'] : allow);
    }
    // Only a path that a route refusing the method matches can be a 405: with none (a method
    // every route serves, such as GET in many APIs), or none matching, the other routes are
    // not walked.
    const refusing = method === 'OPTIONS' ? undefined : routesRefusing(req.app, method);
    if (refusing !== undefined && refusing.size === 0) return undefined;
    const path = appPath(req, isAtTop(req.app));
    if (refusing !== undefined && !refusedAt(req.app, path, refusing)) return undefined;
    // OPTIONS needs every method; any other request only whether its own is served.
    const served = servedMethods(req.app, path, method === 'OPTIONS' ? undefined : method);
    if (method !== 'OPTIONS') {
      // Served here (HEAD wherever GET is), by an `.all()` route, or by no route at all.
      const { methods } = served;
      if (
        served.anyMethod ||
        methods.size === 0 ||
        methods.has(method) ||
        (method === 'HEAD' && methods.has('GET'))
      ) {
        return undefined;
      }
      return ApiError.methodNotAllowed(allowList(served));
    }
    const allow = allowList(served);
    if (allow.length === 0) return undefined;
    return answerOptions(res, allow);
  };
}

/**
 * Answers OPTIONS with `Allow` (and `Link rel="help"`), and a method the path does not serve
 * with a 405 envelope carrying `Allow`. Mount it at the top of the app before the routes (and
 * at the top of each sub-app): Express's own OPTIONS answer (`text/plain`) and the handlers
 * (and their side effects) never run for those. Paths with no route (404s, middleware such as
 * proxies, sub-apps) pass through; a path an `.all()` route serves takes every method, and its
 * OPTIONS lists `ANY_METHOD_ALLOW`.
 */
export function allowedMethods(options: AllowedMethodsOptions = {}) {
  const check = allowedMethodsStep(options, (handle) => handle === allowedMethodsMiddleware);

  function allowedMethodsMiddleware(req: ExpressRequest, res: ServerResponse, next: Next) {
    shareShape(req);
    shareShape(res);
    const outcome = check(req, res);
    if (outcome !== ANSWERED) next(outcome);
  }

  return allowedMethodsMiddleware;
}
