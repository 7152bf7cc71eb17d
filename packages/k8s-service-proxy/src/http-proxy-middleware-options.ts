/**
 * @module Options for http-proxy-middleware (3 or 4) that relay to a cluster service through the
 * control plane, for apps that already proxy with it:
 * `app.use('/ledger', createProxyMiddleware(clusterServiceProxyOptions({ credentials, service: 'ledger' })))`.
 * The credential resolver runs per request (in `router`, which http-proxy-middleware awaits, so an
 * exec plugin runs only when needed and a failure reaches `next(err)`); the client's own
 * credentials and identity headers are dropped; `Location` is mapped back to the mount path;
 * connection failures are answered by error-envelope's `sendError` as 502/504. The agent is the
 * credentials' (cluster TLS, proxy tunnel). `serviceProxy()` does the same with its own relay;
 * bench/README.md compares the two.
 */
import type { Agent, IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, sendError } from '@resourceful/error-envelope';
import { assertKnownOptions, assertOptionsObject, booleanOption } from '@resourceful/option-checks';
import type { ClusterCredentials, UpstreamAuth } from './cluster-credentials.js';
import { credentialsOption, targetOptions } from './option-values.js';
import { originForm } from './origin-form.js';
import { credentialNotSendable } from './relay.js';
import { suffixProblem } from './safe-suffix.js';
import {
  type ServiceProxyPathOptions,
  type ServiceScheme,
  serviceProxyPrefix,
} from './service-proxy-path.js';
import { upstreamError } from './upstream-errors.js';
import { isSendableHeaderValue } from './upstream-transport.js';

export interface ClusterServiceProxyOptions {
  credentials: ClusterCredentials;
  /** @default the credentials' namespace, then `default` */
  namespace?: string;
  service: string;
  port?: string | number;
  scheme?: ServiceScheme;
  /** Map the control plane's prefix in `Location` back to the mount path. @default true */
  rewriteLocation?: boolean;
}

/** The event emitter http-proxy-middleware hands to plugins (http-proxy's server). */
interface ProxyServerEvents {
  on(
    event: 'proxyRes',
    listener: (proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse) => void,
  ): unknown;
  on(
    event: 'error',
    listener: (error: Error, req: IncomingMessage, res: ServerResponse | Socket) => void,
  ): unknown;
}

/** The subset of http-proxy-middleware's `Options` this function fills in. */
export interface ClusterServiceProxyMiddlewareOptions {
  target: string;
  changeOrigin: true;
  agent: Agent;
  router: (req: IncomingMessage) => Promise<string>;
  pathRewrite: (path: string, req: IncomingMessage) => string;
  ejectPlugins: true;
  plugins: ((proxyServer: ProxyServerEvents) => void)[];
}

const FACTORY = 'clusterServiceProxyOptions';
const OPTION_NAMES = ['credentials', 'namespace', 'service', 'port', 'scheme', 'rewriteLocation'];

function isClientIdentityHeader(name: string): boolean {
  return (
    name === 'authorization' ||
    name === 'cookie' ||
    name.startsWith('impersonate-') ||
    name.startsWith('x-remote-')
  );
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export function clusterServiceProxyOptions(
  options: ClusterServiceProxyOptions,
): ClusterServiceProxyMiddlewareOptions {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, OPTION_NAMES);
  const credentials = credentialsOption(FACTORY, options.credentials);
  const rewriteLocation = booleanOption(FACTORY, 'rewriteLocation', options.rewriteLocation, true);
  const prefix = serviceProxyPrefix(
    targetOptions(FACTORY, options, credentials) as ServiceProxyPathOptions,
  );
  const serverPath = credentials.server.pathname.replace(/\/+$/, '');
  const target = credentials.server.origin;
  const upstreamPrefix = serverPath + prefix;
  const link = new RegExp(
    `^(?:${escapeRegExp(target)})?${escapeRegExp(upstreamPrefix)}(?=[/?#]|$)`,
  );
  const sent = new WeakMap<IncomingMessage, UpstreamAuth>();

  const plugin = (proxyServer: ProxyServerEvents): void => {
    proxyServer.on('proxyRes', (proxyRes, req) => {
      const auth = sent.get(req);
      if (proxyRes.statusCode === 401 && auth !== undefined) credentials.rejected(auth);
      const location = proxyRes.headers.location;
      if (rewriteLocation && typeof location === 'string') {
        const mount = ((req as IncomingMessage & { baseUrl?: string }).baseUrl ?? '').replace(
          /\/+$/,
          '',
        );
        const mapped = location.replace(link, mount);
        proxyRes.headers.location = mapped === '' ? '/' : mapped;
      }
    });
    proxyServer.on('error', (error, _req, res) => {
      if (!('setHeader' in res) || res.headersSent) {
        res.destroy();
        return;
      }
      sendError(res, upstreamError(error));
    });
  };

  return {
    target,
    changeOrigin: true,
    agent: credentials.agent,
    async router(req) {
      // The control plane resolves dot segments: a `..` below the mount would leave the service
      // with the relay's credential (see safe-suffix.ts). Checked before any credential is made.
      const url = originForm(req.url ?? '/');
      const queryAt = url.indexOf('?');
      const problem = suffixProblem(queryAt === -1 ? url : url.slice(0, queryAt));
      if (problem !== undefined) {
        throw ApiError.invalidRequest(`The path below the relay ${problem}.`, {
          target: 'path',
          innererror: { code: 'PATH_OUTSIDE_SERVICE' },
        });
      }
      const auth = await credentials.requestAuth();
      if (auth.agent !== credentials.agent) {
        throw ApiError.internal(
          'The credential plugin returned a client certificate, which clusterServiceProxyOptions cannot present; use serviceProxy().',
          { innererror: { code: 'CREDENTIAL_NOT_SUPPORTED' } },
        );
      }
      for (const name of Object.keys(req.headers)) {
        if (isClientIdentityHeader(name)) delete req.headers[name];
      }
      if (auth.authorization !== undefined) {
        // http-proxy would throw Node's ERR_INVALID_CHAR from inside its own pass.
        if (!isSendableHeaderValue(auth.authorization)) throw credentialNotSendable();
        req.headers.authorization = auth.authorization;
      }
      for (const [name, value] of Object.entries(credentials.impersonationHeaders)) {
        req.headers[name] = typeof value === 'string' ? value : [...value].join(', ');
      }
      sent.set(req, auth);
      return target;
    },
    pathRewrite: (path) => {
      const relayed = originForm(path);
      return upstreamPrefix + (relayed.startsWith('/') ? relayed : `/${relayed}`);
    },
    ejectPlugins: true,
    plugins: [plugin],
  };
}
