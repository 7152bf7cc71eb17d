/**
 * A cluster configuration that cannot be used stops the start with a `ClusterConfigError`: a
 * stable `code` to branch on, the `path` of the file at fault, and a message naming the file and
 * field. The path builders' `ServiceProxyPathError` carries option-checks' invalid-option code.
 */

import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CLUSTER_ERROR_CODES,
  ClusterConfigError,
  createClusterCredentials,
  fileTokenSource,
  findClusterCredentials,
  loadClusterCredentials,
  loadKubeconfig,
  ServiceProxyPathError,
  serviceProxyPath,
} from '../src/index.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cluster-config-errors-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function thrown(run: () => unknown): ClusterConfigError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ClusterConfigError);
    return error as ClusterConfigError;
  }
  throw new Error('expected a ClusterConfigError');
}

function kubeconfig(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const VALID = `apiVersion: v1
kind: Config
current-context: c
contexts: [{name: c, context: {cluster: k, user: u}}]
clusters: [{name: k, cluster: {server: 'https://127.0.0.1:6443'}}]
users: [{name: u, user: {token: t}}]
`;

describe('kubeconfig errors', () => {
  it('names a missing explicit kubeconfig with ERR_RESOURCEFUL_KUBECONFIG_NOT_FOUND', () => {
    const path = join(dir, 'nope');
    const error = thrown(() => loadKubeconfig({ path }));
    expect(error.code).toBe('ERR_RESOURCEFUL_KUBECONFIG_NOT_FOUND');
    expect(error.code).toBe(CLUSTER_ERROR_CODES.kubeconfigNotFound);
    expect(error.path).toBe(path);
    expect(error.message).toBe(`kubeconfig ${path} does not exist`);
  });

  it('marks broken YAML as ERR_RESOURCEFUL_KUBECONFIG_INVALID with the file', () => {
    const path = kubeconfig('broken.yaml', 'clusters: [\n');
    const error = thrown(() => loadKubeconfig({ path }));
    expect(error.code).toBe('ERR_RESOURCEFUL_KUBECONFIG_INVALID');
    expect(error.path).toBe(path);
    expect(error.message).toMatch(new RegExp(`kubeconfig ${path} is not valid YAML`));
  });

  it.each([
    ['context', { context: 'other' }, 'context "other" is not defined in the kubeconfig'],
    ['cluster', { cluster: 'other' }, 'cluster "other" is not defined in the kubeconfig'],
    ['user', { user: 'other' }, 'user "other" is not defined in the kubeconfig'],
  ])('marks an undefined %s as ERR_RESOURCEFUL_KUBECONFIG_INVALID', (_what, pick, message) => {
    const path = kubeconfig('valid.yaml', VALID);
    const error = thrown(() => loadKubeconfig({ path, ...pick }));
    expect(error.code).toBe('ERR_RESOURCEFUL_KUBECONFIG_INVALID');
    expect(error.message).toBe(message);
  });

  it('marks a field of the wrong type as ERR_RESOURCEFUL_KUBECONFIG_INVALID', () => {
    const path = kubeconfig(
      'typed.yaml',
      VALID.replace("server: 'https", 'proxy-url: 5, server: '.concat("'https")),
    );
    const error = thrown(() => loadKubeconfig({ path }));
    expect(error.code).toBe('ERR_RESOURCEFUL_KUBECONFIG_INVALID');
    expect(error.message).toMatch(/proxy-url/);
  });
});

describe('unreadable and empty files', () => {
  it('names an unreadable certificate file and its field with ERR_RESOURCEFUL_FILE_UNREADABLE', () => {
    const path = join(dir, 'missing-ca.pem');
    const error = thrown(() =>
      createClusterCredentials({ server: 'https://127.0.0.1:6443', token: 't', caFile: path }),
    );
    expect(error.code).toBe('ERR_RESOURCEFUL_FILE_UNREADABLE');
    expect(error.path).toBe(path);
    expect(error.message).toMatch(new RegExp(`cannot read .*${path} \\(ENOENT\\)`));
  });

  it('names an unreadable kubeconfig with ERR_RESOURCEFUL_FILE_UNREADABLE', () => {
    const path = kubeconfig('locked.yaml', VALID);
    chmodSync(path, 0o000);
    try {
      // root reads any file: then there is nothing to check
      let readable = true;
      try {
        loadKubeconfig({ path });
      } catch (error) {
        readable = false;
        expect((error as ClusterConfigError).code).toBe('ERR_RESOURCEFUL_FILE_UNREADABLE');
        expect((error as Error).message).toBe(`cannot read kubeconfig ${path} (EACCES)`);
      }
      expect(readable).toBe(process.getuid?.() === 0);
    } finally {
      chmodSync(path, 0o600);
    }
  });

  it('names a missing token file with ERR_RESOURCEFUL_FILE_UNREADABLE', () => {
    const path = join(dir, 'no-token');
    const error = thrown(() => fileTokenSource(path));
    expect(error.code).toBe('ERR_RESOURCEFUL_FILE_UNREADABLE');
    expect(error.message).toBe(`cannot read token file ${path} (ENOENT)`);
  });

  it('names a blank token file with ERR_RESOURCEFUL_TOKEN_FILE_EMPTY', () => {
    const path = kubeconfig('blank-token', '  \n');
    const error = thrown(() => fileTokenSource(path));
    expect(error.code).toBe('ERR_RESOURCEFUL_TOKEN_FILE_EMPTY');
    expect(error.path).toBe(path);
  });
});

describe('missing credentials', () => {
  it('refuses an https server with no credential with ERR_RESOURCEFUL_NO_CREDENTIAL', () => {
    const error = thrown(() =>
      findClusterCredentials({ server: 'https://h', kubeconfig: false, inCluster: false }),
    );
    expect(error.code).toBe('ERR_RESOURCEFUL_NO_CREDENTIAL');
    expect(error.message).toMatch(/^no credential for https:\/\/h: /);
  });

  it('reports no credentials at all with ERR_RESOURCEFUL_NO_CLUSTER_CREDENTIALS', () => {
    const error = thrown(() =>
      loadClusterCredentials({ kubeconfig: false, inCluster: false, env: {} }),
    );
    expect(error.code).toBe('ERR_RESOURCEFUL_NO_CLUSTER_CREDENTIALS');
    expect(error.message).toMatch(/^no cluster credentials found: /);
  });
});

describe('proxy URLs that cannot be used', () => {
  const withProxyUrl = (name: string, proxyUrl: string) =>
    kubeconfig(
      name,
      VALID.replace(
        "server: 'https://127.0.0.1:6443'",
        `server: 'https://kube.test:6443', proxy-url: '${proxyUrl}'`,
      ),
    );

  it.each([
    [
      'socks4://127.0.0.1:1080',
      `invalid 'proxy-url' "socks4://127.0.0.1:1080" for cluster "k": unsupported scheme "socks4", must be http, https, or socks5`,
    ],
    [
      'http://[::1',
      `invalid 'proxy-url' "http://[::1" for cluster "k": could not parse: http://[::1`,
    ],
    // clientcmd parses proxy-url as it is: no http:// is assumed, as it is for HTTPS_PROXY.
    [
      'proxy:3128',
      `invalid 'proxy-url' "proxy:3128" for cluster "k": unsupported scheme "proxy", must be http, https, or socks5`,
    ],
    [
      '127.0.0.1:3128',
      `invalid 'proxy-url' "127.0.0.1:3128" for cluster "k": could not parse: 127.0.0.1:3128`,
    ],
    [
      'proxy.example.com',
      `invalid 'proxy-url' "proxy.example.com" for cluster "k": unsupported scheme "", must be http, https, or socks5`,
    ],
    [
      'ftp://me:s3cret@proxy:21',
      `invalid 'proxy-url' "ftp://me:xxxxx@proxy:21" for cluster "k": unsupported scheme "ftp", must be http, https, or socks5`,
    ],
  ])(
    'refuse a kubeconfig proxy-url %s at load with ERR_RESOURCEFUL_PROXY_URL_INVALID, as kubectl words it',
    (proxyUrl, message) => {
      const path = withProxyUrl('bad-proxy.yaml', proxyUrl);
      for (const load of [
        () => loadKubeconfig({ path }),
        () => findClusterCredentials({ kubeconfig: path, inCluster: false, env: {} }),
      ]) {
        const error = thrown(load);
        expect(error.code).toBe('ERR_RESOURCEFUL_PROXY_URL_INVALID');
        expect(error.code).toBe(CLUSTER_ERROR_CODES.proxyUrlInvalid);
        expect(error.path).toBe(path);
        expect(error.message).toBe(message);
        expect(error.message).not.toContain('s3cret');
      }
    },
  );

  it('read an empty proxy-url as unset, as clientcmd does: the environment proxy applies', () => {
    const path = withProxyUrl('empty-proxy.yaml', '');
    expect(loadKubeconfig({ path })?.proxyUrl).toBeUndefined();
    const error = thrown(() =>
      findClusterCredentials({
        kubeconfig: path,
        inCluster: false,
        env: { HTTPS_PROXY: 'socks4://p:1080' },
      }),
    );
    expect(error.code).toBe('ERR_RESOURCEFUL_PROXY_URL_INVALID');
    expect(error.message).toMatch(
      /^invalid proxy address "socks4:\/\/p:1080" in environment variable HTTPS_PROXY: /,
    );
  });

  it.each([
    ['HTTPS_PROXY', 'https://kube.test:6443'],
    ['https_proxy', 'https://kube.test:6443'],
    ['HTTP_PROXY', 'http://kube.test:8080'],
  ])(
    'refuse %s from the environment with ERR_RESOURCEFUL_PROXY_URL_INVALID, naming the variable',
    (variable, server) => {
      const error = thrown(() =>
        findClusterCredentials({
          server,
          token: 't',
          kubeconfig: false,
          inCluster: false,
          env: { [variable]: 'socks4://me:s3cret@p:1080' },
        }),
      );
      expect(error.code).toBe('ERR_RESOURCEFUL_PROXY_URL_INVALID');
      expect(error.path).toBeUndefined();
      expect(error.message).toBe(
        `invalid proxy address "socks4://me:xxxxx@p:1080" in environment variable ${variable}: unsupported scheme "socks4", must be http, https, or socks5`,
      );
    },
  );
});

describe('service proxy path errors', () => {
  it('carry ERR_RESOURCEFUL_INVALID_OPTION beside the target option', () => {
    try {
      serviceProxyPath({ namespace: 'default', service: 'web', suffix: '../secrets' });
      expect.unreachable('the suffix leaves the proxy prefix');
    } catch (error) {
      expect(error).toBeInstanceOf(ServiceProxyPathError);
      expect(error).toBeInstanceOf(RangeError);
      expect((error as ServiceProxyPathError).code).toBe('ERR_RESOURCEFUL_INVALID_OPTION');
      expect((error as ServiceProxyPathError).target).toBe('suffix');
    }
  });
});
