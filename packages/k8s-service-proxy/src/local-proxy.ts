/**
 * @module The local reverse proxy behind the `k8s-service-proxy` CLI, a drop-in for
 * `kubectl proxy`: plain HTTP on a local port (or Unix socket), HTTPS with the proxy's
 * credentials toward the control plane, kubectl's request filter, prefix handling and redirects.
 */
import { createServer, type IncomingMessage, type Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { sendError } from '@resourceful/error-envelope';
import type { ClusterCredentials } from './cluster-credentials.js';
import { cleanPath, decodePath, movedPermanently, plainError } from './go-http.js';
import { type RelayPolicy, relayRequest, relayUpgrade } from './relay.js';
import { createRequestFilter, type RequestFilterOptions } from './request-filter.js';
import { createStaticHandler } from './static-files.js';

export interface LocalProxyOptions extends RequestFilterOptions {
  credentials: ClusterCredentials;
  /** `-p/--port`. 0 picks a free port. @default 8001 */
  port?: number;
  /** `--address`. @default '127.0.0.1' */
  address?: string;
  /** `-u/--unix-socket`: listen on a Unix socket instead of a port. */
  unixSocket?: string;
  /** `--api-prefix`. Stripped before relaying unless it starts with `/api`. @default '/' */
  apiPrefix?: string;
  /** `-w/--www`: a folder of static files. */
  www?: string;
  /** `-P/--www-prefix`. @default '/static/' */
  wwwPrefix?: string;
  /** `--disable-filter`. Dangerous: opens the proxy to XSRF from any page. @default false */
  disableFilter?: boolean;
  /** `--append-server-path`: prefix every request with the server URL's path. @default false */
  appendServerPath?: boolean;
  /** Idle timeout toward the control plane (ms). 0, as kubectl, waits forever. @default 0 */
  timeoutMs?: number;
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

/**
 * A response written onto an upgrade request's own socket (Node gives upgrades none), so that
 * refusals and redirects are the same answers as for plain requests; the socket closes after.
 */
function responseOnSocket(req: IncomingMessage, socket: Socket): ServerResponse {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.on('finish', () => {
    res.detachSocket(socket);
    socket.end();
  });
  return res;
}

/** What Go's server answers to a request it cannot parse: plain text, then it hangs up. */
function malformedRequestAnswer(error: NodeJS.ErrnoException): string {
  const status =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? '431 Request Header Fields Too Large'
      : '400 Bad Request';
  return `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n${status}`;
}

export function createLocalProxy(options: LocalProxyOptions): LocalProxy {
  if (options?.credentials === undefined) {
    throw new TypeError('createLocalProxy needs credentials (see findClusterCredentials)');
  }
  const credentials = options.credentials;
  const port = options.port ?? DEFAULT_PROXY_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new RangeError('port must be an integer from 0 to 65535');
  }
  const address = options.address ?? '127.0.0.1';
  const apiPrefix = options.apiPrefix ?? '/';
  if (!apiPrefix.startsWith('/')) throw new RangeError('apiPrefix must start with "/"');
  const wwwPrefix = options.wwwPrefix ?? '/static/';
  const stripPrefix = !apiPrefix.startsWith('/api');
  const filter = options.disableFilter ? undefined : createRequestFilter(options);
  const serveStatic =
    options.www !== undefined && options.www !== ''
      ? createStaticHandler(options.www, wwwPrefix)
      : undefined;
  const patterns = serveStatic ? [apiPrefix, wwwPrefix] : [apiPrefix];
  const serverPath = options.appendServerPath ? credentials.server.pathname : undefined;
  const policy: RelayPolicy = {
    credentials,
    clientCredentials: 'pass-through',
    timeoutMs: options.timeoutMs ?? 0,
  };

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
    const target = req.url ?? '/';
    const queryAt = target.indexOf('?');
    const rawPath = queryAt === -1 ? target : target.slice(0, queryAt);
    const query = queryAt === -1 ? '' : target.slice(queryAt);
    if (!rawPath.startsWith('/') || decodePath(rawPath) === undefined) {
      reject(400, '400 Bad Request');
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
    let path = rawPath;
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
      if (!filter.accepts(req.method ?? '', decoded, req.headers.host ?? '')) {
        reject(403, 'Forbidden');
        return undefined;
      }
    }
    if (path === '') path = '/';
    if (serverPath !== undefined) path = singleJoiningSlash(serverPath, path);
    return path + query;
  };

  const handle = function localProxyHandler(req: IncomingMessage, res: ServerResponse) {
    const path = route(req, res);
    if (path === undefined) return;
    relayRequest(req, res, path, policy, (error) => sendError(res, error));
  };

  const upgraded = new Set<Duplex>();
  const handleUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    upgraded.add(socket);
    socket.on('close', () => upgraded.delete(socket));
    const res = responseOnSocket(req, socket as Socket);
    const path = route(req, res);
    if (path === undefined) return;
    res.detachSocket(socket as Socket);
    relayUpgrade(req, socket, head, path, policy);
  };

  const server = createServer(handle);
  server.on('upgrade', handleUpgrade);
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
        if (options.unixSocket !== undefined && options.unixSocket !== '') {
          server.listen(options.unixSocket, done);
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
