/**
 * Every factory and credential function refuses a bad option at construction with an
 * option-checks error: a TypeError with a stable `code`, the factory, and the option at fault.
 */
import { thrownBy } from '@resourceful/test-support';
import { describe, expect, it } from 'vitest';
import {
  type ClusterCredentials,
  clusterServiceProxyOptions,
  controlPlaneRelay,
  createClusterCredentials,
  fileTokenSource,
  findClusterCredentials,
  getApiVersions,
  isNamespaceName,
  isPortName,
  isServiceName,
  kubeconfigPaths,
  loadInCluster,
  loadKubeconfig,
  serviceProxy,
  serviceProxyPath,
  serviceProxyUrl,
  staticTokenSource,
} from '../src/index.js';

const credentials = createClusterCredentials({ server: 'https://127.0.0.1:6443', token: 't' });

const INVALID = 'ERR_RESOURCEFUL_INVALID_OPTION';
const MISSING = 'ERR_RESOURCEFUL_MISSING_OPTION';
const CONFLICTING = 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS';

function expectOptionError(
  build: () => unknown,
  code: string,
  factory: string,
  option: string,
): void {
  const error = thrownBy(build);
  expect(error).toBeInstanceOf(TypeError);
  expect({ code: error.code, option: error.option }).toEqual({ code, option });
  expect(error.message).toMatch(new RegExp(`^${factory}: `));
  expect(error.message).toContain(option.split(/[.[]/)[0]);
  expect(error.message).not.toMatch(/is not a function|Cannot read properties/);
}

const UGLY: readonly [string, unknown][] = [
  ['null', null],
  ['5', 5],
  ['"x"', 'x'],
  ['{}', {}],
  ['[]', []],
  ['NaN', Number.NaN],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['1e300', 1e300],
  ['true', true],
];

describe('serviceProxy construction errors', () => {
  const base = { credentials, service: 'ledger' };

  it('names a missing service or credentials', () => {
    expectOptionError(
      () => serviceProxy({ credentials } as never),
      MISSING,
      'serviceProxy',
      'service',
    );
    expectOptionError(
      () => serviceProxy({ service: 'ledger' } as never),
      MISSING,
      'serviceProxy',
      'credentials',
    );
  });

  it.each([
    ['service', 5],
    ['service', 'Bad_Name'],
    ['namespace', 'Bad_NS'],
    ['namespace', 5],
    ['port', -5],
    ['port', 1.5],
    ['port', 70000],
    ['scheme', 'ftp'],
    ['timeoutMs', 'x'],
    ['timeoutMs', -1],
    ['timeoutMs', 1e300],
    ['mountPath', 5],
    ['mountPath', 'relative'],
    ['rewriteLocation', 'yes'],
    ['credentials', {}],
    ['credentials', null],
    ['credentials', 'token'],
    ['params', 5],
  ])('refuses %s: %j, naming it', (option, value) => {
    expectOptionError(
      () => serviceProxy({ ...base, [option]: value } as never),
      INVALID,
      'serviceProxy',
      option,
    );
  });

  it('names the bad route parameter and the bad allow entry', () => {
    expectOptionError(
      () => serviceProxy({ credentials, params: { service: 5 }, allow: ['a/*'] } as never),
      INVALID,
      'serviceProxy',
      'params.service',
    );
    expectOptionError(
      () => serviceProxy({ credentials, params: { service: 'svc' }, allow: ['a/*', 7] } as never),
      INVALID,
      'serviceProxy',
      'allow[1]',
    );
  });

  it('refuses route parameters without an allow list as conflicting', () => {
    expectOptionError(
      () => serviceProxy({ credentials, params: { service: 'svc' } }),
      CONFLICTING,
      'serviceProxy',
      'allow',
    );
  });

  it('refuses a credentials namespace that is not a namespace name, saying where it came from', () => {
    const odd = { ...credentials, namespace: 'Bad_NS' } as ClusterCredentials;
    const error = thrownBy(() => serviceProxy({ credentials: odd, service: 'ledger' }));
    expect(error).toMatchObject({ code: INVALID, option: 'namespace' });
    expect(error.message).toMatch(/taken from the credentials/);
  });

  it.each(UGLY)(
    'answers every option set to %s with a named error or accepts it, never a raw error',
    (_, value) => {
      for (const option of [
        'credentials',
        'params',
        'rewriteLocation',
        'namespace',
        'service',
        'port',
        'scheme',
        'allow',
        'timeoutMs',
        'rewriteHtml',
        'mountPath',
      ]) {
        try {
          serviceProxy({ ...base, [option]: value } as never);
        } catch (error) {
          expect((error as { code?: string }).code, option).toMatch(/^ERR_RESOURCEFUL_/);
        }
      }
    },
  );
});

describe('clusterServiceProxyOptions and controlPlaneRelay construction errors', () => {
  it.each([
    ['credentials', undefined, MISSING],
    ['credentials', {}, INVALID],
    ['service', undefined, MISSING],
    ['service', 5, INVALID],
    ['namespace', 'Bad_NS', INVALID],
    ['port', -5, INVALID],
    ['rewriteLocation', 'no', INVALID],
  ])('clusterServiceProxyOptions names %s: %j', (option, value, code) => {
    expectOptionError(
      () =>
        clusterServiceProxyOptions({ credentials, service: 'ledger', [option]: value } as never),
      code,
      'clusterServiceProxyOptions',
      option,
    );
  });

  it.each([
    ['credentials', undefined, MISSING],
    ['credentials', 5, INVALID],
    ['clientCredentials', 'keep', INVALID],
    ['timeoutMs', 'x', INVALID],
    ['timeoutMs', Number.POSITIVE_INFINITY, INVALID],
  ])('controlPlaneRelay names %s: %j', (option, value, code) => {
    expectOptionError(
      () => controlPlaneRelay({ credentials, [option]: value } as never),
      code,
      'controlPlaneRelay',
      option,
    );
  });
});

describe('createClusterCredentials and findClusterCredentials construction errors', () => {
  const server = 'https://127.0.0.1:6443';
  const find = (options: object) =>
    findClusterCredentials({ kubeconfig: false, inCluster: false, ...options } as never);

  it('names a missing or unusable server', () => {
    expectOptionError(
      () => createClusterCredentials({} as never),
      MISSING,
      'createClusterCredentials',
      'server',
    );
    expectOptionError(
      () => createClusterCredentials({ server: 5 } as never),
      INVALID,
      'createClusterCredentials',
      'server',
    );
    expectOptionError(
      () => find({ server: 'notaurl', token: 't' }),
      INVALID,
      'findClusterCredentials',
      'server',
    );
    expectOptionError(
      () => findClusterCredentials({ server: 'notaurl' }),
      INVALID,
      'findClusterCredentials',
      'server',
    );
    expectOptionError(
      () => find({ server: 'ftp://h', token: 't' }),
      INVALID,
      'findClusterCredentials',
      'server',
    );
  });

  it.each([
    ['token', 5],
    ['token', {}],
    ['tokenFile', 5],
    ['ca', 5],
    ['caFile', null],
    ['clientCert', null],
    ['clientKeyFile', []],
    ['username', 5],
    ['insecureSkipTlsVerify', 'yes'],
    ['namespace', 5],
    ['tokenRefreshMs', 0],
    ['keepAliveMs', 'x'],
    ['execTimeoutMs', Number.NaN],
    ['exec', 5],
    ['exec.apiVersion', { command: 'x' }],
    ['exec.command', { apiVersion: 'client.authentication.k8s.io/v1' }],
    ['exec.args', { apiVersion: 'client.authentication.k8s.io/v1', command: 'x', args: 'a' }],
    ['exec.env', { apiVersion: 'client.authentication.k8s.io/v1', command: 'x', env: [{}] }],
    ['impersonate', null],
    ['impersonate.groups', { groups: 'admins' }],
    ['impersonate.extra.scopes', { extra: { scopes: 'a' } }],
    ['proxyUrl', 5],
    ['onWarning', 'log'],
  ])('names the wrong shape of %s: %j', (option, value) => {
    const key = option.split('.')[0] as string;
    expectOptionError(
      () => createClusterCredentials({ server, token: 't', [key]: value } as never),
      INVALID,
      'createClusterCredentials',
      option,
    );
    expectOptionError(
      () => find({ server, token: 't', [key]: value }),
      INVALID,
      'findClusterCredentials',
      option,
    );
  });

  it.each([
    ['kubeconfig', 5],
    ['context', 5],
    ['inCluster', 'yes'],
    ['inCluster.dir', { dir: 5 }],
    ['explicitServerAlone', 'no'],
    ['env', 'PATH'],
    ['homeDir', {}],
  ])('names findClusterCredentials option %s: %j', (option, value) => {
    const key = option.split('.')[0] as string;
    expectOptionError(
      () => findClusterCredentials({ [key]: value } as never),
      INVALID,
      'findClusterCredentials',
      option,
    );
  });

  it('refuses a key under __proto__ as an unknown option', () => {
    const error = thrownBy(() =>
      createClusterCredentials(JSON.parse('{"server":"https://h","__proto__":{}}')),
    );
    expect(error).toMatchObject({ code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION', option: '__proto__' });
  });

  it('names the conflicting credential options', () => {
    expectOptionError(
      () => createClusterCredentials({ server, token: 't', username: 'u' }),
      CONFLICTING,
      'createClusterCredentials',
      'username',
    );
    expectOptionError(
      () => createClusterCredentials({ server, password: 'p' }),
      CONFLICTING,
      'createClusterCredentials',
      'password',
    );
    expectOptionError(
      () => createClusterCredentials({ server, clientCert: 'CERT' }),
      MISSING,
      'createClusterCredentials',
      'clientKey',
    );
  });
});

describe('the loaders, token sources and path builders refuse arguments of the wrong type', () => {
  it.each([
    ['loadKubeconfig', () => loadKubeconfig(null as never), 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT'],
    ['loadKubeconfig', () => loadKubeconfig({ path: 5 } as never), INVALID],
    ['kubeconfigPaths', () => kubeconfigPaths({ env: 'x' } as never), INVALID],
    ['loadInCluster', () => loadInCluster({ dir: [] } as never), INVALID],
    [
      'loadInCluster',
      () => loadInCluster({ dirr: '/' } as never),
      'ERR_RESOURCEFUL_UNKNOWN_OPTION',
    ],
    ['staticTokenSource', () => staticTokenSource(5 as never), INVALID],
    ['fileTokenSource', () => fileTokenSource(undefined as never), INVALID],
    ['fileTokenSource', () => fileTokenSource('/t', { refreshMs: 0 }), INVALID],
    [
      'serviceProxyPath',
      () => serviceProxyPath(null as never),
      'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
    ],
    [
      'serviceProxyUrl',
      () => serviceProxyUrl('https://h', 5 as never),
      'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
    ],
  ])('%s', (factory, build, code) => {
    const error = thrownBy(build);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe(code);
    expect(error.message).toMatch(new RegExp(`^${factory}: `));
  });

  it('getApiVersions rejects bad credentials or timeout before any request', async () => {
    await expect(getApiVersions({} as never)).rejects.toMatchObject({
      code: INVALID,
      option: 'credentials',
    });
    await expect(getApiVersions(credentials, { timeoutMs: -1 })).rejects.toMatchObject({
      code: INVALID,
      option: 'timeoutMs',
    });
  });

  it('the name predicates answer false for what is not a string', () => {
    for (const value of [undefined, null, 5, {}]) {
      expect(isNamespaceName(value as never)).toBe(false);
      expect(isServiceName(value as never)).toBe(false);
      expect(isPortName(value as never)).toBe(false);
    }
  });
});
