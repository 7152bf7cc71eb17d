/**
 * @module The middleware: `/v{N}/...` dispatched to that version's router, unknown versions
 * refused with 400, discovery of the served versions, deprecation headers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, type ErrorDetail } from '@resourceful/error-envelope';
import { takeQueryHeaders } from '@resourceful/http-conventions';
import { appendLink, appendVary } from './header-values.js';
import { MOUNTED_VERSIONS, type MountedVersion } from './mounted-versions.js';
import {
  type ResolvedOptions,
  type ResolvedVersion,
  resolveOptions,
  type VersionedRouterOptions,
} from './options.js';
import { isVersionLike, requestedVersionKey } from './version-segment.js';

type Next = (err?: unknown) => void;

/** Express's mount bookkeeping; absent on a plain `node:http` request. */
interface MountableRequest extends IncomingMessage {
  baseUrl?: string;
  originalUrl?: string;
}

export interface VersionedRouterMiddleware {
  (req: IncomingMessage, res: ServerResponse, next: Next): void;
  readonly [MOUNTED_VERSIONS]: readonly MountedVersion[];
}

interface SplitUrl {
  /** `http://host` of an absolute-form request target, else `''`. */
  protohost: string;
  pathname: string;
}

function splitUrl(url: string): SplitUrl {
  let protohost = '';
  if (!url.startsWith('/')) {
    // absolute-form request target (RFC 9112 §3.2.2), as Express handles it
    const schemeEnd = url.indexOf('://');
    const queryStart = url.indexOf('?');
    if (schemeEnd !== -1 && (queryStart === -1 || schemeEnd < queryStart)) {
      const pathStart = url.indexOf('/', schemeEnd + 3);
      protohost = pathStart === -1 ? url : url.slice(0, pathStart);
    }
  }
  const rest = url.slice(protohost.length);
  const queryStart = rest.indexOf('?');
  return { protohost, pathname: queryStart === -1 ? rest : rest.slice(0, queryStart) };
}

function firstSegment(pathname: string): string {
  if (!pathname.startsWith('/')) return '';
  const end = pathname.indexOf('/', 1);
  return end === -1 ? pathname.slice(1) : pathname.slice(1, end);
}

/**
 * Whether `pathname`, without one trailing slash, is the discovery path case-insensitively.
 * The lengths are compared first: lower-casing keeps a path's length except for characters
 * (`İ`) whose lower case cannot be in an ASCII discovery path anyway.
 */
function isDiscoveryPath(pathname: string, discoveryPath: string): boolean {
  const length = pathname.endsWith('/') ? pathname.length - 1 : pathname.length;
  return (
    length === discoveryPath.length && pathname.slice(0, length).toLowerCase() === discoveryPath
  );
}

/** Versions are echoed only when short and made of `v`, digits and dots. */
function quoted(value: string): string {
  return value.length <= 16 && /^[vV0-9.]+$/.test(value) ? ` "${value}"` : '';
}

function unsupported(options: ResolvedOptions, requested: string, target: string): ApiError {
  const details: ErrorDetail[] = options.versions.map((version) => ({
    code: 'UNSUPPORTED_VERSION',
    message: `Version ${version.name} is served.`,
    target: version.name,
  }));
  const served = options.versions.map((version) => version.name).join(', ');
  return new ApiError({
    status: 400,
    code: 'UNSUPPORTED_VERSION',
    message: `The API version${quoted(requested)} is not served. Served versions: ${served}.`,
    target,
    details,
  });
}

function setDeprecationHeaders(res: ServerResponse, version: ResolvedVersion): void {
  const headers = version.deprecation;
  if (headers === undefined) return;
  res.setHeader('Deprecation', headers.deprecation);
  if (headers.sunset !== undefined) res.setHeader('Sunset', headers.sunset);
  if (headers.link !== undefined) appendLink(res, headers.link);
}

/**
 * Runs a version's handler as Express runs a mounted router: with `prefix` removed from
 * `req.url` and added to `req.baseUrl`, both restored before `next` continues. A throw or a
 * rejected promise reaches `next` exactly once.
 */
function dispatch(
  req: MountableRequest,
  res: ServerResponse,
  next: Next,
  version: ResolvedVersion,
  url: SplitUrl,
  prefix: string,
): void {
  const savedUrl = req.url;
  const savedBaseUrl = req.baseUrl;
  if (prefix !== '' && savedUrl !== undefined) {
    const rest = savedUrl.slice(url.protohost.length + prefix.length);
    req.url = url.protohost + (rest.startsWith('/') ? rest : `/${rest}`);
    req.baseUrl = (savedBaseUrl ?? '') + prefix;
  }
  setDeprecationHeaders(res, version);
  let finished = false;
  const done: Next = (err) => {
    if (finished) return;
    finished = true;
    req.url = savedUrl;
    req.baseUrl = savedBaseUrl;
    next(err ?? undefined);
  };
  try {
    const result = version.handler(req, res, done);
    // Any thenable, as Express 5's router (router 2's `isPromise`) waits on one, not only a
    // native promise. `||`, as it routes a rejection: a falsy reason (`''`, `0`, `false`)
    // handed to `next` as it is would mean "no error" and run the next route.
    if (isThenable(result))
      result.then(undefined, (error: unknown) => done(error || new Error('Rejected promise')));
  } catch (error) {
    done(error);
  }
}

/** A promise or promise-like result (the `is-promise` test router 2 makes). */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

const DISCOVERY_METHODS = ['GET', 'HEAD', 'OPTIONS'];

function answerDiscovery(
  req: IncomingMessage,
  res: ServerResponse,
  next: Next,
  body: string,
  helpLink: string | undefined,
): void {
  if (req.method === 'OPTIONS') {
    // RFC 9110 §9.3.7: OPTIONS describes what the resource allows; the spec's verb table asks
    // for at least the supported verbs, and lets a Link with rel help point at the documentation.
    res.statusCode = 204;
    res.setHeader('Allow', DISCOVERY_METHODS.join(', '));
    if (helpLink !== undefined) res.setHeader('Link', helpLink);
    res.end();
    return;
  }
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    next(ApiError.methodNotAllowed(DISCOVERY_METHODS));
    return;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  // Given to HEAD too: Node sends no content for it, and a middleware rewriting the body
  // (content negotiation's XML) sets the headers the GET gets (RFC 9110 §9.3.2).
  res.end(body);
}

/**
 * Mounts one router per API version at `/{version}`: `/v1/...` runs the `v1` router with the
 * prefix removed (as `app.use('/v1', router)` would). A first path segment that looks like a
 * version but is not served answers 400 `UNSUPPORTED_VERSION`; any other unknown path goes on to
 * the app's 404. `GET /api` (configurable) lists the versions.
 *
 * @example
 * app.use(versionedRouter({
 *   versions: {
 *     v1: { router: v1, deprecation: { date: '2025-01-01', sunset: '2026-01-01', link: 'https://example.com/v2' } },
 *     v2,
 *   },
 * }));
 */
export function versionedRouter(options: VersionedRouterOptions): VersionedRouterMiddleware {
  const resolved = resolveOptions(options);
  const discoveryBody = JSON.stringify({ versions: resolved.versions.map((v) => v.name) });
  const discoveryPath = resolved.discoveryPath?.toLowerCase();
  const header = resolved.header;
  const headerKey = header?.toLowerCase();
  // The segments that name a served version as declared (`v1`) or with a capital `V` (`V1`),
  // found without the general parse below, which maps them to the same version.
  const servedSegments = new Map<string, { version: ResolvedVersion; prefix: string }>();
  for (const version of resolved.versions) {
    for (const segment of [version.name, `V${version.name.slice(1)}`]) {
      servedSegments.set(segment, { version, prefix: `/${segment}` });
    }
  }

  function versionedRouterMiddleware(req: IncomingMessage, res: ServerResponse, next: Next): void {
    const url = splitUrl(req.url ?? '/');

    if (discoveryPath !== undefined && isDiscoveryPath(url.pathname, discoveryPath)) {
      answerDiscovery(req, res, next, discoveryBody, resolved.helpLink);
      return;
    }

    const segment = firstSegment(url.pathname);
    const served = servedSegments.get(segment);
    if (served !== undefined) {
      dispatch(req, res, next, served.version, url, served.prefix);
      return;
    }
    if (isVersionLike(segment)) {
      const key = requestedVersionKey(segment);
      const version = key === undefined ? undefined : resolved.byKey.get(key);
      if (version === undefined) {
        next(unsupported(resolved, segment, 'version'));
        return;
      }
      dispatch(req, res, next, version, url, `/${segment}`);
      return;
    }

    if (header === undefined || headerKey === undefined) {
      next();
      return;
    }
    // The answer to an unversioned path depends on the header from here on.
    appendVary(res, header);
    // The same-named query parameter stands in for an absent header (spec: any header may be
    // sent as a query parameter); http-conventions copies it, as for every package.
    try {
      takeQueryHeaders(req, [header]);
    } catch (error) {
      next(error);
      return;
    }
    const sent = req.headers[headerKey];
    const requested = Array.isArray(sent) ? sent.join(', ') : sent;
    if (requested === undefined) {
      next();
      return;
    }
    const value = requested.trim();
    if (value === '') {
      next();
      return;
    }
    const key = requestedVersionKey(value, true);
    const version = key === undefined ? undefined : resolved.byKey.get(key);
    if (version === undefined) {
      next(unsupported(resolved, value, header));
      return;
    }
    dispatch(req, res, next, version, url, '');
  }

  const mounted: readonly MountedVersion[] = Object.freeze(
    resolved.versions.map((version) =>
      Object.freeze({ name: version.name, prefix: `/${version.name}`, handler: version.handler }),
    ),
  );
  Object.defineProperty(versionedRouterMiddleware, MOUNTED_VERSIONS, { value: mounted });
  return versionedRouterMiddleware as VersionedRouterMiddleware;
}
