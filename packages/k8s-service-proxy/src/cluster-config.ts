/**
 * @module The plain description of how to reach a control plane, before any connection is made.
 * Produced by the kubeconfig and in-cluster loaders and by explicit options.
 */

export type CredentialSource = 'options' | 'kubeconfig' | 'in-cluster';

/** `InteractiveMode` of an exec stanza (client.authentication.k8s.io). */
export type ExecInteractiveMode = 'Never' | 'IfAvailable' | 'Always';

/** A kubeconfig `exec` stanza: a credential plugin kubectl runs to get a token or certificate. */
export interface ExecConfig {
  /** `client.authentication.k8s.io/v1` or `client.authentication.k8s.io/v1beta1`. */
  apiVersion: string;
  /** The program; a relative path with a separator is relative to its kubeconfig. */
  command: string;
  args?: readonly string[];
  /** Set on top of the proxy's own environment. */
  env?: readonly { name: string; value: string }[];
  /** Shown when the command is not installed. */
  installHint?: string;
  /** Required for `v1`; `v1beta1` defaults to `IfAvailable`. */
  interactiveMode?: ExecInteractiveMode;
  /** Pass the cluster's connection details to the plugin in `KUBERNETES_EXEC_INFO`. */
  provideClusterInfo?: boolean;
  /**
   * Plugin settings that belong to the cluster: the value of the cluster's `extensions` entry
   * named `client.authentication.k8s.io/exec` (client-go's `ExecConfig.Config`), given to a
   * plugin with `provideClusterInfo` as `spec.cluster.config` (Pinniped reads it, for one).
   */
  clusterConfig?: unknown;
}

/** User impersonation (kubectl's `--as`, `--as-group`, `--as-uid`; the kubeconfig's `as*`). */
export interface Impersonation {
  user?: string;
  groups?: readonly string[];
  uid?: string;
  /** `Impersonate-Extra-{key}` values. */
  extra?: Readonly<Record<string, readonly string[]>>;
}

export interface ClusterConfig {
  /** Base URL of the control plane: `https://host:port`, possibly with a path. */
  server: string;
  source: CredentialSource;
  token?: string;
  tokenFile?: string;
  /** PEM certificate bundle that signs the server certificate. */
  ca?: string;
  /**
   * The file `ca` was read from (the cluster's `certificate-authority`); alone when it could not
   * be read yet (createClusterCredentials reads it, unless an explicit CA replaced it).
   */
  caFile?: string;
  /** Client certificate (PEM). */
  clientCert?: string;
  /** The file `clientCert` was read from (the user's `client-certificate`); absent for `-data`, alone when unreadable (as `caFile`). */
  clientCertFile?: string;
  /** The certificate's key (PEM). */
  clientKey?: string;
  /** The file `clientKey` was read from (the user's `client-key`); absent for `-data`, alone when unreadable (as `caFile`). */
  clientKeyFile?: string;
  username?: string;
  password?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  /** The cluster's `proxy-url` (http, https). */
  proxyUrl?: string;
  /** A credential plugin to run on the first request that needs a credential. */
  exec?: ExecConfig;
  /** `auth-provider: oidc`'s `id-token`, sent as the bearer token while it is valid. */
  oidcIdToken?: string;
  impersonate?: Impersonation;
  /** The namespace of the context or service account, when known. */
  namespace?: string;
  /**
   * The kubeconfig user entry the credentials came from (absent when the context names none),
   * so that messages can name it as kubectl does.
   */
  kubeconfigUser?: string;
}
