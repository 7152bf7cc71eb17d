/**
 * @module The types of `createClusterCredentials` / `findClusterCredentials` options, checked
 * before anything is read or built, so a wrong value is named (`"exec.args" must be an array of
 * strings`) rather than failing later inside Node (`token.trim is not a function`).
 */
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  functionOption,
  invalidOption,
  millisecondsOption,
  oneOfOption,
  stringOption,
} from '@resourceful/option-checks';

type Check = (factory: string, option: string, value: unknown) => void;

const string: Check = (factory, option, value) => {
  stringOption(factory, option, value);
};

const pem: Check = (factory, option, value) => {
  if (value !== undefined && typeof value !== 'string' && !Buffer.isBuffer(value)) {
    invalidOption(factory, option, 'PEM text (a string or a Buffer)', value);
  }
};

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

const stringArray = (factory: string, option: string, value: unknown): void => {
  if (value === undefined) return;
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) {
    invalidOption(factory, option, 'an array of strings', value);
  }
};

/** `object` checked as an options object of its own: plain, known keys only. */
function nested(factory: string, option: string, value: unknown, known: readonly string[]): void {
  if (!isPlainObject(value)) invalidOption(factory, option, 'an object', value);
  assertKnownOptions(factory, value, known, option);
}

const EXEC_KEYS = [
  'apiVersion',
  'command',
  'args',
  'env',
  'installHint',
  'interactiveMode',
  'provideClusterInfo',
  'clusterConfig',
];

const EXEC_API_VERSIONS = [
  'client.authentication.k8s.io/v1',
  'client.authentication.k8s.io/v1beta1',
];

const exec: Check = (factory, option, value) => {
  if (value === undefined) return;
  nested(factory, option, value, EXEC_KEYS);
  const config = value as Record<string, unknown>;
  if (config.apiVersion === undefined) {
    invalidOption(factory, `${option}.apiVersion`, EXEC_API_VERSIONS.join(' or '), undefined);
  }
  oneOfOption(factory, `${option}.apiVersion`, config.apiVersion, EXEC_API_VERSIONS, '');
  if (typeof config.command !== 'string' || config.command === '') {
    invalidOption(
      factory,
      `${option}.command`,
      'the credential plugin to run (a non-empty string)',
      config.command,
    );
  }
  stringArray(factory, `${option}.args`, config.args);
  if (
    config.env !== undefined &&
    !(
      Array.isArray(config.env) &&
      config.env.every(
        (entry: unknown) =>
          isPlainObject(entry) && typeof entry.name === 'string' && typeof entry.value === 'string',
      )
    )
  ) {
    invalidOption(factory, `${option}.env`, 'an array of { name, value } strings', config.env);
  }
  stringOption(factory, `${option}.installHint`, config.installHint);
  if (config.interactiveMode !== undefined) {
    oneOfOption(
      factory,
      `${option}.interactiveMode`,
      config.interactiveMode,
      ['Never', 'IfAvailable', 'Always'],
      'IfAvailable',
    );
  }
  booleanOption(factory, `${option}.provideClusterInfo`, config.provideClusterInfo, false);
};

const impersonate: Check = (factory, option, value) => {
  if (value === undefined) return;
  nested(factory, option, value, ['user', 'groups', 'uid', 'extra']);
  const given = value as Record<string, unknown>;
  stringOption(factory, `${option}.user`, given.user);
  stringOption(factory, `${option}.uid`, given.uid);
  stringArray(factory, `${option}.groups`, given.groups);
  if (given.extra !== undefined) {
    if (!isPlainObject(given.extra)) {
      invalidOption(factory, `${option}.extra`, 'an object of string arrays', given.extra);
    }
    for (const [key, values] of Object.entries(given.extra)) {
      stringArray(factory, `${option}.extra.${key}`, values);
    }
  }
};

const token: Check = (factory, option, value) => {
  if (value === undefined || typeof value === 'string') return;
  const source = value as { current?: unknown; close?: unknown } | null;
  if (
    typeof source !== 'object' ||
    source === null ||
    typeof source.current !== 'function' ||
    typeof source.close !== 'function'
  ) {
    invalidOption(factory, option, 'a string or a TokenSource ({ current(), close() })', value);
  }
};

const stringOrFalse =
  (expected: string): Check =>
  (factory, option, value) => {
    if (value !== undefined && value !== false && typeof value !== 'string') {
      invalidOption(factory, option, expected, value);
    }
  };

const boolean: Check = (factory, option, value) => {
  booleanOption(factory, option, value, false);
};

const milliseconds =
  (positive: boolean): Check =>
  (factory, option, value) => {
    millisecondsOption(factory, option, value, 0, { positive });
  };

/** An `env` option: an object of strings, as `process.env`. */
export const environmentOption: Check = (factory, option, value) => {
  if (value === undefined) return;
  if (
    typeof value !== 'object' ||
    value === null ||
    Array.isArray(value) ||
    !Object.values(value).every((entry) => entry === undefined || typeof entry === 'string')
  ) {
    invalidOption(factory, option, 'an object of strings, as process.env', value);
  }
};

const inCluster: Check = (factory, option, value) => {
  if (value === undefined || value === false) return;
  nested(factory, option, value, ['dir', 'env']);
  stringOption(factory, `${option}.dir`, (value as Record<string, unknown>).dir);
  environmentOption(factory, `${option}.env`, (value as Record<string, unknown>).env);
};

/** The type of every option `createClusterCredentials` takes. */
const CREDENTIAL_CHECKS: Readonly<Record<string, Check>> = {
  server: string,
  token,
  tokenFile: string,
  ca: pem,
  caFile: string,
  clientCert: pem,
  clientCertFile: string,
  clientKey: pem,
  clientKeyFile: string,
  username: string,
  password: string,
  insecureSkipTlsVerify: boolean,
  tlsServerName: string,
  namespace: string,
  tokenRefreshMs: milliseconds(true),
  keepAliveMs: milliseconds(false),
  exec,
  execTimeoutMs: milliseconds(true),
  oidcIdToken: string,
  impersonate,
  proxyUrl: stringOrFalse('a proxy URL such as "http://proxy:3128", or false'),
  onWarning: (factory, option, value) => {
    functionOption(factory, option, value as never, 'a function taking a message');
  },
  source: (factory, option, value) => {
    if (value !== undefined) {
      oneOfOption(factory, option, value, ['options', 'kubeconfig', 'in-cluster'], 'options');
    }
  },
};

/** The options only `findClusterCredentials` takes. */
const FIND_CHECKS: Readonly<Record<string, Check>> = {
  kubeconfig: stringOrFalse('the path of a kubeconfig file, or false'),
  context: string,
  cluster: string,
  user: string,
  inCluster,
  explicitServerAlone: boolean,
  env: environmentOption,
  homeDir: string,
};

export const CREDENTIAL_OPTION_NAMES: readonly string[] = Object.keys(CREDENTIAL_CHECKS);
export const FIND_OPTION_NAMES: readonly string[] = [
  ...Object.keys(CREDENTIAL_CHECKS).filter((name) => name !== 'source'),
  ...Object.keys(FIND_CHECKS),
];

/** Checks the options object and the type of each option (`find`: findClusterCredentials'). */
export function checkCredentialOptions(factory: string, options: unknown, find: boolean): void {
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, find ? FIND_OPTION_NAMES : CREDENTIAL_OPTION_NAMES);
  for (const [name, value] of Object.entries(options)) {
    (CREDENTIAL_CHECKS[name] ?? FIND_CHECKS[name])?.(factory, name, value);
  }
}
