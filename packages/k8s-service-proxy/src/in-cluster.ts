/**
 * @module In-cluster credentials: the service-account directory mounted into every container
 * (`token`, `ca.crt`, `namespace`) and the control plane's address from
 * `KUBERNETES_SERVICE_HOST` / `KUBERNETES_SERVICE_PORT`, as client-go's `InClusterConfig`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertKnownOptions, assertOptionsObject, stringOption } from '@resourceful/option-checks';
import type { ClusterConfig } from './cluster-config.js';
import { environmentOption } from './credential-options.js';

export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface InClusterOptions {
  /** @default '/var/run/secrets/kubernetes.io/serviceaccount' */
  dir?: string;
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The in-cluster configuration, or `undefined` when not running in a cluster (the environment
 * variables or the token file are missing). The token is referenced by path so it can rotate.
 */
export function loadInCluster(options: InClusterOptions = {}): ClusterConfig | undefined {
  assertOptionsObject('loadInCluster', options);
  assertKnownOptions('loadInCluster', options, ['dir', 'env']);
  stringOption('loadInCluster', 'dir', options.dir);
  environmentOption('loadInCluster', 'env', options.env);
  const env = options.env ?? process.env;
  const dir = options.dir ?? SERVICE_ACCOUNT_DIR;
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) return undefined;
  const tokenFile = join(dir, 'token');
  if (!existsSync(tokenFile)) return undefined;
  const hostPart = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  const config: ClusterConfig = {
    server: `https://${hostPart}:${port}`,
    source: 'in-cluster',
    tokenFile,
  };
  const caFile = join(dir, 'ca.crt');
  if (existsSync(caFile)) config.ca = readFileSync(caFile, 'utf8');
  const namespaceFile = join(dir, 'namespace');
  if (existsSync(namespaceFile)) {
    const namespace = readFileSync(namespaceFile, 'utf8').trim();
    if (namespace !== '') config.namespace = namespace;
  }
  return config;
}
