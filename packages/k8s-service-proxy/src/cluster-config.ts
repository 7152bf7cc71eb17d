/**
 * @module The plain description of how to reach a control plane, before any connection is made.
 * Produced by the kubeconfig and in-cluster loaders and by explicit options.
 */

export type CredentialSource = 'options' | 'kubeconfig' | 'in-cluster';

export interface ClusterConfig {
  /** Base URL of the control plane: `https://host:port`, possibly with a path. */
  server: string;
  source: CredentialSource;
  token?: string;
  tokenFile?: string;
  /** PEM certificate bundle that signs the server certificate. */
  ca?: string;
  clientCert?: string;
  clientKey?: string;
  username?: string;
  password?: string;
  insecureSkipTlsVerify?: boolean;
  tlsServerName?: string;
  /** The namespace of the context or service account, when known. */
  namespace?: string;
}
