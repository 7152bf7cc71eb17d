/**
 * @module Credentials for the control plane, resolved in the order the Kubernetes clients use:
 * explicit options, then a kubeconfig file, then the in-cluster service account. The result
 * holds the TLS agent and hands out the `Authorization` value per request; the token itself is
 * kept in a closure and never appears in `JSON.stringify`, `util.inspect` or error messages.
 */
import { readFileSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { inspect } from 'node:util';
import type { ClusterConfig, CredentialSource } from './cluster-config.js';
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
  /** The `Authorization` value for the next request, or `undefined` (client certificate). */
  authorization(): string | undefined;
  /** Stops token refresh and closes pooled connections. */
  close(): void;
  /** A summary without secrets. */
  toJSON(): Record<string, unknown>;
}

const OPTION_NAMES = new Set<string>([
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
  'onWarning',
  'source',
]);

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

  const summary = {
    server: server.href,
    source: options.source ?? 'options',
    namespace: options.namespace,
    insecureSkipTlsVerify: insecure,
    auth: tokens
      ? 'bearer-token'
      : basic
        ? 'basic'
        : options.clientCert
          ? 'client-certificate'
          : 'none',
  };

  return {
    server,
    source: options.source ?? 'options',
    namespace: options.namespace,
    insecureSkipTlsVerify: insecure,
    agent,
    keepAliveMs,
    authorization() {
      const token = tokens?.current();
      if (token !== undefined) return `Bearer ${token}`;
      return basic;
    },
    close() {
      tokens?.close();
      agent.destroy();
    },
    toJSON: () => ({ ...summary }),
    [inspect.custom]: () => `ClusterCredentials ${inspect(summary)}`,
  } as ClusterCredentials;
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
  for (const key of [
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
    'onWarning',
  ] as const) {
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
