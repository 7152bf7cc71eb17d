/**
 * @module Reads kubeconfig files the way kubectl does: `KUBECONFIG` (a `:`-separated list, the
 * first file to set a value wins) or `~/.kube/config`, the current (or a chosen) context, its
 * cluster and user. File references are relative to the kubeconfig that names them. Values are
 * typed as kubectl types them: a number or boolean where a string belongs is refused, as is a
 * string where a boolean belongs (see kubeconfig-yaml.ts).
 * @see https://kubernetes.io/docs/concepts/configuration/organize-cluster-access-kubeconfig/
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { assertKnownOptions, assertOptionsObject, stringOption } from '@resourceful/option-checks';
import type { ClusterConfig, ExecConfig, ExecInteractiveMode } from './cluster-config.js';
import {
  CLUSTER_ERROR_CODES,
  ClusterConfigError,
  kubeconfigError,
  unreadableFile,
} from './cluster-errors.js';
import { environmentOption } from './credential-options.js';
import { base64ErrorOffset, decodeBase64 } from './go-base64.js';
import { goTypeOf, parseKubeconfigYaml } from './kubeconfig-yaml.js';
import { kubeconfigProxyUrl } from './proxy-environment.js';

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

/** Thrown for a kubeconfig that kubectl would refuse to load. */
function typeError(where: string, key: string, expected: string, value: unknown): Error {
  return kubeconfigError(
    `kubeconfig: ${where}.${key} must be ${expected}, not a ${goTypeOf(value)} (kubectl refuses it too; quote the value)`,
  );
}

/** A string field: absent, `null` and `""` are unset; any other non-string is refused. */
function str(entry: Entry | undefined, key: string, where = ''): string | undefined {
  const value = entry?.[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw typeError(where, key, 'a string', value);
  return value === '' ? undefined : value;
}

/** A boolean field: YAML 1.1 `true`/`yes`/`on`/`y` and their opposites only. */
function bool(entry: Entry, key: string, where: string): boolean | undefined {
  const value = entry[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw typeError(where, key, 'true or false', value);
  return value;
}

function stringList(entry: Entry, key: string, where: string): string[] | undefined {
  const value = entry[key];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw typeError(where, key, 'a list of strings', value);
  return value.map((item, index) => {
    if (typeof item !== 'string') throw typeError(where, `${key}[${index}]`, 'a string', item);
    return item;
  });
}

const KUBECONFIG_OPTION_NAMES = ['path', 'context', 'cluster', 'user', 'env', 'homeDir'];

function checkKubeconfigOptions(factory: string, options: unknown): void {
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, KUBECONFIG_OPTION_NAMES);
  const given = options as Record<string, unknown>;
  for (const name of ['path', 'context', 'cluster', 'user', 'homeDir']) {
    stringOption(factory, name, given[name]);
  }
  environmentOption(factory, 'env', given.env);
}

/** The kubeconfig files kubectl would read, in precedence order. */
export function kubeconfigPaths(options: KubeconfigOptions = {}): string[] {
  checkKubeconfigOptions('kubeconfigPaths', options);
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
    throw unreadableFile('kubeconfig', file, error);
  }
  let doc: unknown;
  try {
    doc = parseKubeconfigYaml(text);
  } catch (error) {
    throw kubeconfigError(`kubeconfig ${file} is ${(error as Error).message}`, file);
  }
  if (doc === null || doc === undefined) return {};
  const entry = asEntry(doc);
  if (entry === undefined) throw kubeconfigError(`kubeconfig ${file} is not a mapping`, file);
  checkBase64Fields(file, entry);
  return entry;
}

/** The `[]byte` fields of kubeconfig entries, which Go decodes as base64 when loading a file. */
const BASE64_FIELDS = [
  { list: 'clusters', key: 'cluster', fields: ['certificate-authority-data'] },
  { list: 'users', key: 'user', fields: ['client-certificate-data', 'client-key-data'] },
] as const;

/**
 * kubectl refuses the whole file when any entry's `*-data` is not base64, used or not ("error
 * loading config file": it decodes every entry as it loads).
 */
function checkBase64Fields(file: string, doc: Entry): void {
  for (const { list, key, fields } of BASE64_FIELDS) {
    const items = doc[list];
    if (!Array.isArray(items)) continue;
    for (const item of items) {
      const named = asEntry(item);
      const entry = asEntry(named?.[key]);
      if (entry === undefined) continue;
      for (const field of fields) {
        const value = entry[field];
        if (typeof value !== 'string') continue;
        const offset = base64ErrorOffset(value);
        if (offset !== undefined) {
          throw kubeconfigError(
            `kubeconfig ${file}: ${list}[${String(named?.name)}].${key}.${field} is not valid base64 (illegal base64 data at input byte ${offset}; kubectl refuses it too)`,
          );
        }
      }
    }
  }
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

/**
 * A PEM given inline (`*-data`, base64, checked by `readDoc`) or as a file relative to `base`
 * (then `file` says which). Both at once is refused with kubectl's message (client-go's
 * `validateClusterInfo` / `validateAuthInfo`): kubectl would not silently pick one either. A
 * file that cannot be read now is left for createClusterCredentials to read (and report): kubectl
 * reads it only when it builds its transport, after its flags may have replaced it.
 */
function fileOrData(
  entry: Entry,
  fileKey: string,
  dataKey: string,
  base: string,
  where: string,
  both: string,
): { pem?: string; file?: string } | undefined {
  const data = str(entry, dataKey, where);
  const path = str(entry, fileKey, where);
  if (data !== undefined && path !== undefined) {
    throw kubeconfigError(`kubeconfig: ${both} (kubectl refuses it too; keep one)`);
  }
  if (data !== undefined) return { pem: decodeBase64(data).toString('utf8') };
  if (path === undefined) return undefined;
  const file = isAbsolute(path) ? path : resolve(base, path);
  try {
    return { pem: readFileSync(file, 'utf8'), file };
  } catch {
    return { file };
  }
}

/**
 * The cluster configuration of the selected context, or `undefined` when no kubeconfig file
 * exists (an explicit `path` that does not exist is an error, as in kubectl).
 */
export function loadKubeconfig(options: KubeconfigOptions = {}): ClusterConfig | undefined {
  checkKubeconfigOptions('loadKubeconfig', options);
  const paths = kubeconfigPaths(options);
  if (options.path !== undefined && !existsSync(options.path)) {
    throw new ClusterConfigError(
      CLUSTER_ERROR_CODES.kubeconfigNotFound,
      `kubeconfig ${options.path} does not exist`,
      options.path,
    );
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
    throw kubeconfigError(`context "${contextName}" is not defined in the kubeconfig`);
  }
  const clusterName = options.cluster ?? str(context?.entry, 'cluster');
  if (clusterName === undefined) {
    throw kubeconfigError(`context "${contextName}" names no cluster`);
  }
  const cluster = findNamed(files, 'clusters', clusterName, 'cluster');
  if (cluster === undefined) {
    throw kubeconfigError(`cluster "${clusterName}" is not defined in the kubeconfig`);
  }
  const server = str(cluster.entry, 'server');
  if (server === undefined) throw kubeconfigError(`cluster "${clusterName}" has no server`);

  const config: ClusterConfig = { server, source: 'kubeconfig' };
  const clusterWhere = `clusters[${clusterName}].cluster`;
  const ca = fileOrData(
    cluster.entry,
    'certificate-authority',
    'certificate-authority-data',
    dirname(cluster.file),
    clusterWhere,
    `certificate-authority-data and certificate-authority are both specified for cluster "${clusterName}"`,
  );
  if (ca?.pem !== undefined) config.ca = ca.pem;
  if (ca?.file !== undefined) config.caFile = ca.file;
  if (bool(cluster.entry, 'insecure-skip-tls-verify', clusterWhere) === true) {
    config.insecureSkipTlsVerify = true;
  }
  const proxyUrl = str(cluster.entry, 'proxy-url', clusterWhere);
  // Checked here, at load, as clientcmd's validation checks it; empty is unset there too.
  if (proxyUrl !== undefined && proxyUrl !== '') {
    kubeconfigProxyUrl(proxyUrl, clusterName, cluster.file);
    config.proxyUrl = proxyUrl;
  }
  const tlsServerName = str(cluster.entry, 'tls-server-name', clusterWhere);
  if (tlsServerName !== undefined) config.tlsServerName = tlsServerName;
  const namespace = str(context?.entry, 'namespace');
  if (namespace !== undefined) config.namespace = namespace;

  const userName = options.user ?? str(context?.entry, 'user');
  if (userName !== undefined) {
    const user = findNamed(files, 'users', userName, 'user');
    if (user === undefined)
      throw kubeconfigError(`user "${userName}" is not defined in the kubeconfig`);
    readUser(config, user.entry, userName, dirname(user.file));
  }
  const pluginSettings = execExtension(cluster.entry, clusterWhere);
  if (config.exec !== undefined && pluginSettings !== undefined) {
    config.exec.clusterConfig = pluginSettings;
  }
  return config;
}

/** The extension clientcmd hands the user's exec plugin (its `clusterExtensionKey`). */
const EXEC_EXTENSION = 'client.authentication.k8s.io/exec';

/** The cluster's `extensions` entry for exec plugins, as written (`null` counts as absent). */
function execExtension(cluster: Entry, where: string): unknown {
  const list = cluster.extensions;
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list))
    throw typeError(where, 'extensions', 'a list of {name, extension}', list);
  for (const [index, item] of list.entries()) {
    const named = asEntry(item);
    if (named === undefined) {
      throw typeError(where, `extensions[${index}]`, 'a {name, extension} mapping', item);
    }
    if (str(named, 'name', `${where}.extensions[${index}]`) === EXEC_EXTENSION) {
      return named.extension ?? undefined;
    }
  }
  return undefined;
}

const INTERACTIVE_MODES: readonly ExecInteractiveMode[] = ['Never', 'IfAvailable', 'Always'];
const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
];

/** The `exec` stanza, checked as client-go's `validateAuthInfo` and exec authenticator do. */
function readExec(entry: Entry, where: string, base: string): ExecConfig {
  const apiVersion = str(entry, 'apiVersion', where);
  const command = str(entry, 'command', where);
  if (command === undefined) {
    throw kubeconfigError(
      `kubeconfig: ${where}.command must be set to use an exec credential plugin`,
    );
  }
  if (apiVersion === undefined || !EXEC_API_VERSIONS.includes(apiVersion)) {
    throw kubeconfigError(
      `kubeconfig: ${where}.apiVersion must be one of ${EXEC_API_VERSIONS.join(', ')}`,
    );
  }
  const mode = str(entry, 'interactiveMode', where);
  if (mode !== undefined && !INTERACTIVE_MODES.includes(mode as ExecInteractiveMode)) {
    throw kubeconfigError(
      `kubeconfig: ${where}.interactiveMode must be Never, IfAvailable or Always`,
    );
  }
  if (mode === undefined && apiVersion === 'client.authentication.k8s.io/v1') {
    throw kubeconfigError(
      `kubeconfig: ${where}.interactiveMode must be set for client.authentication.k8s.io/v1 plugins (Never, IfAvailable or Always)`,
    );
  }
  const rawEnv = entry.env ?? [];
  if (!Array.isArray(rawEnv)) throw typeError(where, 'env', 'a list of {name, value}', rawEnv);
  const env = rawEnv.map((item, index) => {
    const pair = asEntry(item);
    const name = str(pair, 'name', `${where}.env[${index}]`);
    if (pair === undefined || name === undefined) {
      throw kubeconfigError(`kubeconfig: ${where}.env[${index}].name must be set`);
    }
    return { name, value: str(pair, 'value', `${where}.env[${index}]`) ?? '' };
  });
  // As clientcmd's ResolvePaths: a command with a separator is relative to its kubeconfig.
  const resolved = !isAbsolute(command) && /[/\\]/.test(command) ? resolve(base, command) : command;
  const exec: ExecConfig = {
    apiVersion,
    command: resolved,
    args: stringList(entry, 'args', where) ?? [],
    env,
    interactiveMode: (mode as ExecInteractiveMode | undefined) ?? 'IfAvailable',
    provideClusterInfo: bool(entry, 'provideClusterInfo', where) === true,
  };
  const installHint = str(entry, 'installHint', where);
  if (installHint !== undefined) exec.installHint = installHint;
  return exec;
}

/** The user entry's credentials and impersonation, onto `config`. */
function readUser(config: ClusterConfig, entry: Entry, userName: string, base: string): void {
  const where = `users[${userName}].user`;
  config.kubeconfigUser = userName;
  const methods: string[] = [];
  const token = str(entry, 'token', where);
  const tokenFile = str(entry, 'tokenFile', where);
  if (token !== undefined) config.token = token;
  if (tokenFile !== undefined) {
    config.tokenFile = isAbsolute(tokenFile) ? tokenFile : resolve(base, tokenFile);
  }
  if (token !== undefined || tokenFile !== undefined) methods.push('token');
  const username = str(entry, 'username', where);
  const password = str(entry, 'password', where);
  if (username !== undefined) config.username = username;
  if (password !== undefined) config.password = password;
  if (username !== undefined || password !== undefined) methods.push('basicAuth');
  // kubectl (client-go's validateAuthInfo) refuses a user with two of these.
  if (methods.length > 1) {
    throw kubeconfigError(
      `kubeconfig: more than one authentication method found for user "${userName}"; found [${methods.join(' ')}], only one is allowed`,
    );
  }
  // A certificate without its key (or a key alone) is not refused here: kubectl merges its
  // --client-certificate / --client-key flags into the user field by field first, and
  // findClusterCredentials checks the merged user (see cluster-credentials.ts).
  const cert = fileOrData(
    entry,
    'client-certificate',
    'client-certificate-data',
    base,
    where,
    `client-certificate-data and client-certificate are both specified for user "${userName}"`,
  );
  const key = fileOrData(
    entry,
    'client-key',
    'client-key-data',
    base,
    where,
    `client-key-data and client-key are both specified for user "${userName}"`,
  );
  if (cert?.pem !== undefined) config.clientCert = cert.pem;
  if (cert?.file !== undefined) config.clientCertFile = cert.file;
  if (key?.pem !== undefined) config.clientKey = key.pem;
  if (key?.file !== undefined) config.clientKeyFile = key.file;
  const exec = asEntry(entry.exec);
  const provider = asEntry(entry['auth-provider']);
  if (exec !== undefined && provider !== undefined) {
    throw kubeconfigError(
      `kubeconfig: user "${userName}" has both exec and auth-provider; kubectl allows only one`,
    );
  }
  if (exec !== undefined) config.exec = readExec(exec, `${where}.exec`, base);
  if (provider !== undefined) {
    const name = str(provider, 'name', `${where}.auth-provider`);
    if (name !== 'oidc') {
      throw kubeconfigError(
        `kubeconfig: user "${userName}" uses the "${name ?? ''}" auth-provider, which kubectl no longer ships either; use an exec credential plugin (for instance kubelogin or gke-gcloud-auth-plugin)`,
      );
    }
    const settings = asEntry(provider.config) ?? {};
    const idToken = str(settings, 'id-token', `${where}.auth-provider.config`);
    if (idToken === undefined) {
      throw kubeconfigError(
        `kubeconfig: user "${userName}" uses auth-provider oidc without an id-token; log in with your OIDC helper first (refreshing is not supported)`,
      );
    }
    config.oidcIdToken = idToken;
  }

  const as = str(entry, 'as', where);
  const asUid = str(entry, 'as-uid', where);
  const asGroups = stringList(entry, 'as-groups', where);
  const extraEntry = asEntry(entry['as-user-extra']);
  if (as !== undefined || asUid !== undefined || asGroups !== undefined || extraEntry) {
    const extra: Record<string, string[]> = {};
    for (const key of Object.keys(extraEntry ?? {})) {
      extra[key] = stringList(extraEntry as Entry, key, `${where}.as-user-extra`) ?? [];
    }
    config.impersonate = {
      ...(as === undefined ? {} : { user: as }),
      ...(asUid === undefined ? {} : { uid: asUid }),
      ...(asGroups === undefined ? {} : { groups: asGroups }),
      ...(extraEntry === undefined ? {} : { extra }),
    };
  }
}
