/**
 * @module Express (or plain node:http) middleware that relays requests to a cluster service
 * through the control plane's service proxy, with the proxy's credentials. The client's own
 * `Authorization` and cookies stay here. The control plane prefixes absolute links with
 * `/api/v1/namespaces/{ns}/services/{svc}/proxy`; they are mapped back to the mount path.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, sendError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  invalidOption,
  millisecondsOption,
  OPTION_ERROR_CODES,
  optionError,
  stringOption,
} from '@resourceful/option-checks';
import type { ClusterCredentials } from './cluster-credentials.js';
import { isNamespaceName, isPortName, isServiceName } from './kubernetes-names.js';
import { credentialsOption, targetOptions } from './option-values.js';
import { originForm } from './origin-form.js';
import { type RelayPolicy, relayRequest, relayUpgrade } from './relay.js';
import { suffixProblem } from './safe-suffix.js';
import { type ServiceScheme, serviceProxyPrefix } from './service-proxy-path.js';
import { responseOnSocket } from './socket-response.js';

export interface ServiceProxyParams {
  /** Route parameter holding the namespace. */
  namespace?: string;
  /** Route parameter holding the service name. */
  service?: string;
  /** Route parameter holding the port name or number. */
  port?: string;
}

export interface ServiceProxyOptions {
  /** How to reach the control plane (`findClusterCredentials()` / `createClusterCredentials()`). */
  credentials: ClusterCredentials;
  /** Namespace of the service; default the credentials' namespace, then `default`. */
  namespace?: string;
  /** The service to relay to. Required unless `params.service` is given. */
  service?: string;
  /** Port name or number; left out when the service has a single unnamed port. */
  port?: string | number;
  /** Scheme toward the service (`https` for TLS services). */
  scheme?: ServiceScheme;
  /** Take namespace, service or port from route parameters instead (requires `allow`). */
  params?: ServiceProxyParams;
  /**
   * Services that route parameters may name: `namespace/service`, `namespace/service:port`,
   * or `namespace/*`. Anything else answers 404.
   */
  allow?: readonly string[];
  /** Idle timeout toward the control plane in ms; 504 when it passes. @default 30000 */
  timeoutMs?: number;
  /** Map the control plane's prefix in `Location` back to the mount path. @default true */
  rewriteLocation?: boolean;
  /** Also map it in HTML bodies (buffers `text/html` answers up to 10 MiB). @default false */
  rewriteHtml?: boolean;
  /** Mount path used by `upgrade` (outside Express there is no `baseUrl`). @default '' */
  mountPath?: string;
}

export const DEFAULT_SERVICE_PROXY_TIMEOUT_MS = 30_000;

type ExpressishRequest = IncomingMessage & {
  baseUrl?: string;
  originalUrl?: string;
  params?: Record<string, string | undefined>;
  body?: unknown;
};

export interface ServiceProxyMiddleware {
  (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void): void;
  /** Relays WebSocket upgrades: `server.on('upgrade', middleware.upgrade)`. Fixed target only. */
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
}

const OPTION_NAMES: readonly string[] = [
  'credentials',
  'namespace',
  'service',
  'port',
  'scheme',
  'params',
  'allow',
  'timeoutMs',
  'rewriteLocation',
  'rewriteHtml',
  'mountPath',
];

interface Target {
  namespace: string;
  service: string;
  port: string | undefined;
}

/**
 * A form a body parser read (`querystring`'s or `qs`'s shape, as Express's `urlencoded` gives
 * it) as `application/x-www-form-urlencoded` again, in a form both parsers read back the same:
 * an array as its key repeated (`tag=a&tag=b`), a nested object in brackets (`meta[k]=v`), an
 * object inside an array with its index (`items[0][id]=1`).
 */
function encodeForm(form: unknown): string {
  const pairs = new URLSearchParams();
  const add = (key: string, value: unknown): void => {
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        add(item !== null && typeof item === 'object' ? `${key}[${index}]` : key, item);
      });
    } else if (value !== null && typeof value === 'object') {
      for (const [name, item] of Object.entries(value)) add(`${key}[${name}]`, item);
    } else {
      pairs.append(key, value === undefined || value === null ? '' : String(value));
    }
  };
  if (form !== null && typeof form === 'object') {
    for (const [key, value] of Object.entries(form)) add(key, value);
  }
  return pairs.toString();
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function parseAllowEntry(
  entry: unknown,
  index: number,
): { namespace: string; service: string; port?: string } {
  const match = typeof entry === 'string' ? /^([^/]+)\/([^:]+)(?::(.+))?$/.exec(entry) : null;
  if (
    !match ||
    !isNamespaceName(match[1] ?? '') ||
    (match[2] !== '*' && !isServiceName(match[2] ?? '')) ||
    (match[3] !== undefined && !isPortName(match[3]))
  ) {
    invalidOption(
      FACTORY,
      `allow[${index}]`,
      '"namespace/service", "namespace/service:port" or "namespace/*" (Kubernetes names)',
      entry,
    );
  }
  return { namespace: match[1] as string, service: match[2] as string, port: match[3] };
}

const FACTORY = 'serviceProxy';
/** `application/json` and the `+json` suffix types (RFC 6839), parameters allowed. */
const JSON_TYPE = /^\s*[^\s/;]+\/(?:[^\s;]*\+)?json\s*(?:;|$)/i;
const PARAM_NAMES = ['namespace', 'service', 'port'];

/** `params`: route parameter names, each a non-empty string. */
function paramsOption(value: unknown): ServiceProxyParams {
  if (value === undefined) return {};
  if (
    typeof value !== 'object' ||
    value === null ||
    (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null)
  ) {
    invalidOption(FACTORY, 'params', 'an object such as { service: "service" }', value);
  }
  assertKnownOptions(FACTORY, value, PARAM_NAMES, 'params');
  const params = value as Record<string, unknown>;
  for (const name of PARAM_NAMES) {
    stringOption(FACTORY, `params.${name}`, params[name], {
      nonEmpty: true,
      expected: 'the name of a route parameter',
    });
  }
  return params as ServiceProxyParams;
}

/** Builds the relay middleware. Options are checked here, once. */
export function serviceProxy(options: ServiceProxyOptions): ServiceProxyMiddleware {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, OPTION_NAMES);
  const credentials = credentialsOption(FACTORY, options.credentials);
  const params = paramsOption(options.params);
  const fromParams =
    params.namespace !== undefined || params.service !== undefined || params.port !== undefined;
  if (options.allow !== undefined && !Array.isArray(options.allow)) {
    invalidOption(FACTORY, 'allow', 'an array such as ["namespace/service"]', options.allow);
  }
  const rewriteLocation = booleanOption(FACTORY, 'rewriteLocation', options.rewriteLocation, true);
  const rewriteHtml = booleanOption(FACTORY, 'rewriteHtml', options.rewriteHtml, false);
  // Validates the fixed parts now, so a typo fails at start-up rather than per request.
  const fixedTarget = targetOptions(
    FACTORY,
    { ...options, port: params.port === undefined ? options.port : undefined },
    credentials,
    params,
  );
  const allow = (options.allow ?? []).map(parseAllowEntry);
  if (fromParams && allow.length === 0) {
    throw optionError(
      OPTION_ERROR_CODES.conflictingOptions,
      FACTORY,
      'a target taken from route parameters ("params") needs an allow list (allow: ["namespace/service"]).',
      'allow',
    );
  }
  const namespace = fixedTarget.namespace as string;
  const timeoutMs = millisecondsOption(
    FACTORY,
    'timeoutMs',
    options.timeoutMs,
    DEFAULT_SERVICE_PROXY_TIMEOUT_MS,
  );
  const mountPathOption = stringOption(FACTORY, 'mountPath', options.mountPath, {
    expected: 'a path starting with "/" (or "")',
  });
  if (mountPathOption !== undefined && mountPathOption !== '' && !mountPathOption.startsWith('/')) {
    invalidOption(FACTORY, 'mountPath', 'a path starting with "/" (or "")', mountPathOption);
  }
  const fixedPort = fixedTarget.port;
  const serverOrigin = credentials.server.origin;
  const serverPath = credentials.server.pathname.replace(/\/+$/, '');

  const resolveTarget = (req: ExpressishRequest): Target => {
    const read = (name: string | undefined, fixed: string | undefined, what: keyof Target) => {
      if (name === undefined) return fixed;
      const value = req.params?.[name];
      if (typeof value !== 'string' || value === '') {
        throw ApiError.invalidRequest(`The route parameter "${name}" is missing.`, {
          target: name,
        });
      }
      const ok =
        what === 'namespace'
          ? isNamespaceName(value)
          : what === 'service'
            ? isServiceName(value)
            : isPortName(value);
      if (!ok) {
        throw ApiError.invalidRequest(`"${name}" is not a valid Kubernetes ${what} name.`, {
          target: name,
        });
      }
      return value;
    };
    const target: Target = {
      namespace: read(params.namespace, namespace, 'namespace') as string,
      service: read(params.service, fixedTarget.service, 'service') as string,
      port: read(params.port, fixedPort, 'port'),
    };
    if (fromParams) {
      const allowed = allow.some(
        (entry) =>
          entry.namespace === target.namespace &&
          (entry.service === '*' || entry.service === target.service) &&
          (entry.port === undefined || entry.port === target.port),
      );
      if (!allowed) {
        throw ApiError.notFound('No relayed service matches this path.', {
          target: params.service ?? params.namespace ?? params.port,
        });
      }
    }
    return target;
  };

  const policyFor = (prefix: string, mount: string): RelayPolicy => {
    const upstreamPrefix = serverPath + prefix;
    const pattern = new RegExp(
      `(?:${escapeRegExp(serverOrigin)})?${escapeRegExp(upstreamPrefix)}(?=[/"'?#]|$)`,
      'g',
    );
    const mapLink = (value: string) => value.replace(pattern, mount);
    return {
      credentials,
      clientCredentials: 'strip',
      timeoutMs,
      mapResponseHeaders: rewriteLocation
        ? (headers: OutgoingHttpHeaders) => {
            const location = headers.location;
            if (typeof location === 'string') {
              const mapped = mapLink(location);
              headers.location = mapped === '' ? '/' : mapped;
            }
          }
        : undefined,
      rewriteBody: rewriteHtml
        ? (headers) =>
            /^text\/html\b/i.test(String(headers['content-type'] ?? '')) ? mapLink : undefined
        : undefined,
    };
  };

  /** The suffix (still encoded) and query of the request below the mount path. */
  const splitTarget = (
    req: ExpressishRequest,
  ): { suffix: string; query: string; mount: string } => {
    const original = originForm(req.originalUrl ?? req.url ?? '/');
    const queryAt = original.indexOf('?');
    const path = queryAt === -1 ? original : original.slice(0, queryAt);
    const query = queryAt === -1 ? '' : original.slice(queryAt);
    const mount = (req.baseUrl ?? '').replace(/\/+$/, '');
    let suffix = path.startsWith(mount)
      ? path.slice(mount.length)
      : ((req.url ?? '/').split('?')[0] ?? '');
    if (suffix !== '' && !suffix.startsWith('/')) suffix = `/${suffix}`;
    return { suffix, query, mount };
  };

  const bodyOf = (req: ExpressishRequest): Buffer | undefined => {
    if (!req.readableEnded) return undefined;
    // A body parser ran first: send what it parsed, re-encoded.
    const body: unknown = req.body;
    if (body === undefined) return Buffer.alloc(0);
    if (Buffer.isBuffer(body)) return body;
    const type = String(req.headers['content-type'] ?? '');
    // A JSON body is its value's JSON text, even a bare string or `null` (`strict: false`).
    if (JSON_TYPE.test(type)) return Buffer.from(JSON.stringify(body));
    if (body === null) return Buffer.alloc(0);
    if (typeof body === 'string') return Buffer.from(body);
    if (/urlencoded/i.test(type)) return Buffer.from(encodeForm(body));
    return Buffer.from(JSON.stringify(body));
  };

  const middleware = function serviceProxyMiddleware(
    req: IncomingMessage,
    res: ServerResponse,
    next: (error?: unknown) => void,
  ): void {
    const request = req as ExpressishRequest;
    let called = false;
    const once = (error: unknown) => {
      if (called) return;
      called = true;
      next(error);
    };
    try {
      const target = resolveTarget(request);
      const { suffix, query, mount } = splitTarget(request);
      const problem = suffixProblem(suffix);
      if (problem !== undefined) {
        throw ApiError.invalidRequest(`The path below the relay ${problem}.`, {
          target: 'path',
          innererror: { code: 'PATH_OUTSIDE_SERVICE' },
        });
      }
      const prefix = serviceProxyPrefix({ ...target, scheme: fixedTarget.scheme });
      relayRequest(
        req,
        res,
        serverPath + prefix + suffix + query,
        policyFor(prefix, mount),
        once,
        bodyOf(request),
      );
    } catch (error) {
      once(error);
    }
  };

  const mountPath = (mountPathOption ?? '').replace(/\/+$/, '');
  const upgrade = function serviceProxyUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    // Upgrades have no `next`: the envelope is written by error-envelope, on the socket.
    const fail = (error: ApiError) => {
      if (socket.writable) sendError(responseOnSocket(req, socket), error);
      else socket.destroy();
    };
    try {
      if (fromParams) throw ApiError.notFound('Upgrades are relayed for a fixed service only.');
      const url = originForm(req.url ?? '/');
      const queryAt = url.indexOf('?');
      const path = queryAt === -1 ? url : url.slice(0, queryAt);
      if (path !== mountPath && !path.startsWith(`${mountPath}/`)) {
        throw ApiError.notFound('No relayed service matches this path.', { target: 'path' });
      }
      const suffix = path.slice(mountPath.length);
      if (suffixProblem(suffix) !== undefined) {
        throw ApiError.invalidRequest('The path below the relay leaves the service.', {
          target: 'path',
        });
      }
      const prefix = serviceProxyPrefix({
        namespace,
        service: fixedTarget.service as string,
        port: fixedPort,
        scheme: fixedTarget.scheme,
      });
      const query = queryAt === -1 ? '' : url.slice(queryAt);
      relayUpgrade(
        req,
        socket,
        head,
        serverPath + prefix + suffix + query,
        policyFor(prefix, mountPath),
        fail,
      );
    } catch (error) {
      fail(error instanceof ApiError ? error : ApiError.internal());
    }
  };

  return Object.assign(middleware, { upgrade });
}
