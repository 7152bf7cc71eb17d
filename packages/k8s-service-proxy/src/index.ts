export type { ClusterConfig, CredentialSource } from './cluster-config.js';
export {
  type ClusterCredentials,
  type ClusterCredentialsOptions,
  createClusterCredentials,
  type FindCredentialsOptions,
  findClusterCredentials,
  loadClusterCredentials,
} from './cluster-credentials.js';
export {
  type ApiVersions,
  DiscoveryError,
  type GetApiVersionsOptions,
  getApiVersions,
  type ServerAddressByClientCIDR,
} from './discovery.js';
export { DEFAULT_HTTP2_IDLE_TIMEOUT_MS } from './http2-pool.js';
export { type InClusterOptions, loadInCluster, SERVICE_ACCOUNT_DIR } from './in-cluster.js';
export { type KubeconfigOptions, kubeconfigPaths, loadKubeconfig } from './kubeconfig.js';
export { isNamespaceName, isPortName, isServiceName } from './kubernetes-names.js';
export {
  createLocalProxy,
  DEFAULT_PROXY_PORT,
  type LocalProxy,
  type LocalProxyOptions,
} from './local-proxy.js';
export { HOP_BY_HOP_HEADERS } from './relay.js';
export {
  createRequestFilter,
  DEFAULT_ACCEPT_HOSTS,
  DEFAULT_ACCEPT_PATHS,
  DEFAULT_REJECT_METHODS,
  DEFAULT_REJECT_PATHS,
  hostForFilter,
  type RequestFilter,
  type RequestFilterOptions,
} from './request-filter.js';
export { encodeSuffixSegments, isSafeSuffix, suffixProblem } from './safe-suffix.js';
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
export { upstreamError } from './upstream-errors.js';
