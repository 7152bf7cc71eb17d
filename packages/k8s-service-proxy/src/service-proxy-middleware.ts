/**
 * @module Express (or plain node:http) middleware that relays requests to a cluster service
 * through the control plane's service proxy, with the proxy's credentials. The client's own
 * `Authorization` and cookies stay here. The control plane prefixes absolute links with
 * `/api/v1/namespaces/{ns}/services/{svc}/proxy`; they are mapped back to the mount path.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError, sendError } from '@resourceful/error-envelope';
import { assertKnownOptions, assertOptionsObject } from '@resourceful/option-checks';
import type { ClusterCredentials } from './cluster-credentials.js';
import { isNamespaceName, isPortName, isServiceName } from './kubernetes-names.js';
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

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function parseAllowEntry(entry: string): { namespace: string; service: string; port?: string } {
  const match = /^([^/]+)\/([^:]+)(?::(.+))?$/.exec(entry);
  if (
    !match ||
    !isNamespaceName(match[1] ?? '') ||
    (match[2] !== '*' && !isServiceName(match[2] ?? '')) ||
    (match[3] !== undefined && !isPortName(match[3]))
  ) {
    throw new TypeError(
      `allow entry "${entry}" must be "namespace/service", "namespace/service:port" or "namespace/*"`,
    );
  }
  return { namespace: match[1] as string, service: match[2] as string, port: match[3] };
}

/** Builds the relay middleware. Options are checked here, once. */
export function serviceProxy(options: ServiceProxyOptions): ServiceProxyMiddleware {
  assertOptionsObject('serviceProxy', options);
  assertKnownOptions('serviceProxy', options, OPTION_NAMES);
  const { credentials } = options;
  if (credentials === undefined || typeof credentials.requestAuth !== 'function') {
    throw new TypeError('serviceProxy: credentials are required (see findClusterCredentials)');
  }
  const params = options.params ?? {};
  const fromParams =
    params.namespace !== undefined || params.service !== undefined || params.port !== undefined;
  if (options.allow !== undefined && !Array.isArray(options.allow)) {
    throw new TypeError('serviceProxy: allow must be an array such as ["namespace/service"]');
  }
  for (const name of ['rewriteLocation', 'rewriteHtml'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean') {
      throw new TypeError(`serviceProxy: ${name} must be true or false`);
    }
  }
  if (options.scheme !== undefined && options.scheme !== 'http' && options.scheme !== 'https') {
    throw new TypeError('serviceProxy: scheme must be "http" or "https"');
  }
  if (
    options.port !== undefined &&
    params.port === undefined &&
    !(
      (typeof options.port === 'string' || typeof options.port === 'number') &&
      isPortName(String(options.port))
    )
  ) {
    throw new TypeError('serviceProxy: port must be a port name or a number from 1 to 65535');
  }
  const allow = (options.allow ?? []).map(parseAllowEntry);
  if (fromParams && allow.length === 0) {
    throw new TypeError(
      'serviceProxy: a target taken from route parameters needs an allow list (allow: ["namespace/service"])',
    );
  }
  if (params.service === undefined && options.service === undefined) {
    throw new TypeError('serviceProxy: service is required (or params.service with allow)');
  }
  const namespace = options.namespace ?? credentials.namespace ?? 'default';
  // Validates the fixed parts now, so a typo fails at start-up rather than per request.
  if (params.namespace === undefined && params.service === undefined && params.port === undefined) {
    serviceProxyPrefix({
      namespace,
      service: options.service as string,
      port: options.port,
      scheme: options.scheme,
    });
  } else {
    if (params.namespace === undefined && !isNamespaceName(namespace)) {
      throw new TypeError('serviceProxy: namespace must be a Kubernetes namespace name');
    }
    if (
      options.service !== undefined &&
      params.service === undefined &&
      !isServiceName(options.service)
    ) {
      throw new TypeError('serviceProxy: service must be a Kubernetes service name');
    }
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_SERVICE_PROXY_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs < 0) {
    throw new RangeError('serviceProxy: timeoutMs must be 0 or a positive number of milliseconds');
  }
  const rewriteLocation = options.rewriteLocation ?? true;
  const rewriteHtml = options.rewriteHtml ?? false;
  const fixedPort = options.port === undefined ? undefined : String(options.port);
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
      service: read(params.service, options.service, 'service') as string,
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
    const original = req.originalUrl ?? req.url ?? '/';
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
    const body = req.body;
    if (body === undefined || body === null) return Buffer.alloc(0);
    if (Buffer.isBuffer(body)) return body;
    if (typeof body === 'string') return Buffer.from(body);
    const type = String(req.headers['content-type'] ?? '');
    if (/urlencoded/i.test(type)) {
      return Buffer.from(new URLSearchParams(body as Record<string, string>).toString());
    }
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
      const prefix = serviceProxyPrefix({ ...target, scheme: options.scheme });
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

  const mountPath = (options.mountPath ?? '').replace(/\/+$/, '');
  const upgrade = function serviceProxyUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer) {
    // Upgrades have no `next`: the envelope is written by error-envelope, on the socket.
    const fail = (error: ApiError) => {
      if (socket.writable) sendError(responseOnSocket(req, socket), error);
      else socket.destroy();
    };
    try {
      if (fromParams) throw ApiError.notFound('Upgrades are relayed for a fixed service only.');
      const url = req.url ?? '/';
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
        service: options.service as string,
        port: options.port,
        scheme: options.scheme,
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
