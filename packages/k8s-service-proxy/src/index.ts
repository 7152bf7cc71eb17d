export type {
  ClusterConfig,
  CredentialSource,
  ExecConfig,
  ExecInteractiveMode,
  Impersonation,
} from './cluster-config.js';
export {
  type ClusterCredentials,
  type ClusterCredentialsOptions,
  createClusterCredentials,
  type FindCredentialsOptions,
  findClusterCredentials,
  loadClusterCredentials,
  type UpstreamAuth,
} from './cluster-credentials.js';
export {
  CLUSTER_ERROR_CODES,
  ClusterConfigError,
  type ClusterErrorCode,
} from './cluster-errors.js';
export {
  type ControlPlaneRelay,
  type ControlPlaneRelayOptions,
  controlPlaneRelay,
} from './control-plane-relay.js';
export {
  type ApiVersions,
  DiscoveryError,
  type GetApiVersionsOptions,
  getApiVersions,
  type ServerAddressByClientCIDR,
} from './discovery.js';
export { DEFAULT_EXEC_TIMEOUT_MS } from './exec-credential.js';
export {
  type ClusterServiceProxyMiddlewareOptions,
  type ClusterServiceProxyOptions,
  clusterServiceProxyOptions,
} from './http-proxy-middleware-options.js';
export { type InClusterOptions, loadInCluster, SERVICE_ACCOUNT_DIR } from './in-cluster.js';
export { type KubeconfigOptions, kubeconfigPaths, loadKubeconfig } from './kubeconfig.js';
export { isNamespaceName, isPortName, isServiceName } from './kubernetes-names.js';
export {
  DEFAULT_SERVICE_PROXY_TIMEOUT_MS,
  type ServiceProxyMiddleware,
  type ServiceProxyOptions,
  type ServiceProxyParams,
  serviceProxy,
} from './service-proxy-middleware.js';
export {
  type QueryInput,
  ServiceProxyPathError,
  type ServiceProxyPathOptions,
  type ServiceScheme,
  serviceProxyPath,
  serviceProxyPrefix,
  serviceProxyUrl,
  serviceReference,
} from './service-proxy-path.js';
export {
  DEFAULT_TOKEN_REFRESH_MS,
  type FileTokenSourceOptions,
  fileTokenSource,
  staticTokenSource,
  type TokenSource,
} from './token-source.js';
