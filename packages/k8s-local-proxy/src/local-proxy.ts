/**
 * @module The local reverse proxy behind the `k8s-service-proxy` CLI, a drop-in for
 * `kubectl proxy`: plain HTTP on a local port (or Unix socket), HTTPS with the proxy's
 * credentials toward the control plane, kubectl's request filter, prefix handling and redirects.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { sendError } from '@resourceful/error-envelope';
import { type ClusterCredentials, controlPlaneRelay } from '@resourceful/k8s-service-proxy';
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  functionOption,
  invalidOption,
  millisecondsOption,
  missingOption,
  stringOption,
} from '@resourceful/option-checks';
import { createFailureLog } from './failure-log.js';
import {
  badRequest,
  cleanPath,
  decodePath,
  goEscapedPath,
  movedPermanently,
  plainError,
} from './go-http.js';
import { type RequestFilterOptions, requestFilter } from './request-filter.js';
import { responseOnSocket } from './socket-response.js';
import { createStaticHandler } from './static-files.js';

export interface LocalProxyOptions extends RequestFilterOptions {
  credentials: ClusterCredentials;
  /** `-p/--port`. 0 picks a free port. @default 8001 */
  port?: number;
  /** `--address`. @default '127.0.0.1' */
  address?: string;
  /** `-u/--unix-socket`: listen on a Unix socket instead of a port. */
  unixSocket?: string;
  /**
   * `--api-prefix`. Stripped before relaying unless it starts with `/api`; a missing trailing
   * slash is added, as kubectl adds it. @default '/'
   */
  apiPrefix?: string;
  /** `-w/--www`: a folder of static files. */
  www?: string;
  /** `-P/--www-prefix`; a missing trailing slash is added, as kubectl adds it. @default '/static/' */
  wwwPrefix?: string;
  /** `--disable-filter`. Dangerous: opens the proxy to XSRF from any page. @default false */
  disableFilter?: boolean;
  /** `--append-server-path`: prefix every request with the server URL's path. @default false */
  appendServerPath?: boolean;
  /** Idle timeout toward the control plane (ms). 0, as kubectl, waits forever. @default 0 */
  timeoutMs?: number;
  /**
   * Gets one line per request that could not be relayed (502, 504, a failed credential plugin),
   * saying why; a reason repeated within 10 s is counted, not repeated. @default stderr
   */
  log?: (line: string) => void;
}

export interface LocalProxy {
  readonly server: Server;
  /** Starts listening; resolves with `HOST:PORT` (or the socket path) as kubectl prints it. */
  listen(): Promise<string>;
  /** Stops accepting, closes open connections and the credentials' pool. */
  close(): Promise<void>;
}

export const DEFAULT_PROXY_PORT = 8001;

function formatAddress(address: AddressInfo | string | null): string {
  if (address === null) return '';
  if (typeof address === 'string') return address;
  return address.family === 'IPv6'
    ? `[${address.address}]:${address.port}`
    : `${address.address}:${address.port}`;
}

function singleJoiningSlash(a: string, b: string): string {
  const aSlash = a.endsWith('/');
  const bSlash = b.startsWith('/');
  if (aSlash && bSlash) return a + b.slice(1);
  if (!aSlash && !bSlash) return `${a}/${b}`;
  return a + b;
}

/** What Go's server answers to a request it cannot parse: plain text, then it hangs up. */
function malformedRequestAnswer(error: NodeJS.ErrnoException): string {
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : '400 Bad Request';
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`;
}

const OPTION_NAMES = [
  'credentials',
  'port',
  'address',
  'unixSocket',
  'apiPrefix',
  'www',
  'wwwPrefix',
  'disableFilter',
  'appendServerPath',
  'timeoutMs',
  'log',
  'acceptHosts',
  'acceptPaths',
  'rejectPaths',
  'rejectMethods',
];

/** `scheme://authority/path?query` (RFC 9112 §3.2.2): Go takes the host from it. */
const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The host, path and query of a request target, as Go's server splits it. */
function splitTarget(
  target: string,
  hostHeader: string,
): { host: string; rawPath: string; query: string } | undefined {
  let host = hostHeader;
  let rest = target;
  if (ABSOLUTE_FORM.test(target)) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return undefined;
    }
    // Go's server sets Request.Host from an absolute-form target (RFC 9112 §3.2.2).
    host = url.host;
    const authorityAt = target.indexOf('//') + 2;
    const pathAt = target.slice(authorityAt).search(/[/?]/);
    rest = pathAt === -1 ? '/' : target.slice(authorityAt + pathAt);
    if (rest.startsWith('?')) rest = `/${rest}`;
  }
  const queryAt = rest.indexOf('?');
  return {
    host,
    rawPath: queryAt === -1 ? rest : rest.slice(0, queryAt),
    query: queryAt === -1 ? '' : rest.slice(queryAt),
  };
}

/**
 * Whether the request has more than one `Host` header line, which a server must answer with 400
 * (RFC 9112 §3.2), as Go's does. Node keeps the first and drops the others.
 */
function hasRepeatedHost(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

const FACTORY = 'createLocalProxy';

const CREDENTIALS_EXPECTED =
  'the ClusterCredentials that findClusterCredentials() or createClusterCredentials() of @resourceful/k8s-service-proxy return';

function credentialsOption(value: unknown): ClusterCredentials {
  if (value === undefined) {
    missingOption(FACTORY, 'credentials', CREDENTIALS_EXPECTED);
  }
  const candidate = value as { requestAuth?: unknown; server?: unknown } | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.requestAuth !== 'function' ||
    !(candidate.server instanceof URL)
  ) {
    invalidOption(FACTORY, 'credentials', CREDENTIALS_EXPECTED, value);
  }
  return value as ClusterCredentials;
}

/**
 * `apiPrefix` / `wwwPrefix`: a path starting with `/`, served as a subtree, so a missing trailing
 * slash is added, as kubectl adds it to `--api-prefix` and `--www-prefix` (`/k8s` serves
 * `/k8s/…` and redirects `/k8s` there).
 */
function pathPrefixOption(option: string, value: unknown, fallback: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || !value.startsWith('/')) {
    invalidOption(FACTORY, option, 'a path starting with "/"', value);
  }
  return value.endsWith('/') ? value : `${value}/`;
}

export function createLocalProxy(options: LocalProxyOptions): LocalProxy {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, OPTION_NAMES);
  const credentials = credentialsOption(options.credentials);
  const port = options.port ?? DEFAULT_PROXY_PORT;
  if (typeof port !== 'number' || !Number.isInteger(port) || port < 0 || port > 65535) {
    invalidOption(FACTORY, 'port', 'an integer from 0 (a free port) to 65535', port);
  }
  const address = stringOption(FACTORY, 'address', options.address) ?? '127.0.0.1';
  const unixSocket = stringOption(FACTORY, 'unixSocket', options.unixSocket);
  const apiPrefix = pathPrefixOption('apiPrefix', options.apiPrefix, '/');
  const www = stringOption(FACTORY, 'www', options.www);
  const wwwPrefix = pathPrefixOption('wwwPrefix', options.wwwPrefix, '/static/');
  const disableFilter = booleanOption(FACTORY, 'disableFilter', options.disableFilter, false);
  const appendServerPath = booleanOption(
    FACTORY,
    'appendServerPath',
    options.appendServerPath,
    false,
  );
  const timeoutMs = millisecondsOption(FACTORY, 'timeoutMs', options.timeoutMs, 0);
  const stripPrefix = !apiPrefix.startsWith('/api');
  // Checked even when the filter is disabled: a bad list is a mistake either way.
  const checkedFilter = requestFilter(options, FACTORY);
  const filter = disableFilter ? undefined : checkedFilter;
  const serveStatic =
    www !== undefined && www !== '' ? createStaticHandler(www, wwwPrefix) : undefined;
  const patterns = serveStatic ? [apiPrefix, wwwPrefix] : [apiPrefix];
  const serverPath = appendServerPath ? credentials.server.pathname : undefined;
  const relay = controlPlaneRelay({ credentials, clientCredentials: 'pass-through', timeoutMs });
  const log = functionOption(FACTORY, 'log', options.log, 'a function taking a line');
  const logFailure = createFailureLog(log ?? ((line) => process.stderr.write(line)));
  const envelopeOptions = { onError: logFailure };

  /** Go's ServeMux: the longest pattern that matches; `/x/` matches the subtree. */
  const match = (path: string): string | undefined => {
    let best: string | undefined;
    for (const pattern of patterns) {
      const hit = pattern.endsWith('/') ? path.startsWith(pattern) : path === pattern;
      if (hit && (best === undefined || pattern.length > best.length)) best = pattern;
    }
    return best;
  };

  /**
   * Routing as Go's ServeMux and kubectl's handlers do it, for plain and upgrade requests alike
   * (Go does not tell them apart: a non-clean upgrade path is redirected, not relayed past the
   * filter). Returns the upstream path, or `undefined` after answering the request itself.
   */
  const route = (req: IncomingMessage, res: ServerResponse): string | undefined => {
    const reject = (status: number, text: string) => plainError(res, status, text);
    const target = hasRepeatedHost(req.rawHeaders)
      ? undefined
      : splitTarget(req.url ?? '/', req.headers.host ?? '');
    if (target === undefined) {
      badRequest(res);
      return undefined;
    }
    const { host, rawPath, query } = target;
    if (!rawPath.startsWith('/') || decodePath(rawPath) === undefined) {
      badRequest(res);
      return undefined;
    }
    const cleaned = cleanPath(rawPath);
    const pattern = match(cleaned);
    if (pattern === undefined && patterns.includes(`${cleaned}/`)) {
      movedPermanently(res, `${cleaned}/${query}`);
      return undefined;
    }
    if (cleaned !== rawPath) {
      movedPermanently(res, cleaned + query);
      return undefined;
    }
    if (pattern === undefined) {
      reject(404, '404 page not found');
      return undefined;
    }
    if (serveStatic !== undefined && pattern === wwwPrefix) {
      serveStatic(req, res, rawPath);
      return undefined;
    }
    // kubectl relays Go's escaped form of the path (`#` as `%23`), not the bytes the client sent.
    let path = goEscapedPath(rawPath);
    if (stripPrefix) {
      if (!path.startsWith(apiPrefix)) {
        reject(404, '404 page not found');
        return undefined;
      }
      path = path.slice(apiPrefix.length);
      if (path !== '' && !path.startsWith('/')) path = `/${path}`;
    }
    if (filter !== undefined) {
      const decoded = decodePath(path) ?? path;
      if (!filter.accepts(req.method ?? '', decoded, host)) {
        reject(403, 'Forbidden');
        return undefined;
      }
    }
    if (path === '') path = '/';
    if (serverPath !== undefined) path = singleJoiningSlash(serverPath, path);
    return path + query;
  };

  const handle = function localProxyHandler(req: IncomingMessage, res: ServerResponse) {
    if (req.url === '*' && req.method === 'OPTIONS') {
      // Go's server answers `OPTIONS *` itself (globalOptionsHandler): 200, no body.
      res.setHeader('Content-Length', '0');
      res.end();
      return;
    }
    const path = route(req, res);
    if (path === undefined) return;
    // No `next` here: error-envelope writes the relay's failures (502, 504, a failed plugin).
    relay.request(req, res, path, (error) => sendError(res, error, envelopeOptions));
  };

  const upgraded = new Set<Duplex>();
  const handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.on('close', () => upgraded.delete(socket));
    const res = responseOnSocket(req, socket);
    const path = route(req, res);
    if (path === undefined) return;
    res.detachSocket(socket as Socket);
    relay.upgrade(req, socket, head, path, (error) => {
      if (socket.writable) sendError(responseOnSocket(req, socket), error, envelopeOptions);
      else socket.destroy();
    });
  };

  /**
   * `CONNECT`, which Node hands to no request handler. Go's ServeMux redirects an authority-form
   * target (`CONNECT host:443`, an empty path) to `/` when `/` is served (kubectl's default API
   * prefix), else answers 404; a path-form target is routed like any request, and where kubectl
   * would relay it as a tunnel, answered 501: this proxy relays no tunnels.
   */
  const handleConnect = (req: IncomingMessage, socket: Duplex) => {
    const res = responseOnSocket(req, socket);
    if (hasRepeatedHost(req.rawHeaders)) {
      badRequest(res);
    } else if (!(req.url ?? '').startsWith('/')) {
      if (patterns.includes('/')) movedPermanently(res, '/');
      else plainError(res, 404, '404 page not found');
    } else if (route(req, res) !== undefined) {
      plainError(res, 501, 'CONNECT tunnels are not relayed');
    }
  };

  const server = createServer(handle);
  server.on('upgrade', handleUpgrade);
  server.on('connect', handleConnect);
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (socket.writable) socket.end(malformedRequestAnswer(error));
    else socket.destroy();
  });

  return {
    server,
    listen() {
      return new Promise((resolve, reject) => {
        server.once('error', reject);
        const done = () => {
          server.off('error', reject);
          resolve(formatAddress(server.address()));
        };
        if (unixSocket !== undefined && unixSocket !== '') {
          server.listen(unixSocket, done);
        } else {
          server.listen(port, address, done);
        }
      });
    },
    close() {
      return new Promise((resolve) => {
        credentials.close();
        for (const socket of upgraded) socket.destroy();
        if (!server.listening) {
          resolve();
          return;
        }
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
