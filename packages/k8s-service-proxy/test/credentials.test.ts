import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { type KubeconfigUser, waitFor, writeKubeconfig } from '@resourceful/test-support';
import {
  type ControlPlaneDouble,
  makeCertificates,
  startControlPlane,
  type TestCertificates,
} from '@resourceful/test-support/k8s';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  type ClusterCredentials,
  createClusterCredentials,
  fileTokenSource,
  findClusterCredentials,
  getApiVersions,
  loadClusterCredentials,
  loadInCluster,
  loadKubeconfig,
} from '../src/index.js';

const SECRET = 'sekret-token-value-123';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'k8s-creds-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('createClusterCredentials', () => {
  it('never shows the token in JSON, inspect or the Authorization-free summary', async () => {
    const credentials = createClusterCredentials({
      server: 'https://10.0.0.1:6443',
      token: SECRET,
    });
    expect((await credentials.requestAuth()).authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.stringify(credentials)).not.toContain(SECRET);
    expect(inspect(credentials, { depth: 10, showHidden: true })).not.toContain(SECRET);
    expect(JSON.parse(JSON.stringify(credentials))).toMatchObject({ auth: 'bearer-token' });
    credentials.close();
  });

  it('trims whitespace around a token', async () => {
    const credentials = createClusterCredentials({ server: 'https://h', token: `  ${SECRET}\n` });
    expect((await credentials.requestAuth()).authorization).toBe(`Bearer ${SECRET}`);
    credentials.close();
  });

  it('refuses a bad server URL, unknown options and credentials in the URL, without echoing secrets', () => {
    expect(() => createClusterCredentials({ server: 'not a url', token: SECRET })).toThrow(
      /"server" must be an absolute https: URL/,
    );
    expect(() => createClusterCredentials({ server: 'ftp://h', token: SECRET })).toThrow(/https:/);
    expect(() => createClusterCredentials({ server: `https://u:${SECRET}@h` })).toThrow(
      /must not carry credentials/,
    );
    let message = '';
    try {
      createClusterCredentials({ server: `https://u:${SECRET}@h` });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).not.toContain(SECRET);
    expect(() =>
      createClusterCredentials({ server: 'https://h', tokn: SECRET } as unknown as {
        server: string;
      }),
    ).toThrow(/unknown option "tokn"/);
  });

  it('warns when server verification is skipped, and refuses it together with a CA', () => {
    const onWarning = vi.fn();
    const credentials = createClusterCredentials({
      server: 'https://h',
      insecureSkipTlsVerify: true,
      onWarning,
    });
    expect(onWarning).toHaveBeenCalledOnce();
    expect(onWarning.mock.calls[0]?.[0]).toMatch(/man-in-the-middle/);
    credentials.close();
    expect(() =>
      createClusterCredentials({
        server: 'https://h',
        insecureSkipTlsVerify: true,
        ca: 'x',
        onWarning,
      }),
    ).toThrow(/exclude each other/);
  });

  it('builds Basic authentication from username and password', async () => {
    const credentials = createClusterCredentials({
      server: 'https://h',
      username: 'u',
      password: 'p',
    });
    expect((await credentials.requestAuth()).authorization).toBe(
      `Basic ${Buffer.from('u:p').toString('base64')}`,
    );
    credentials.close();
  });
});

describe('fileTokenSource', () => {
  it('re-reads a rotated token file by path on its timer', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'first\n');
    const source = fileTokenSource(file, { refreshMs: 20 });
    expect(source.current()).toBe('first');
    writeFileSync(file, ' second ');
    await waitFor(() => source.current() === 'second', { what: 'the rotated token' });
    source.close();
  });

  it('keeps the last good token and warns (without the token) when a re-read fails', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, SECRET);
    const warnings: string[] = [];
    const source = fileTokenSource(file, { refreshMs: 20, onWarning: (m) => warnings.push(m) });
    rmSync(file);
    await waitFor(() => warnings.length > 0, { what: 'a warning' });
    expect(source.current()).toBe(SECRET);
    expect(warnings.join('\n')).not.toContain(SECRET);
    expect(warnings[0]).toContain('ENOENT');
    source.close();
  });

  it('throws naming the path when the file is missing or empty at start', () => {
    expect(() => fileTokenSource(join(dir, 'missing'))).toThrow(/cannot read token file .*missing/);
    writeFileSync(join(dir, 'blank'), ' \n');
    expect(() => fileTokenSource(join(dir, 'blank'))).toThrow(/token file .*blank is empty/);
  });

  it('keeps the last good token when the file is emptied, as client-go does', async () => {
    const file = join(dir, 'token');
    writeFileSync(file, 'first');
    const warnings: string[] = [];
    const source = fileTokenSource(file, { refreshMs: 20, onWarning: (m) => warnings.push(m) });
    writeFileSync(file, '');
    await waitFor(() => warnings.length > 0, { what: 'a warning' });
    expect(source.current()).toBe('first');
    expect(warnings[0]).toMatch(/is empty; keeping the previous token/);
    source.close();
  });

  it('sends the fallback until the file can first be read, then only the file', async () => {
    const file = join(dir, 'late');
    const warnings: string[] = [];
    const source = fileTokenSource(file, {
      refreshMs: 20,
      fallback: SECRET,
      onWarning: (m) => warnings.push(m),
    });
    expect(source.current()).toBe(SECRET);
    expect(warnings).toEqual([
      `cannot read token file ${file} (ENOENT); sending the inline token until it can be read`,
    ]);
    writeFileSync(file, 'from-file\n');
    await waitFor(() => source.current() === 'from-file', { what: 'the file token' });
    rmSync(file);
    await waitFor(() => warnings.length > 2, { what: 'a failed re-read' });
    expect(source.current()).toBe('from-file');
    source.close();
  });
});

describe('a token and a token file together (client-go: the file wins)', () => {
  let certs: TestCertificates;
  let plane: ControlPlaneDouble;

  beforeEach(async () => {
    certs = makeCertificates();
    plane = await startControlPlane(certs, { tokens: ['from-file', 'rotated', 'inline'] });
  });
  afterEach(async () => {
    await plane.close();
    certs.cleanup();
  });

  const sentAuthorization = () => plane.requests.map((request) => request.headers.authorization);

  const kubeconfigFor = (user: KubeconfigUser) =>
    writeKubeconfig(dir, { server: plane.url, caFile: certs.caFile, user });

  /** Waits until the next request would carry `token` (the file was re-read), then sends one. */
  async function sendOnceRead(credentials: ClusterCredentials, token: string) {
    await waitFor(
      async () => (await credentials.requestAuth()).authorization === `Bearer ${token}`,
      { what: `the file token ${token}` },
    );
    await getApiVersions(credentials);
  }

  it("sends a kubeconfig user's file token, not its inline one, and follows the file", async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'from-file\n');
    const kubeconfig = kubeconfigFor({ token: 'inline', tokenFile });
    const credentials = findClusterCredentials({ kubeconfig, tokenRefreshMs: 20 });
    if (credentials === undefined) throw new Error('no credentials');
    await getApiVersions(credentials);
    writeFileSync(tokenFile, 'rotated');
    await sendOnceRead(credentials, 'rotated');
    expect(sentAuthorization()).toEqual(['Bearer from-file', 'Bearer rotated']);
    credentials.close();
  });

  it('sends the inline token while the file cannot be read, and the file once it can', async () => {
    const tokenFile = join(dir, 'not-yet');
    const kubeconfig = kubeconfigFor({ token: 'inline', tokenFile });
    const warnings: string[] = [];
    const credentials = findClusterCredentials({
      kubeconfig,
      tokenRefreshMs: 20,
      onWarning: (message) => warnings.push(message),
    });
    if (credentials === undefined) throw new Error('no credentials');
    await getApiVersions(credentials);
    writeFileSync(tokenFile, 'from-file');
    await sendOnceRead(credentials, 'from-file');
    expect(sentAuthorization()).toEqual(['Bearer inline', 'Bearer from-file']);
    expect(warnings[0]).toMatch(/not-yet \(ENOENT\); sending the inline token/);
    credentials.close();
  });

  it("keeps a kubeconfig user's token file over an explicit token, as kubectl --token does", async () => {
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'from-file');
    const kubeconfig = kubeconfigFor({ tokenFile });
    const credentials = findClusterCredentials({ kubeconfig, token: 'inline' });
    if (credentials === undefined) throw new Error('no credentials');
    await getApiVersions(credentials);
    rmSync(tokenFile);
    const unreadable = findClusterCredentials({ kubeconfig, token: 'inline', onWarning: () => {} });
    if (unreadable === undefined) throw new Error('no credentials');
    await getApiVersions(unreadable);
    expect(sentAuthorization()).toEqual(['Bearer from-file', 'Bearer inline']);
    credentials.close();
    unreadable.close();
  });

  it('lets an explicit token replace the in-cluster service-account file, as kubectl does', async () => {
    const accountDir = join(dir, 'serviceaccount');
    mkdirSync(accountDir);
    writeFileSync(join(accountDir, 'token'), 'from-file');
    writeFileSync(join(accountDir, 'ca.crt'), certs.ca);
    const credentials = findClusterCredentials({
      kubeconfig: false,
      inCluster: { dir: accountDir },
      env: { KUBERNETES_SERVICE_HOST: '127.0.0.1', KUBERNETES_SERVICE_PORT: String(plane.port) },
      token: 'inline',
    });
    if (credentials === undefined) throw new Error('no credentials');
    await getApiVersions(credentials);
    expect(sentAuthorization()).toEqual(['Bearer inline']);
    credentials.close();
  });
});

describe('loadKubeconfig', () => {
  it('reads the current context: server, CA file, token and namespace', () => {
    writeFileSync(join(dir, 'ca.crt'), 'CA-PEM');
    const file = writeKubeconfig(dir, {
      server: 'https://10.0.0.1:6443',
      caFile: 'ca.crt',
      user: { token: SECRET },
    });
    const config = loadKubeconfig({ path: file });
    expect(config).toEqual({
      server: 'https://10.0.0.1:6443',
      source: 'kubeconfig',
      ca: 'CA-PEM',
      caFile: join(dir, 'ca.crt'),
      namespace: 'default',
      token: SECRET,
      kubeconfigUser: 'tester',
    });
  });

  it('follows KUBECONFIG lists, first file wins, and picks a named context', () => {
    const first = join(dir, 'a.yaml');
    const second = join(dir, 'b.yaml');
    writeFileSync(
      first,
      'current-context: one\ncontexts:\n- name: one\n  context: {cluster: c1, user: u1}\n',
    );
    writeFileSync(
      second,
      [
        'current-context: two',
        'clusters:',
        '- name: c1',
        '  cluster: {server: "https://one:6443", certificate-authority-data: Q0EtREFUQQ==}',
        '- name: c2',
        '  cluster: {server: "https://two:6443", insecure-skip-tls-verify: true}',
        'contexts:',
        '- name: two',
        '  context: {cluster: c2, user: u2, namespace: ops}',
        'users:',
        '- name: u1',
        '  user: {tokenFile: tok}',
        '- name: u2',
        '  user: {username: admin, password: pw}',
        '',
      ].join('\n'),
    );
    const env = { KUBECONFIG: `${first}:${second}` };
    expect(loadKubeconfig({ env })).toEqual({
      server: 'https://one:6443',
      source: 'kubeconfig',
      ca: 'CA-DATA',
      tokenFile: join(dir, 'tok'),
      kubeconfigUser: 'u1',
    });
    expect(loadKubeconfig({ env, context: 'two' })).toEqual({
      server: 'https://two:6443',
      source: 'kubeconfig',
      insecureSkipTlsVerify: true,
      namespace: 'ops',
      username: 'admin',
      password: 'pw',
      kubeconfigUser: 'u2',
    });
  });

  it('returns undefined when no kubeconfig exists, and throws for a missing explicit path', () => {
    expect(loadKubeconfig({ env: {}, homeDir: dir })).toBeUndefined();
    expect(() => loadKubeconfig({ path: join(dir, 'nope') })).toThrow(/does not exist/);
  });

  it('reports broken YAML by line without quoting the token', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, `users:\n- name: u\n  user:\n    token: ${SECRET}\n  : : [\n`);
    let message = '';
    try {
      loadKubeconfig({ path: file });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/not valid YAML/);
    expect(message).not.toContain(SECRET);
  });

  it('refuses a v1 exec stanza without interactiveMode and unknown contexts with clear messages', () => {
    const file = join(dir, 'exec.yaml');
    writeFileSync(
      file,
      [
        'current-context: x',
        'clusters: [{name: c, cluster: {server: "https://h"}}]',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'users: [{name: u, user: {exec: {command: aws, apiVersion: client.authentication.k8s.io/v1}}}]',
        '',
      ].join('\n'),
    );
    expect(() => loadKubeconfig({ path: file })).toThrow(/interactiveMode must be set/);
    expect(() => loadKubeconfig({ path: file, context: 'nope' })).toThrow(
      /context "nope" is not defined/,
    );
  });
});

describe('kubeconfig PEM fields refused as kubectl refuses them', () => {
  const PEM = Buffer.from('PEM').toString('base64');

  function kubeconfigFile(clusterLines: string[], userLines: string[], extra: string[] = []) {
    const file = join(dir, 'kubeconfig.yaml');
    writeFileSync(join(dir, 'ca.crt'), 'CA-PEM');
    writeFileSync(join(dir, 'client.crt'), 'CERT-PEM');
    writeFileSync(join(dir, 'client.key'), 'KEY-PEM');
    writeFileSync(
      file,
      [
        'current-context: x',
        'contexts: [{name: x, context: {cluster: c, user: u}}]',
        'clusters:',
        '- name: c',
        '  cluster:',
        '    server: https://10.0.0.1:6443',
        ...clusterLines.map((line) => `    ${line}`),
        'users:',
        '- name: u',
        '  user:',
        ...userLines.map((line) => `    ${line}`),
        ...extra,
        '',
      ].join('\n'),
    );
    return file;
  }

  it.each([
    [
      'certificate-authority-data',
      ['certificate-authority-data: "%%%not base64%%%"'],
      ['token: t'],
      'clusters[c].cluster.certificate-authority-data is not valid base64 (illegal base64 data at input byte 0',
    ],
    [
      'client-certificate-data',
      [],
      ['client-certificate-data: QUJD!', `client-key-data: ${PEM}`],
      'users[u].user.client-certificate-data is not valid base64 (illegal base64 data at input byte 4',
    ],
    [
      'client-key-data without padding',
      [],
      [`client-certificate-data: ${PEM}`, 'client-key-data: QQ'],
      'users[u].user.client-key-data is not valid base64 (illegal base64 data at input byte 0',
    ],
  ])(
    'refuses invalid base64 in %s, naming the field and the byte',
    (_what, cluster, user, message) => {
      const file = kubeconfigFile(cluster, user);
      expect(() => loadKubeconfig({ path: file })).toThrow(message);
    },
  );

  it('refuses invalid base64 in an entry the context does not use, as kubectl loads every entry', () => {
    const file = kubeconfigFile(
      [],
      ['token: t'],
      ['- name: unused', '  user: {client-key-data: "not base64!"}'],
    );
    expect(() => loadKubeconfig({ path: file })).toThrow(/users\[unused\]\.user\.client-key-data/);
  });

  it('accepts base64 broken over lines, as Go skips CR and LF', () => {
    const file = kubeconfigFile(
      [`certificate-authority-data: "${PEM.slice(0, 2)}\\r\\n${PEM.slice(2)}"`],
      [],
    );
    expect(loadKubeconfig({ path: file })?.ca).toBe('PEM');
  });

  it.each([
    [
      ['certificate-authority: ca.crt', `certificate-authority-data: ${PEM}`],
      [],
      'certificate-authority-data and certificate-authority are both specified for cluster "c"',
    ],
    [
      [],
      [
        'client-certificate: client.crt',
        `client-certificate-data: ${PEM}`,
        'client-key: client.key',
      ],
      'client-certificate-data and client-certificate are both specified for user "u"',
    ],
    [
      [],
      ['client-certificate: client.crt', 'client-key: client.key', `client-key-data: ${PEM}`],
      'client-key-data and client-key are both specified for user "u"',
    ],
  ])('refuses a file and data for the same PEM (%#): %s', (cluster, user, message) => {
    expect(() => loadKubeconfig({ path: kubeconfigFile(cluster, user) })).toThrow(message);
  });

  it('refuses a client certificate without its key, naming the user', () => {
    for (const user of [['client-certificate: client.crt'], [`client-certificate-data: ${PEM}`]]) {
      const kubeconfig = kubeconfigFile([], user);
      expect(() => findClusterCredentials({ kubeconfig, inCluster: false })).toThrow(
        'client-key-data or client-key must be specified for user "u" to use the client certificate',
      );
      // Loading alone does not refuse it: an explicit key may still complete the user.
      expect(loadKubeconfig({ path: kubeconfig })?.clientCert).toBeDefined();
    }
  });

  it('refuses a client key alone, and ignores it beside another credential as kubectl does', () => {
    expect(() =>
      findClusterCredentials({
        kubeconfig: kubeconfigFile([], ['client-key: client.key']),
        inCluster: false,
      }),
    ).toThrow(
      'client-certificate-data or client-certificate must be specified for user "u" to use its client key, and there is no other credential',
    );
    const credentials = findClusterCredentials({
      kubeconfig: kubeconfigFile([], ['client-key: client.key', 'token: t']),
      inCluster: false,
    });
    expect(credentials?.toJSON()).toMatchObject({ auth: 'bearer-token' });
    credentials?.close();
  });

  it('refuses the same in explicit options', () => {
    expect(() => createClusterCredentials({ server: 'https://h', clientCert: 'CERT' })).toThrow(
      /clientCert needs clientKey/,
    );
    expect(() => createClusterCredentials({ server: 'https://h', clientKey: 'KEY' })).toThrow(
      /clientKey needs clientCert/,
    );
    const credentials = createClusterCredentials({
      server: 'https://h',
      clientKey: 'K',
      token: 't',
    });
    expect(credentials.toJSON()).toMatchObject({ auth: 'bearer-token' });
    credentials.close();
  });
});

describe('in-cluster credentials from a service-account directory', () => {
  let certs: TestCertificates;
  let plane: ControlPlaneDouble;
  let accountDir: string;

  beforeEach(async () => {
    certs = makeCertificates();
    plane = await startControlPlane(certs, { tokens: ['token-one'] });
    accountDir = join(dir, 'serviceaccount');
    mkdirSync(accountDir);
    writeFileSync(join(accountDir, 'ca.crt'), certs.ca);
    writeFileSync(join(accountDir, 'namespace'), 'payments\n');
  });
  afterEach(async () => {
    await plane.close();
    certs.cleanup();
  });

  const env = () => ({
    KUBERNETES_SERVICE_HOST: '127.0.0.1',
    KUBERNETES_SERVICE_PORT: String(plane.port),
  });

  it('is undefined outside a cluster', () => {
    expect(loadInCluster({ dir: accountDir, env: {} })).toBeUndefined();
    expect(loadInCluster({ dir: accountDir, env: env() })).toBeUndefined(); // no token file yet
  });

  it('brackets an IPv6 service host', () => {
    writeFileSync(join(accountDir, 'token'), 't');
    expect(
      loadInCluster({
        dir: accountDir,
        env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' },
      })?.server,
    ).toBe('https://[fd00::1]:443');
  });

  it('reaches the control plane and follows a token the kubelet rotates through a symlink', async () => {
    // The kubelet layout: token -> ..data/token, ..data -> a timestamped folder, swapped atomically.
    const v1 = join(accountDir, '..2024_01');
    mkdirSync(v1);
    writeFileSync(join(v1, 'token'), 'token-one\n');
    symlinkSync('..2024_01', join(accountDir, '..data'));
    symlinkSync(join('..data', 'token'), join(accountDir, 'token'));

    const credentials = findClusterCredentials({
      kubeconfig: false,
      inCluster: { dir: accountDir },
      env: env(),
      tokenRefreshMs: 25,
    });
    expect(credentials?.source).toBe('in-cluster');
    expect(credentials?.namespace).toBe('payments');
    if (credentials === undefined) return;
    await expect(getApiVersions(credentials)).resolves.toMatchObject({ kind: 'APIVersions' });

    const v2 = join(accountDir, '..2024_02');
    mkdirSync(v2);
    writeFileSync(join(v2, 'token'), 'token-two');
    symlinkSync('..2024_02', join(accountDir, '..data_tmp'));
    renameSync(join(accountDir, '..data_tmp'), join(accountDir, '..data'));
    plane.tokens.clear();
    plane.tokens.add('token-two');

    await waitFor(
      async () => (await credentials.requestAuth()).authorization === 'Bearer token-two',
      {
        what: 'rotation',
      },
    );
    await expect(getApiVersions(credentials)).resolves.toMatchObject({ kind: 'APIVersions' });
    expect(plane.requests.map((request) => request.headers.authorization)).toEqual([
      'Bearer token-one',
      'Bearer token-two',
    ]);
    credentials.close();
  });
});

describe('findClusterCredentials order', () => {
  it('prefers explicit server and token over kubeconfig and in-cluster', () => {
    const kubeconfig = writeKubeconfig(dir, { server: 'https://from-file', user: { token: 'f' } });
    const credentials = findClusterCredentials({
      server: 'https://explicit',
      token: 'e',
      env: { KUBECONFIG: kubeconfig },
    });
    expect(credentials?.source).toBe('options');
    expect(credentials?.server.href).toBe('https://explicit/');
    credentials?.close();
  });

  it('uses the kubeconfig next, with explicit values overriding it as kubectl flags do', async () => {
    const kubeconfig = writeKubeconfig(dir, { server: 'https://from-file', user: { token: 'f' } });
    const credentials = findClusterCredentials({ kubeconfig, token: 'override' });
    expect(credentials?.source).toBe('kubeconfig');
    expect(credentials?.server.href).toBe('https://from-file/');
    expect((await credentials?.requestAuth())?.authorization).toBe('Bearer override');
    credentials?.close();
  });

  it('returns undefined when nothing is configured, and loadClusterCredentials says how to fix it', () => {
    const options = { env: {}, homeDir: dir, inCluster: { dir: join(dir, 'none') } };
    expect(findClusterCredentials(options)).toBeUndefined();
    expect(() => loadClusterCredentials(options)).toThrow(/no cluster credentials found/);
  });
});

describe('findClusterCredentials option names', () => {
  it('refuses an unknown option with a hint instead of ignoring it', () => {
    expect(() => findClusterCredentials({ kubeconfg: 'x' } as never)).toThrow(
      /findClusterCredentials: unknown option "kubeconfg". Did you mean "kubeconfig"\?/,
    );
  });
});
