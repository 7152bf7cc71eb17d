/**
 * @module Credentials for the control plane, resolved in the order the Kubernetes clients use:
 * explicit options, then a kubeconfig file, then the in-cluster service account. The result
 * holds the TLS agent and hands out the `Authorization` value per request; the token itself is
 * kept in a closure and never appears in `JSON.stringify`, `util.inspect` or error messages.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import { inspect } from 'node:util';
import type { ClusterConfig, CredentialSource } from './cluster-config.js';
import {
  createHttp2Pool,
  DEFAULT_HTTP2_IDLE_TIMEOUT_MS,
  type Http2Pool,
  registerHttp2Pool,
} from './http2-pool.js';
import { type InClusterOptions, loadInCluster } from './in-cluster.js';
import { loadKubeconfig } from './kubeconfig.js';
import {
  DEFAULT_TOKEN_REFRESH_MS,
  fileTokenSource,
  staticTokenSource,
  type TokenSource,
} from './token-source.js';

export interface ClusterCredentialsOptions {
  /** Base URL of the control plane, `https://host:port` (a path is allowed). */
  server: string;
  /** A bearer token, or a source that rotates it. */
  token?: string | TokenSource;
  /** A file holding the bearer token, re-read every `tokenRefreshMs`. */
  tokenFile?: string;
  /** PEM bundle that signs the server certificate. Default: Node's bundled roots. */
  ca?: string | Buffer;
  /** Path of the PEM bundle (kubectl's `--certificate-authority`). */
  caFile?: string;
  clientCert?: string | Buffer;
  clientKey?: string | Buffer;
  /** Basic authentication, for control planes configured for it (spec: "Authentication" 5). */
  username?: string;
  password?: string;
  /** Skips server certificate verification. Logs a warning: it allows a man-in-the-middle. */
  insecureSkipTlsVerify?: boolean;
  /** Server name checked against the certificate instead of the host of `server`. */
  tlsServerName?: string;
  /** Default namespace (of the context or the service account). */
  namespace?: string;
  /** @default 60000 (client-go's interval) */
  tokenRefreshMs?: number;
  /** TCP keep-alive period for control-plane connections (kubectl's `--keepalive`); 0 = off. */
  keepAliveMs?: number;
  /**
   * Offer HTTP/2 (ALPN `h2`) to an `https:` control plane and use it when chosen, as kubectl
   * does; `false` keeps every request on HTTP/1.1. WebSocket and SPDY upgrades always use
   * HTTP/1.1. @default true, unless the `DISABLE_HTTP2` environment variable is set (client-go's
   * switch)
   */
  http2?: boolean;
  /** Close a pooled HTTP/2 connection after this long without requests; 0 = never. @default 90000 */
  http2IdleTimeoutMs?: number;
  /** Where warnings go. @default console.warn */
  onWarning?: (message: string) => void;
  /** Recorded on the result, for diagnostics. @default 'options' */
  source?: CredentialSource;
}

/** A resolved way to reach and authenticate to the control plane. */
export interface ClusterCredentials {
  readonly server: URL;
  readonly source: CredentialSource;
  readonly namespace: string | undefined;
  readonly insecureSkipTlsVerify: boolean;
  /** The agent every request to the control plane goes through (TLS settings, pooling). */
  readonly agent: HttpAgent;
  /** TCP keep-alive period in milliseconds (0 = off). */
  readonly keepAliveMs: number;
  /** Whether HTTP/2 is offered to the control plane (always `false` for `http:` servers). */
  readonly http2: boolean;
  /** The `Authorization` value for the next request, or `undefined` (client certificate). */
  authorization(): string | undefined;
  /** Stops token refresh and closes pooled connections. */
  close(): void;
  /** A summary without secrets. */
  toJSON(): Record<string, unknown>;
}

/** The options a caller may also give `findClusterCredentials`, to override a file's values. */
const OVERRIDABLE_OPTIONS = [
  'server',
  'token',
  'tokenFile',
  'ca',
  'caFile',
  'clientCert',
  'clientKey',
  'username',
  'password',
  'insecureSkipTlsVerify',
  'tlsServerName',
  'namespace',
  'tokenRefreshMs',
  'keepAliveMs',
  'http2',
  'http2IdleTimeoutMs',
  'onWarning',
] as const satisfies readonly (keyof ClusterCredentialsOptions)[];

const OPTION_NAMES = new Set<string>([...OVERRIDABLE_OPTIONS, 'source']);

/** client-go's switch: any non-empty `DISABLE_HTTP2` turns HTTP/2 off. */
function http2DisabledBy(env: Readonly<Record<string, string | undefined>>): boolean {
  const value = env.DISABLE_HTTP2;
  return value !== undefined && value !== '';
}

function warnToStderr(message: string): void {
  console.warn(`k8s-service-proxy: ${message}`);
}

/** Builds credentials from explicit values. Throws (without echoing secrets) when invalid. */
export function createClusterCredentials(options: ClusterCredentialsOptions): ClusterCredentials {
  if (typeof options !== 'object' || options === null) {
    throw new TypeError('createClusterCredentials expects an options object');
  }
  for (const name of Object.keys(options)) {
    if (!OPTION_NAMES.has(name)) {
      throw new TypeError(
        `unknown option "${name}"; known options: ${[...OPTION_NAMES].join(', ')}`,
      );
    }
  }
  let server: URL;
  try {
    server = new URL(options.server);
  } catch {
    throw new TypeError('server must be an absolute URL such as https://10.0.0.1:6443');
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') {
    throw new TypeError('server must use https: (or http: for an unauthenticated local plane)');
  }
  if (server.username !== '' || server.password !== '') {
    throw new TypeError('server must not carry credentials in the URL; use username/password');
  }
  const onWarning = options.onWarning ?? warnToStderr;
  const insecure = options.insecureSkipTlsVerify === true;
  const keepAliveMs = options.keepAliveMs ?? 0;
  if (!Number.isFinite(keepAliveMs) || keepAliveMs < 0) {
    throw new RangeError('keepAliveMs must be 0 or a positive number of milliseconds');
  }
  if (options.http2 !== undefined && typeof options.http2 !== 'boolean') {
    throw new TypeError('http2 must be true or false');
  }
  const http2IdleTimeoutMs = options.http2IdleTimeoutMs ?? DEFAULT_HTTP2_IDLE_TIMEOUT_MS;
  if (!Number.isFinite(http2IdleTimeoutMs) || http2IdleTimeoutMs < 0) {
    throw new RangeError('http2IdleTimeoutMs must be 0 or a positive number of milliseconds');
  }
  const http2 = server.protocol === 'https:' && (options.http2 ?? !http2DisabledBy(process.env));
  let ca = options.ca;
  if (ca === undefined && options.caFile !== undefined) {
    try {
      ca = readFileSync(options.caFile);
    } catch (error) {
      throw new Error(
        `cannot read certificate authority ${options.caFile} (${(error as NodeJS.ErrnoException).code ?? 'EIO'})`,
      );
    }
  }
  if (insecure) {
    if (ca !== undefined) {
      throw new TypeError(
        'insecureSkipTlsVerify and a certificate authority exclude each other (kubectl refuses both)',
      );
    }
    onWarning(
      'TLS verification of the control plane is disabled (insecureSkipTlsVerify); a man-in-the-middle can read the credentials',
    );
  }

  let tokens: TokenSource | undefined;
  if (options.token !== undefined && options.token !== '') {
    tokens = typeof options.token === 'string' ? staticTokenSource(options.token) : options.token;
  } else if (options.tokenFile !== undefined) {
    tokens = fileTokenSource(options.tokenFile, {
      refreshMs: options.tokenRefreshMs ?? DEFAULT_TOKEN_REFRESH_MS,
      onWarning,
    });
  }
  const basic =
    options.username !== undefined
      ? `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`
      : undefined;

  const agent =
    server.protocol === 'https:'
      ? new HttpsAgent({
          keepAlive: true,
          ca,
          cert: options.clientCert,
          key: options.clientKey,
          rejectUnauthorized: !insecure,
          servername: options.tlsServerName,
          ALPNProtocols: ['http/1.1'],
        })
      : new HttpAgent({ keepAlive: true });
  const pool: Http2Pool | undefined = http2
    ? createHttp2Pool({
        server,
        tls: {
          ca,
          cert: options.clientCert,
          key: options.clientKey,
          rejectUnauthorized: !insecure,
          // As https.Agent: SNI is the host name, never an IP address (RFC 6066 §3).
          servername:
            options.tlsServerName ??
            (isIP(server.hostname.replace(/^\[|\]$/g, '')) ? undefined : server.hostname),
        },
        keepAliveMs,
        idleTimeoutMs: http2IdleTimeoutMs,
      })
    : undefined;

  const summary = {
    server: server.href,
    source: options.source ?? 'options',
    namespace: options.namespace,
    insecureSkipTlsVerify: insecure,
    http2,
    auth: tokens
      ? 'bearer-token'
      : basic
        ? 'basic'
        : options.clientCert
          ? 'client-certificate'
          : 'none',
  };

  const credentials = {
    server,
    source: options.source ?? 'options',
    namespace: options.namespace,
    insecureSkipTlsVerify: insecure,
    agent,
    keepAliveMs,
    http2,
    authorization() {
      const token = tokens?.current();
      if (token !== undefined) return `Bearer ${token}`;
      return basic;
    },
    close() {
      tokens?.close();
      agent.destroy();
      pool?.close();
    },
    toJSON: () => ({ ...summary }),
    [inspect.custom]: () => `ClusterCredentials ${inspect(summary)}`,
  } as ClusterCredentials;
  if (pool !== undefined) registerHttp2Pool(credentials, pool);
  return credentials;
}

export interface FindCredentialsOptions extends Partial<Omit<ClusterCredentialsOptions, 'source'>> {
  /** Kubeconfig path (kubectl's `--kubeconfig`), or `false` to skip kubeconfig files. */
  kubeconfig?: string | false;
  /** Context (kubectl's `--context`). */
  context?: string;
  /** Cluster entry (kubectl's `--cluster`). */
  cluster?: string;
  /** User entry (kubectl's `--user`). */
  user?: string;
  /** In-cluster lookup, or `false` to skip it. */
  inCluster?: InClusterOptions | false;
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** @default os.homedir() */
  homeDir?: string;
}

/** Explicit values override those found in files, as kubectl's flags override the kubeconfig. */
function overrides(options: FindCredentialsOptions): Partial<ClusterCredentialsOptions> {
  const out: Partial<ClusterCredentialsOptions> = {};
  for (const key of OVERRIDABLE_OPTIONS) {
    const value = options[key];
    if (value !== undefined) Object.assign(out, { [key]: value });
  }
  return out;
}

function fromConfig(
  config: ClusterConfig,
  extra: Partial<ClusterCredentialsOptions>,
): ClusterCredentials {
  const merged: ClusterCredentialsOptions = {
    ...config,
    ...extra,
    server: extra.server ?? config.server,
  };
  // An explicit token or CA replaces the file's, whichever form the file used.
  if (extra.token !== undefined || extra.tokenFile !== undefined) {
    if (extra.token === undefined) delete merged.token;
    if (extra.tokenFile === undefined) delete merged.tokenFile;
  }
  if (extra.caFile !== undefined && extra.ca === undefined) delete merged.ca;
  if (
    extra.insecureSkipTlsVerify === true &&
    extra.ca === undefined &&
    extra.caFile === undefined
  ) {
    delete merged.ca;
  }
  return createClusterCredentials(merged);
}

/**
 * Finds credentials: explicit `server` with a token, token file or client certificate; else the
 * kubeconfig (explicit values override it); else the in-cluster service account. `undefined`
 * when there are none. Throws when a source exists but is broken (never echoing secrets).
 */
export function findClusterCredentials(
  options: FindCredentialsOptions = {},
): ClusterCredentials | undefined {
  const extra = overrides(options);
  if (extra.http2 === undefined && options.env !== undefined) {
    extra.http2 = !http2DisabledBy(options.env);
  }
  const explicitAuth =
    options.token !== undefined ||
    options.tokenFile !== undefined ||
    options.clientCert !== undefined;
  if (options.server !== undefined && explicitAuth && options.kubeconfig === undefined) {
    return createClusterCredentials({ ...extra, server: options.server, source: 'options' });
  }
  if (options.kubeconfig !== false) {
    const config = loadKubeconfig({
      path: options.kubeconfig,
      context: options.context,
      cluster: options.cluster,
      user: options.user,
      env: options.env,
      homeDir: options.homeDir,
    });
    if (config !== undefined) return fromConfig(config, extra);
  }
  if (options.inCluster !== false) {
    const config = loadInCluster({ env: options.env, ...options.inCluster });
    if (config !== undefined) return fromConfig(config, extra);
  }
  if (options.server !== undefined) {
    return createClusterCredentials({ ...extra, server: options.server, source: 'options' });
  }
  return undefined;
}

/** As `findClusterCredentials`, but throws a clear error when there are none. */
export function loadClusterCredentials(options: FindCredentialsOptions = {}): ClusterCredentials {
  const credentials = findClusterCredentials(options);
  if (credentials === undefined) {
    throw new Error(
      'no cluster credentials found: pass server and token, set KUBECONFIG or create ~/.kube/config, or run in a cluster with a service account',
    );
  }
  return credentials;
}
