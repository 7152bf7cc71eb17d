/**
 * @module Reads kubeconfig files the way kubectl does: `KUBECONFIG` (a `:`-separated list, the
 * first file to set a value wins) or `~/.kube/config`, the current (or a chosen) context, its
 * cluster and user. File references are relative to the kubeconfig that names them.
 * @see https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';
import type { ClusterConfig } from './cluster-config.js';

export interface KubeconfigOptions {
  /** A kubeconfig path (kubectl's `--kubeconfig`); when set, `KUBECONFIG` is ignored. */
  path?: string;
  /** Context name (kubectl's `--context`); default the file's `current-context`. */
  context?: string;
  /** Cluster entry to use instead of the context's (kubectl's `--cluster`). */
  cluster?: string;
  /** User entry to use instead of the context's (kubectl's `--user`). */
  user?: string;
  /** @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  /** @default os.homedir() */
  homeDir?: string;
}

type Entry = Record<string, unknown>;

interface LoadedFile {
  file: string;
  doc: Entry;
}

function asEntry(value: unknown): Entry | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Entry)
    : undefined;
}

function str(entry: Entry | undefined, key: string): string | undefined {
  const value = entry?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The kubeconfig files kubectl would read, in precedence order. */
export function kubeconfigPaths(options: KubeconfigOptions = {}): string[] {
  if (options.path !== undefined) return [options.path];
  const env = options.env ?? process.env;
  const list = env.KUBECONFIG;
  if (list !== undefined && list !== '') {
    return list.split(delimiter).filter((path) => path !== '');
  }
  return [join(options.homeDir ?? homedir(), '.kube', 'config')];
}

function readDoc(file: string): Entry {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read kubeconfig ${file} (${(error as NodeJS.ErrnoException).code ?? 'EIO'})`,
    );
  }
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (error) {
    // The parser's message quotes the offending line, which may hold a token: give the line only.
    const line = (error as { linePos?: [{ line: number }] }).linePos?.[0]?.line;
    throw new Error(`kubeconfig ${file} is not valid YAML${line ? ` (line ${line})` : ''}`);
  }
  if (doc === null || doc === undefined) return {};
  const entry = asEntry(doc);
  if (entry === undefined) throw new Error(`kubeconfig ${file} is not a mapping`);
  return entry;
}

function findNamed(files: readonly LoadedFile[], list: string, name: string, key: string) {
  for (const { file, doc } of files) {
    const items = doc[list];
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      const named = asEntry(item);
      if (named?.name === name) return { file, entry: asEntry(named[key]) ?? {} };
    }
  }
  return undefined;
}

function fileOrData(
  entry: Entry,
  fileKey: string,
  dataKey: string,
  base: string,
): string | undefined {
  const data = str(entry, dataKey);
  if (data !== undefined) return Buffer.from(data, 'base64').toString('utf8');
  const path = str(entry, fileKey);
  if (path === undefined) return undefined;
  const full = isAbsolute(path) ? path : resolve(base, path);
  try {
    return readFileSync(full, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read ${fileKey} ${full} (${(error as NodeJS.ErrnoException).code ?? 'EIO'})`,
    );
  }
}

/**
 * The cluster configuration of the selected context, or `undefined` when no kubeconfig file
 * exists (an explicit `path` that does not exist is an error, as in kubectl).
 */
export function loadKubeconfig(options: KubeconfigOptions = {}): ClusterConfig | undefined {
  const paths = kubeconfigPaths(options);
  if (options.path !== undefined && !existsSync(options.path)) {
    throw new Error(`kubeconfig ${options.path} does not exist`);
  }
  const files = paths
    .filter((file) => existsSync(file))
    .map((file) => ({ file, doc: readDoc(file) }));
  if (files.length === 0) return undefined;

  const contextName =
    options.context ??
    files.map(({ doc }) => str(doc, 'current-context')).find((name) => name !== undefined);
  if (contextName === undefined) {
    if (options.cluster === undefined) return undefined;
  }
  const context =
    contextName === undefined ? undefined : findNamed(files, 'contexts', contextName, 'context');
  if (contextName !== undefined && context === undefined) {
    throw new Error(`context "${contextName}" is not defined in the kubeconfig`);
  }
  const clusterName = options.cluster ?? str(context?.entry, 'cluster');
  if (clusterName === undefined) {
    throw new Error(`context "${contextName}" names no cluster`);
  }
  const cluster = findNamed(files, 'clusters', clusterName, 'cluster');
  if (cluster === undefined) {
    throw new Error(`cluster "${clusterName}" is not defined in the kubeconfig`);
  }
  const server = str(cluster.entry, 'server');
  if (server === undefined) throw new Error(`cluster "${clusterName}" has no server`);

  const config: ClusterConfig = { server, source: 'kubeconfig' };
  const clusterBase = dirname(cluster.file);
  const ca = fileOrData(
    cluster.entry,
    'certificate-authority',
    'certificate-authority-data',
    clusterBase,
  );
  if (ca !== undefined) config.ca = ca;
  if (cluster.entry['insecure-skip-tls-verify'] === true) config.insecureSkipTlsVerify = true;
  const tlsServerName = str(cluster.entry, 'tls-server-name');
  if (tlsServerName !== undefined) config.tlsServerName = tlsServerName;
  const namespace = str(context?.entry, 'namespace');
  if (namespace !== undefined) config.namespace = namespace;

  const userName = options.user ?? str(context?.entry, 'user');
  if (userName !== undefined) {
    const user = findNamed(files, 'users', userName, 'user');
    if (user === undefined) throw new Error(`user "${userName}" is not defined in the kubeconfig`);
    const userBase = dirname(user.file);
    if (user.entry.exec !== undefined || user.entry['auth-provider'] !== undefined) {
      throw new Error(
        `user "${userName}" uses an exec or auth-provider plugin, which is not supported; use a token, token file or client certificate`,
      );
    }
    const token = str(user.entry, 'token');
    if (token !== undefined) config.token = token;
    const tokenFile = str(user.entry, 'tokenFile');
    if (tokenFile !== undefined) {
      config.tokenFile = isAbsolute(tokenFile) ? tokenFile : resolve(userBase, tokenFile);
    }
    const cert = fileOrData(user.entry, 'client-certificate', 'client-certificate-data', userBase);
    const key = fileOrData(user.entry, 'client-key', 'client-key-data', userBase);
    if (cert !== undefined) config.clientCert = cert;
    if (key !== undefined) config.clientKey = key;
    const username = str(user.entry, 'username');
    const password = str(user.entry, 'password');
    if (username !== undefined) config.username = username;
    if (password !== undefined) config.password = password;
  }
  return config;
}
