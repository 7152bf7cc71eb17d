import { expect, it } from 'vitest';

it('exports exactly the documented names', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'CLUSTER_ERROR_CODES',
    'ClusterConfigError',
    'DEFAULT_EXEC_TIMEOUT_MS',
    'DEFAULT_SERVICE_PROXY_TIMEOUT_MS',
    'DEFAULT_TOKEN_REFRESH_MS',
    'DiscoveryError',
    'SERVICE_ACCOUNT_DIR',
    'ServiceProxyPathError',
    'clusterServiceProxyOptions',
    'controlPlaneRelay',
    'createClusterCredentials',
    'fileTokenSource',
    'findClusterCredentials',
    'getApiVersions',
    'isNamespaceName',
    'isPortName',
    'isServiceName',
    'kubeconfigPaths',
    'loadClusterCredentials',
    'loadInCluster',
    'loadKubeconfig',
    'serviceProxy',
    'serviceProxyPath',
    'serviceProxyPrefix',
    'serviceProxyUrl',
    'serviceReference',
    'staticTokenSource',
  ]);
});
