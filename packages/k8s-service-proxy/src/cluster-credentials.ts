/**
 * @module Credentials for the control plane, resolved in the order the Kubernetes clients use:
 * explicit options, then a kubeconfig file, then the in-cluster service account. The result is
 * the one credential resolver of the package: the middleware, the discovery call and the
 * `k8s-local-proxy` CLI all ask it, per request, for the `Authorization` value and the agent
 * (static token, rotating token file, basic, client certificate, an exec plugin's token or
 * certificate, an OIDC id-token). Secrets stay in closures and never appear in
 * `JSON.stringify`, `util.inspect` or error messages.
 */
import { readFileSync } from 'node:fs';
import type { Agent as HttpAgent } from 'node:http';
import { inspect } from 'node:util';
import { ApiError } from '@resourceful/error-envelope';
import {
  invalidOption,
  millisecondsOption,
  missingOption,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import { certificateAuthorityProblem } from './certificate-authority.js';
import { createClusterAgent } from './cluster-agent.js';
import type {
  ClusterConfig,
  CredentialSource,
  ExecConfig,
  Impersonation,
} from './cluster-config.js';
import {
  CLUSTER_ERROR_CODES,
  ClusterConfigError,
  kubeconfigError,
  unreadableFile,
} from './cluster-errors.js';
import { checkCredentialOptions } from './credential-options.js';
import {
  DEFAULT_EXEC_TIMEOUT_MS,
  type ExecCredential,
  type ExecCredentialSource,
  execCredentialSource,
} from './exec-credential.js';
import { type InClusterOptions, loadInCluster } from './in-cluster.js';
import { keyPairProblem } from './key-pair.js';
import { loadKubeconfig } from './kubeconfig.js';
import { oidcAuthorizer } from './oidc-token.js';
import { parseProxyUrl, proxyFromEnvironment, redactProxyUrl } from './proxy-environment.js';
import {
  DEFAULT_TOKEN_REFRESH_MS,
  fileTokenSource,
  staticTokenSource,
  type TokenSource,
} from './token-source.js';

export interface ClusterCredentialsOptions {
  /** Base URL of the control plane, `https://host:port` (a path is allowed). */
  server: string;
  /**
   * A bearer token, or a source that rotates it (used alone). A string beside `tokenFile` is
   * only sent until the file can first be read, as client-go does.
   */
  token?: string | TokenSource;
  /** A file holding the bearer token, re-read every `tokenRefreshMs`; wins over a string `token`. */
  tokenFile?: string;
  /** PEM bundle that signs the server certificate. Default: Node's bundled roots. */
  ca?: string | Buffer;
  /** Path of the PEM bundle (kubectl's `--certificate-authority`). */
  caFile?: string;
  /** Client-certificate authentication (PEM); refused without `clientKey`. */
  clientCert?: string | Buffer;
  /** Path of the client certificate (kubectl's `--client-certificate`); `clientCert` wins. */
  clientCertFile?: string;
  /** The certificate's key (PEM); refused alone unless another credential is given (then ignored, as kubectl). */
  clientKey?: string | Buffer;
  /** Path of the key (kubectl's `--client-key`); `clientKey` wins. */
  clientKeyFile?: string;
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
  /** A credential plugin (a kubeconfig `exec` stanza), run on the first request needing it. */
  exec?: ExecConfig;
  /** Kill a credential plugin after this long. @default 60000 */
  execTimeoutMs?: number;
  /** An `auth-provider: oidc` id-token, sent as the bearer token until it expires. */
  oidcIdToken?: string;
  /** Impersonation headers sent with every request (kubectl's `--as`, `--as-group`, `--as-uid`). */
  impersonate?: Impersonation;
  /**
   * The proxy to the control plane (the kubeconfig cluster's `proxy-url`; http or https, with
   * CONNECT for https servers). `false` connects directly. @default read from `HTTPS_PROXY` /
   * `HTTP_PROXY` / `NO_PROXY` as Go does; never for a loopback server
   */
  proxyUrl?: string | false;
  /** Where warnings go. @default console.warn */
  onWarning?: (message: string) => void;
  /** Recorded on the result, for diagnostics. @default 'options' */
  source?: CredentialSource;
}

/** What one request to the control plane is sent with. */
export interface UpstreamAuth {
  readonly authorization: string | undefined;
  readonly agent: HttpAgent;
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
  /** `Impersonate-*` headers to send, lower-case names (empty when none). */
  readonly impersonationHeaders: Readonly<Record<string, string | readonly string[]>>;
  /**
   * The credential for the next request: the `Authorization` value (`undefined` with a client
   * certificate, or toward a plain `http:` server) and the agent to send it through. Runs the
   * exec plugin when its credential is missing or expired. Rejects with a 500 ApiError (plugin
   * failed, id-token expired); then nothing may be sent upstream.
   */
  requestAuth(): Promise<UpstreamAuth>;
  /** The control plane answered 401 to a request sent with `auth`: an exec credential is dropped
   * and the plugin runs again at once, so the next request carries a fresh one. */
  rejected(auth: UpstreamAuth): void;
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
  'clientCertFile',
  'clientKey',
  'clientKeyFile',
  'username',
  'password',
  'insecureSkipTlsVerify',
  'tlsServerName',
  'namespace',
  'tokenRefreshMs',
  'keepAliveMs',
  'exec',
  'execTimeoutMs',
  'oidcIdToken',
  'impersonate',
  'proxyUrl',
  'onWarning',
] as const satisfies readonly (keyof ClusterCredentialsOptions)[];

/** client-go's impersonation headers (k8s.io/client-go/transport). */
function impersonationHeaders(
  impersonate: Impersonation | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  if (impersonate === undefined) return headers;
  if (impersonate.user !== undefined && impersonate.user !== '') {
    headers['impersonate-user'] = impersonate.user;
  }
  if (impersonate.uid !== undefined && impersonate.uid !== '') {
    headers['impersonate-uid'] = impersonate.uid;
  }
  if (impersonate.groups !== undefined && impersonate.groups.length > 0) {
    headers['impersonate-group'] = [...impersonate.groups];
  }
  for (const [key, values] of Object.entries(impersonate.extra ?? {})) {
    // Header names cannot hold every character a key may: client-go percent-encodes them.
    headers[`impersonate-extra-${encodeURIComponent(key).toLowerCase()}`] = [...values];
  }
  return headers;
}

/** A PEM from `value`, else read from `file` (named by its kubeconfig field in errors). */
function pemOf(
  value: string | Buffer | undefined,
  file: string | undefined,
  field: string,
): string | Buffer | undefined {
  if (value !== undefined || file === undefined) return value;
  try {
    return readFileSync(file);
  } catch (error) {
    throw unreadableFile(field, file, error);
  }
}

function warnToStderr(message: string): void {
  console.warn(`k8s-service-proxy: ${message}`);
}

/** Builds credentials from explicit values. Throws (without echoing secrets) when invalid. */
export function createClusterCredentials(options: ClusterCredentialsOptions): ClusterCredentials {
  checkCredentialOptions('createClusterCredentials', options, false);
  return buildCredentials(options, 'createClusterCredentials');
}

const SERVER_EXPECTED = 'an absolute https: URL such as "https://10.0.0.1:6443"';

/** The `server` option as a URL: https (or http for an unauthenticated local plane), no user. */
function serverOption(factory: string, value: string | undefined): URL {
  if (value === undefined) {
    missingOption(factory, 'server', SERVER_EXPECTED);
  }
  let server: URL;
  try {
    server = new URL(value);
  } catch {
    invalidOption(factory, 'server', SERVER_EXPECTED, value);
  }
  if (server.protocol !== 'https:' && server.protocol !== 'http:') {
    invalidOption(
      factory,
      'server',
      'an https: URL (or http: for an unauthenticated local plane)',
      `${server.protocol}//…`,
    );
  }
  if (server.username !== '' || server.password !== '') {
    // The value is not echoed: it holds a password.
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      factory,
      '"server" must not carry credentials in the URL; use username/password.',
      'server',
    );
  }
  return server;
}

/** The `proxyUrl` option as a URL: http, https or socks5, refused as client-go refuses one. */
function proxyUrlOption(factory: string, value: string): URL {
  const url = parseProxyUrl(value);
  if (typeof url !== 'string') return url;
  throw optionError(
    OPTION_ERROR_CODES.invalidOption,
    factory,
    `"proxyUrl" "${redactProxyUrl(value)}" is not a proxy URL kubectl accepts: ${url}.`,
    'proxyUrl',
  );
}

/** A construction error of two options that exclude each other (or one that needs another). */
function conflict(factory: string, option: string, message: string): never {
  throw optionError(OPTION_ERROR_CODES.conflictingOptions, factory, message, option);
}

/** The certificate authority, refused (as kubectl refuses it) when no certificate in it parses. */
function checkCertificateAuthority(
  factory: string,
  options: ClusterCredentialsOptions,
  ca: string | Buffer | undefined,
): void {
  if (ca === undefined || ca.length === 0) return;
  const problem = certificateAuthorityProblem(ca);
  if (problem === undefined) return;
  const [option, what] =
    options.ca === undefined
      ? [
          'caFile',
          `the certificate authority file ${options.caFile} (caFile, kubeconfig certificate-authority)`,
        ]
      : options.source === 'in-cluster'
        ? ['ca', "the service account's ca.crt"]
        : ['ca', 'the certificate authority (ca, kubeconfig certificate-authority-data)'];
  throw optionError(
    OPTION_ERROR_CODES.invalidOption,
    factory,
    `${what} holds no PEM certificate: unable to load root certificates: ${problem} (kubectl refuses it too). Give PEM text ("-----BEGIN CERTIFICATE-----"); convert a DER file with "openssl x509 -inform DER -in ca.der -out ca.pem".`,
    option,
  );
}

function buildCredentials(options: ClusterCredentialsOptions, factory: string): ClusterCredentials {
  const server = serverOption(factory, options.server);
  const onWarning = options.onWarning ?? warnToStderr;
  const insecure = options.insecureSkipTlsVerify === true;
  const keepAliveMs = millisecondsOption(factory, 'keepAliveMs', options.keepAliveMs, 0);
  const execTimeoutMs = millisecondsOption(
    factory,
    'execTimeoutMs',
    options.execTimeoutMs,
    DEFAULT_EXEC_TIMEOUT_MS,
    { positive: true },
  );
  const hasToken =
    (options.token !== undefined && options.token !== '') || options.tokenFile !== undefined;
  // client-go sends basic credentials only with a username; a password alone is ignored beside
  // another credential (an exec plugin still runs), and is a mistake without one.
  if (
    options.password !== undefined &&
    options.username === undefined &&
    !identifiesUser(options)
  ) {
    conflict(factory, 'password', '"password" needs "username": basic authentication sends both.');
  }
  if (hasToken && options.username !== undefined) {
    conflict(
      factory,
      'username',
      'more than one authentication method: a token and a username/password (kubectl refuses both).',
    );
  }
  // client-go's validateAuthInfo: a certificate is useless without its key. A key alone is
  // ignored by kubectl beside another credential, and leaves nothing to send without one.
  const clientCert = pemOf(options.clientCert, options.clientCertFile, 'client-certificate');
  const clientKey = pemOf(options.clientKey, options.clientKeyFile, 'client-key');
  const hasCert = clientCert !== undefined && clientCert.length > 0;
  const hasKey = clientKey !== undefined && clientKey.length > 0;
  if (hasCert && !hasKey) {
    throw optionError(
      OPTION_ERROR_CODES.missingOption,
      factory,
      'clientCert needs clientKey: a client certificate cannot be used without its key (kubectl refuses it too).',
      'clientKey',
    );
  }
  // kubectl starts with a pair TLS refuses and fails each request; refusing at start says why
  // once, where the credential is configured.
  const pairProblem = hasCert && hasKey ? keyPairProblem(clientCert, clientKey) : undefined;
  if (pairProblem !== undefined) {
    conflict(
      factory,
      'clientKey',
      `the client certificate and key cannot be used together (${pairProblem}).`,
    );
  }
  if (
    hasKey &&
    !hasCert &&
    !hasToken &&
    options.username === undefined &&
    options.exec === undefined &&
    options.oidcIdToken === undefined
  ) {
    throw optionError(
      OPTION_ERROR_CODES.missingOption,
      factory,
      'clientKey needs clientCert: a client key cannot be used without its certificate, and there is no other credential.',
      'clientCert',
    );
  }
  const cleartext = server.protocol === 'http:';
  const ca = pemOf(options.ca, options.caFile, 'certificate-authority');
  if (insecure) {
    if (ca !== undefined) {
      conflict(
        factory,
        'insecureSkipTlsVerify',
        'insecureSkipTlsVerify and a certificate authority exclude each other (kubectl refuses both).',
      );
    }
    onWarning(
      'TLS verification of the control plane is disabled (insecureSkipTlsVerify); a man-in-the-middle can read the credentials',
    );
  }
  checkCertificateAuthority(factory, options, ca);

  // As kubectl: a plain-http control plane gets no credential at all (no token, no plugin run,
  // no basic auth), so a secret never crosses the network in clear. Impersonation still goes.
  let tokens: TokenSource | undefined;
  let plugin: ExecCredentialSource | undefined;
  let basic: string | undefined;
  let oidc: string | undefined;
  if (cleartext) {
    if (hasToken || options.username !== undefined || options.exec || options.oidcIdToken) {
      onWarning(
        `the control plane ${server.origin} is plain http://: no credentials are sent to it (as kubectl)`,
      );
    }
  } else if (hasToken) {
    const inline = options.token;
    if (typeof inline === 'object') {
      tokens = inline;
    } else if (options.tokenFile !== undefined) {
      // client-go (transport.NewBearerAuthWithRefreshRoundTripper): with both, the file's
      // last good token is sent and the inline one only until the file can first be read.
      tokens = fileTokenSource(options.tokenFile, {
        refreshMs: options.tokenRefreshMs ?? DEFAULT_TOKEN_REFRESH_MS,
        onWarning,
        ...(inline === undefined || inline === '' ? {} : { fallback: inline }),
      });
    } else {
      tokens = staticTokenSource(inline as string);
    }
  } else if (options.username !== undefined) {
    basic = `Basic ${Buffer.from(`${options.username}:${options.password ?? ''}`).toString('base64')}`;
  } else if (options.exec !== undefined && !hasCert) {
    // client-go's exec authenticator stands aside when the transport already has a token, basic
    // credentials or a client certificate and key (kubectl --client-certificate with an EKS
    // kubeconfig presents the certificate and never runs the plugin).
    plugin = execCredentialSource(options.exec, {
      timeoutMs: execTimeoutMs,
      cluster: {
        server: server.href.replace(/\/$/, ''),
        ...(options.tlsServerName ? { 'tls-server-name': options.tlsServerName } : {}),
        ...(insecure ? { 'insecure-skip-tls-verify': true } : {}),
        ...(ca ? { 'certificate-authority-data': Buffer.from(ca).toString('base64') } : {}),
        ...(typeof options.proxyUrl === 'string' ? { 'proxy-url': options.proxyUrl } : {}),
        ...(options.exec.clusterConfig === undefined ? {} : { config: options.exec.clusterConfig }),
      },
    });
  } else if (options.oidcIdToken !== undefined) {
    oidc = options.oidcIdToken;
  }

  const proxy =
    options.proxyUrl === false
      ? undefined
      : options.proxyUrl === undefined
        ? proxyFromEnvironment(server, process.env)
        : proxyUrlOption(factory, options.proxyUrl);
  const tlsOptions = {
    ca,
    rejectUnauthorized: !insecure,
    ...(options.tlsServerName === undefined ? {} : { servername: options.tlsServerName }),
  };
  const makeAgent = (cert?: string | Buffer, key?: string | Buffer): HttpAgent =>
    createClusterAgent(
      server,
      { ...tlsOptions, ...(cert === undefined ? {} : { cert, key }) },
      proxy,
    );
  const agent = hasCert ? makeAgent(clientCert, clientKey) : makeAgent();
  /** One agent per client certificate a plugin returned; the last one only is kept. */
  let pluginAgent: { credential: ExecCredential; agent: HttpAgent } | undefined;
  const agentFor = (credential: ExecCredential): HttpAgent => {
    if (credential.clientCertificate === undefined) return agent;
    if (pluginAgent?.credential !== credential) {
      pluginAgent?.agent.destroy();
      pluginAgent = {
        credential,
        agent: makeAgent(credential.clientCertificate, credential.clientKey),
      };
    }
    return pluginAgent.agent;
  };
  const pluginAuth = new WeakMap<UpstreamAuth, ExecCredential>();

  const summary = {
    server: server.href,
    // The proxy's origin only: a proxy URL may carry a user and password.
    proxy: proxy?.origin,
    source: options.source ?? 'options',
    namespace: options.namespace,
    insecureSkipTlsVerify: insecure,
    auth: cleartext
      ? 'none (plain http)'
      : tokens
        ? 'bearer-token'
        : basic
          ? 'basic'
          : plugin
            ? 'exec-plugin'
            : oidc
              ? 'oidc'
              : hasCert
                ? 'client-certificate'
                : 'none',
  };
  const fixedAuth: UpstreamAuth | undefined =
    tokens || plugin || oidc ? undefined : { authorization: basic, agent };
  const impersonation = impersonationHeaders(options.impersonate);
  const oidcAuthorization = oidc === undefined ? undefined : oidcAuthorizer(oidc);

  const credentials: ClusterCredentials & { [inspect.custom]: () => string } = {
    server,
    source: options.source ?? 'options',
    namespace: options.namespace,
    insecureSkipTlsVerify: insecure,
    agent,
    keepAliveMs,
    impersonationHeaders: impersonation,
    requestAuth() {
      if (fixedAuth !== undefined) return Promise.resolve(fixedAuth);
      if (tokens !== undefined) {
        const token = tokens.current();
        return Promise.resolve({
          authorization: token === undefined ? undefined : `Bearer ${token}`,
          agent,
        });
      }
      if (oidcAuthorization !== undefined) {
        const value = oidcAuthorization(Date.now());
        return value instanceof ApiError
          ? Promise.reject(value)
          : Promise.resolve({ authorization: value, agent });
      }
      return (plugin as ExecCredentialSource).get().then((credential) => {
        const auth: UpstreamAuth = {
          authorization: credential.token === undefined ? undefined : `Bearer ${credential.token}`,
          agent: agentFor(credential),
        };
        pluginAuth.set(auth, credential);
        return auth;
      });
    },
    rejected(auth) {
      const credential = pluginAuth.get(auth);
      if (credential !== undefined) plugin?.rejected(credential);
    },
    close() {
      tokens?.close();
      agent.destroy();
      pluginAgent?.agent.destroy();
    },
    toJSON: () => ({ ...summary }),
    [inspect.custom]: () => `ClusterCredentials ${inspect(summary)}`,
  };
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
  /**
   * An explicit `server` with a token, token file or client certificate is used alone, without
   * reading any kubeconfig. `false` merges it into the kubeconfig when there is one, as kubectl's
   * `--server` and `--token` flags are merged (the cluster's CA and the user's certificate then
   * still apply): the `k8s-local-proxy` CLI's setting. @default true
   */
  explicitServerAlone?: boolean;
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** @default os.homedir() */
  homeDir?: string;
}

/**
 * Explicit values override those found in files, as kubectl's flags override the kubeconfig.
 * An empty string is no value, as an empty kubectl flag (`--token=`) is no flag.
 */
function overrides(options: FindCredentialsOptions): Partial<ClusterCredentialsOptions> {
  const out: Partial<ClusterCredentialsOptions> = {};
  for (const key of OVERRIDABLE_OPTIONS) {
    const value = options[key];
    if (value !== undefined && value !== '') Object.assign(out, { [key]: value });
  }
  return out;
}

/** The cluster's `proxy-url`, else the proxy `env` names for `server`, else a direct line. */
function proxyFor(
  server: string,
  configured: string | false | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string | false {
  if (configured !== undefined) return configured;
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    return false; // createClusterCredentials reports the bad server
  }
  return proxyFromEnvironment(url, env)?.href ?? false;
}

/**
 * client-go's `canIdentifyUser`: the credentials kubectl needs before it stops to ask for a
 * username and password on its terminal. A key without its certificate and a password without
 * a username do not count.
 */
function identifiesUser(options: Partial<ClusterCredentialsOptions>): boolean {
  return (
    (options.token !== undefined && options.token !== '') ||
    options.tokenFile !== undefined ||
    (options.username !== undefined && options.username !== '') ||
    options.clientCert !== undefined ||
    options.clientCertFile !== undefined ||
    options.exec !== undefined ||
    options.oidcIdToken !== undefined
  );
}

/** What a user without any credential is told: kubectl would prompt, which a proxy cannot. */
const NO_TERMINAL =
  'kubectl asks for a username and password on its terminal here, and stops without one ("error: EOF"); a proxy has no terminal to ask on';

/** Why `options` identify nobody, in kubectl's terms; `who` is the user entry. */
function missingCredential(options: Partial<ClusterCredentialsOptions>, who: string): string {
  if (options.clientKey !== undefined || options.clientKeyFile !== undefined) {
    return `client-certificate-data or client-certificate must be specified for ${who} to use its client key, and there is no other credential`;
  }
  if (options.password !== undefined) {
    return `${who} has a password but no username, and no other credential`;
  }
  return `${who} has no credential (token, tokenFile, username, client certificate and key, exec plugin or auth-provider)`;
}

/** The user's PEM fields: option, file option, kubeconfig field, kubectl flag. */
const PEM_FIELDS = [
  ['clientCert', 'clientCertFile', 'client-certificate', '--client-certificate'],
  ['clientKey', 'clientKeyFile', 'client-key', '--client-key'],
] as const;

/**
 * The kubeconfig user after the explicit values are merged in, checked as kubectl checks it
 * (client-go's `validateAuthInfo` and `canIdentifyUser` run on the merged user, so
 * `--client-key` completes a user that has only `client-certificate`, and the reverse).
 */
function checkMergedUser(
  config: ClusterConfig,
  extra: Partial<ClusterCredentialsOptions>,
  merged: ClusterCredentialsOptions,
): void {
  const who =
    config.kubeconfigUser === undefined
      ? 'the kubeconfig context (it names no user)'
      : `user "${config.kubeconfigUser}"`;
  for (const [data, file, field, flag] of PEM_FIELDS) {
    if (extra[file] === undefined || extra[data] !== undefined) continue;
    // clientcmd merges field by field: the flag's file replaces the user's file, and beside the
    // user's `-data` both are set, which kubectl refuses.
    if (config[data] !== undefined && config[file] === undefined) {
      throw kubeconfigError(
        `kubeconfig: ${field}-data and ${field} are both specified for ${who} (${field}-data in the kubeconfig, ${field} from ${flag} / ${file}; kubectl refuses it too)`,
      );
    }
    delete merged[data];
  }
  const hasCert = merged.clientCert !== undefined || merged.clientCertFile !== undefined;
  const hasKey = merged.clientKey !== undefined || merged.clientKeyFile !== undefined;
  if (hasCert && !hasKey) {
    throw kubeconfigError(
      `kubeconfig: client-key-data or client-key must be specified for ${who} to use the client certificate (kubectl refuses it too); give it in the kubeconfig or with --client-key (clientKeyFile)`,
    );
  }
  const methods = [
    ...((merged.token !== undefined && merged.token !== '') || merged.tokenFile !== undefined
      ? ['token']
      : []),
    ...(merged.username !== undefined || merged.password !== undefined ? ['basicAuth'] : []),
  ];
  if (methods.length > 1) {
    throw kubeconfigError(
      `kubeconfig: more than one authentication method found for ${who}; found [${methods.join(' ')}], only one is allowed (an explicit token or username is merged into the user, as kubectl's flags are, and kubectl refuses it too)`,
    );
  }
  // Observed with kubectl v1.32 and stdin not a terminal: a user that identifies nobody stops it
  // at start, whatever the server's scheme, except when --server names a plain http:// one.
  const cleartextFlag = extra.server !== undefined && /^http:/i.test(extra.server);
  if (!identifiesUser(merged) && !cleartextFlag) {
    throw kubeconfigError(`kubeconfig: ${missingCredential(merged, who)}; ${NO_TERMINAL}`);
  }
}

function fromConfig(
  config: ClusterConfig,
  extra: Partial<ClusterCredentialsOptions>,
  env: Readonly<Record<string, string | undefined>>,
): ClusterCredentials {
  const { kubeconfigUser: _user, ...fields } = config;
  const merged: ClusterCredentialsOptions = {
    ...fields,
    ...extra,
    server: extra.server ?? config.server,
  };
  merged.proxyUrl = proxyFor(merged.server, extra.proxyUrl ?? config.proxyUrl, env);
  // An explicit token displaces a token of the source, not its other credentials: which one is
  // sent is createClusterCredentials' precedence (token, basic, client certificate, plugin,
  // OIDC), as in client-go, and a kubeconfig user's username beside it is refused, as kubectl
  // refuses it. A kubeconfig user's tokenFile stays: clientcmd merges --token into that user,
  // keeping its tokenFile, whose token client-go then prefers; in-cluster, --token replaces the
  // service-account file.
  if (extra.token !== undefined || extra.tokenFile !== undefined) {
    if (extra.token === undefined) delete merged.token;
    if (extra.tokenFile === undefined && config.source !== 'kubeconfig') delete merged.tokenFile;
  }
  // Field by field, as clientcmd merges --as, --as-group and --as-uid into the user's as,
  // as-groups and as-uid (a given list of groups replaces the user's list).
  if (extra.impersonate !== undefined) {
    merged.impersonate = { ...config.impersonate, ...extra.impersonate };
  }
  // A CA from a file is read again by createClusterCredentials, so that a bad one is reported
  // with its file; an explicit `ca` replaces any file.
  if (extra.ca === undefined && merged.caFile !== undefined) delete merged.ca;
  if (extra.ca !== undefined) delete merged.caFile;
  // clientcmd: an explicit CA also replaces the cluster's insecure-skip-tls-verify, so
  // --certificate-authority turns verification back on for an insecure kubeconfig cluster.
  if (
    (extra.ca !== undefined || extra.caFile !== undefined) &&
    extra.insecureSkipTlsVerify === undefined
  ) {
    delete merged.insecureSkipTlsVerify;
  }
  if (
    extra.insecureSkipTlsVerify === true &&
    extra.ca === undefined &&
    extra.caFile === undefined
  ) {
    delete merged.ca;
    delete merged.caFile;
  }
  if (config.source === 'kubeconfig') checkMergedUser(config, extra, merged);
  return buildCredentials(merged, 'findClusterCredentials');
}

/**
 * Finds credentials: explicit `server` with a token, token file or client certificate; else the
 * kubeconfig (explicit values override it); else the in-cluster service account. `undefined`
 * when there are none. Throws when a source exists but is broken (never echoing secrets), and,
 * as kubectl without a terminal, when the user it arrives at has no credential (see README:
 * "Explicit values and the kubeconfig user").
 */
export function findClusterCredentials(
  options: FindCredentialsOptions = {},
): ClusterCredentials | undefined {
  checkCredentialOptions('findClusterCredentials', options, true);
  // An explicit server is checked before anything else is looked at: "notaurl" is a typo to
  // name, not a reason to go and read the kubeconfig.
  if (options.server !== undefined && options.server !== '') {
    serverOption('findClusterCredentials', options.server);
  }
  const extra = overrides(options);
  const env = options.env ?? process.env;
  const explicitAuth =
    extra.token !== undefined ||
    extra.tokenFile !== undefined ||
    extra.clientCert !== undefined ||
    extra.clientCertFile !== undefined;
  const direct = (server: string) => {
    // kubectl --server=https://… with no kubeconfig asks for a username on its terminal; over
    // plain http it sends nothing and asks nothing.
    if (!identifiesUser(extra) && !/^http:/i.test(server)) {
      const given =
        extra.clientKey !== undefined || extra.clientKeyFile !== undefined
          ? 'a client key without its certificate'
          : extra.password !== undefined
            ? 'a password without a username'
            : 'no token, tokenFile, username or client certificate and key';
      throw new ClusterConfigError(
        CLUSTER_ERROR_CODES.noCredential,
        `no credential for ${server}: ${given}; ${NO_TERMINAL}`,
      );
    }
    return buildCredentials(
      { ...extra, server, proxyUrl: proxyFor(server, extra.proxyUrl, env), source: 'options' },
      'findClusterCredentials',
    );
  };
  const alone = extra.server !== undefined && explicitAuth && options.kubeconfig === undefined;
  if (alone && options.explicitServerAlone !== false) return direct(extra.server as string);
  if (options.kubeconfig !== false) {
    const config = loadKubeconfig({
      path: options.kubeconfig === '' ? undefined : options.kubeconfig,
      context: options.context === '' ? undefined : options.context,
      cluster: options.cluster === '' ? undefined : options.cluster,
      user: options.user === '' ? undefined : options.user,
      env: options.env,
      homeDir: options.homeDir,
    });
    if (config !== undefined) return fromConfig(config, extra, env);
  }
  // No kubeconfig file: the explicit server and credential alone, never the service account.
  if (alone) return direct(extra.server as string);
  if (options.inCluster !== false) {
    const config = loadInCluster({ env: options.env, ...options.inCluster });
    if (config !== undefined) return fromConfig(config, extra, env);
  }
  if (extra.server !== undefined) return direct(extra.server);
  return undefined;
}

/** As `findClusterCredentials`, but throws a clear error when there are none. */
export function loadClusterCredentials(options: FindCredentialsOptions = {}): ClusterCredentials {
  const credentials = findClusterCredentials(options);
  if (credentials === undefined) {
    throw new ClusterConfigError(
      CLUSTER_ERROR_CODES.noClusterCredentials,
      'no cluster credentials found: pass server and token, set KUBECONFIG or create ~/.kube/config, or run in a cluster with a service account',
    );
  }
  return credentials;
}
