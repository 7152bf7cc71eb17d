/**
 * Explicit values merged into the kubeconfig user as kubectl merges its flags: field by field
 * (`--client-key` completes a user that has only `client-certificate`), then checked as one user
 * (a certificate still needs a key from somewhere; a token beside a username is refused; a user
 * that identifies nobody stops the start, as kubectl without a terminal does). What the control
 * plane double receives over real TLS, with client certificates verified against its CA, is
 * what is checked. `test/kubectl-credentials-differential.test.ts` in k8s-local-proxy runs the
 * same cases through kubectl.
 */

import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExecStanza, writeExecKubeconfig } from '@resourceful/test-support';
import { useControlPlane, writeFakePlugin } from '@resourceful/test-support/k8s';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClusterCredentials,
  createClusterCredentials,
  type FindCredentialsOptions,
  findClusterCredentials,
  getApiVersions,
} from '../src/index.js';

const k8s = useControlPlane({ tokens: ['test-token'], basic: ['alice:pw'] });
let dir: string;
let counter = 0;
const opened: ClusterCredentials[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kubeconfig-merge-'));
});
afterEach(() => {
  for (const credentials of opened.splice(0)) credentials.close();
  rmSync(dir, { recursive: true, force: true });
});

const base64 = (text: string) => Buffer.from(text).toString('base64');

function kubeconfig(userLines: string[], options: { exec?: ExecStanza; server?: string } = {}) {
  counter += 1;
  return writeExecKubeconfig(dir, {
    server: options.server ?? k8s.plane.url,
    caFile: options.server?.startsWith('http:') ? undefined : k8s.certs.caFile,
    exec: options.exec,
    userLines: userLines.map((line) => `    ${line}`),
    name: `k${counter}.yaml`,
  });
}

function find(file: string, options: Omit<FindCredentialsOptions, 'kubeconfig'> = {}) {
  const credentials = findClusterCredentials({ kubeconfig: file, inCluster: false, ...options });
  if (credentials === undefined) throw new Error('no credentials');
  opened.push(credentials);
  return credentials;
}

/** One discovery call; what the double saw of it. */
async function sentWith(credentials: ClusterCredentials) {
  const before = k8s.plane.requests.length;
  await getApiVersions(credentials).catch(() => undefined);
  return k8s.plane.requests.slice(before).map((request) => ({
    auth: request.auth,
    authorization: request.headers.authorization,
    clientCertificate: request.clientCertificate,
  }));
}

const certificateOnly = [{ auth: 'client-certificate', clientCertificate: 'test-user' }];

describe('a client certificate and key from the kubeconfig and explicit values together', () => {
  it("completes a user's client-certificate with an explicit clientKeyFile (kubectl --client-key)", async () => {
    const file = kubeconfig([`client-certificate: ${k8s.certs.clientCertFile}`]);
    expect(await sentWith(find(file, { clientKeyFile: k8s.certs.clientKeyFile }))).toEqual(
      certificateOnly,
    );
  });

  it("completes a user's client-certificate-data with an explicit key, as file or PEM", async () => {
    const file = kubeconfig([`client-certificate-data: ${base64(k8s.certs.clientCert)}`]);
    expect(await sentWith(find(file, { clientKeyFile: k8s.certs.clientKeyFile }))).toEqual(
      certificateOnly,
    );
    expect(await sentWith(find(file, { clientKey: k8s.certs.clientKey }))).toEqual(certificateOnly);
  });

  it("completes a user's client-key with an explicit clientCertFile (kubectl --client-certificate)", async () => {
    for (const line of [
      `client-key: ${k8s.certs.clientKeyFile}`,
      `client-key-data: ${base64(k8s.certs.clientKey)}`,
    ]) {
      const file = kubeconfig([line]);
      expect(await sentWith(find(file, { clientCertFile: k8s.certs.clientCertFile }))).toEqual(
        certificateOnly,
      );
    }
  });

  it('still refuses a certificate with no key anywhere, naming the user and the missing key', () => {
    const file = kubeconfig([`client-certificate: ${k8s.certs.clientCertFile}`]);
    expect(() => find(file)).toThrow(
      'kubeconfig: client-key-data or client-key must be specified for user "tester" to use the client certificate (kubectl refuses it too); give it in the kubeconfig or with --client-key (clientKeyFile)',
    );
    const tokenUser = kubeconfig(['token: test-token']);
    expect(() => find(tokenUser, { clientCertFile: k8s.certs.clientCertFile })).toThrow(
      /client-key-data or client-key must be specified for user "tester"/,
    );
  });

  it('refuses at start a key that does not belong to the certificate, or a PEM that is not one', () => {
    const file = kubeconfig([`client-certificate: ${k8s.certs.clientCertFile}`]);
    expect(() => find(file, { clientKeyFile: join(k8s.certs.dir, 'other-ca.key') })).toThrow(
      'the client certificate and key cannot be used together (key values mismatch, ERR_OSSL_X509_KEY_VALUES_MISMATCH)',
    );
    expect(() =>
      createClusterCredentials({
        server: k8s.plane.url,
        clientCert: 'not a PEM',
        clientKey: k8s.certs.clientKey,
      }),
    ).toThrow(/the client certificate and key cannot be used together \(no start line/);
  });

  it("refuses an explicit key file beside the user's client-key-data, as kubectl does", () => {
    const file = kubeconfig([
      `client-certificate: ${k8s.certs.clientCertFile}`,
      `client-key-data: ${base64(k8s.certs.clientKey)}`,
    ]);
    expect(() => find(file, { clientKeyFile: k8s.certs.clientKeyFile })).toThrow(
      'kubeconfig: client-key-data and client-key are both specified for user "tester"',
    );
    const data = kubeconfig([
      `client-certificate-data: ${base64(k8s.certs.clientCert)}`,
      `client-key: ${k8s.certs.clientKeyFile}`,
    ]);
    expect(() => find(data, { clientCertFile: k8s.certs.clientCertFile })).toThrow(
      'kubeconfig: client-certificate-data and client-certificate are both specified for user "tester"',
    );
  });

  it("replaces the user's certificate or CA file with an explicit one, never reading the user's", async () => {
    const missing = join(dir, 'missing.pem');
    const file = kubeconfig([
      `client-certificate: ${missing}`,
      `client-key: ${k8s.certs.clientKeyFile}`,
    ]);
    // As kubectl, which reads the files only once its flags are merged in.
    expect(await sentWith(find(file, { clientCertFile: k8s.certs.clientCertFile }))).toEqual(
      certificateOnly,
    );
    expect(() => find(file)).toThrow(`cannot read client-certificate ${missing} (ENOENT)`);
    expect(() => find(file, { clientCertFile: join(dir, 'nope.crt') })).toThrow(
      /cannot read client-certificate .*nope\.crt \(ENOENT\)/,
    );
    const caFile = join(dir, 'ca-missing.yaml');
    writeFileSync(
      caFile,
      readFileSync(kubeconfig(['token: test-token']), 'utf8').replace(k8s.certs.caFile, missing),
    );
    expect(() => find(caFile)).toThrow(`cannot read certificate-authority ${missing} (ENOENT)`);
    expect(await sentWith(find(caFile, { caFile: k8s.certs.caFile }))).toEqual([
      { auth: 'bearer', authorization: 'Bearer test-token', clientCertificate: undefined },
    ]);
  });
});

describe('which credential is sent when the merged user has several', () => {
  it('sends a token and presents the certificate of a user that has both', async () => {
    const file = kubeconfig([
      `client-certificate: ${k8s.certs.clientCertFile}`,
      `client-key: ${k8s.certs.clientKeyFile}`,
    ]);
    expect(await sentWith(find(file, { token: 'test-token' }))).toEqual([
      { auth: 'bearer', authorization: 'Bearer test-token', clientCertificate: 'test-user' },
    ]);
  });

  it('presents an explicit certificate instead of running the exec plugin, as client-go', async () => {
    const plugin = writeFakePlugin(dir, 'unused-plugin');
    const file = kubeconfig([], { exec: { command: plugin.command } });
    const credentials = find(file, {
      clientCertFile: k8s.certs.clientCertFile,
      clientKeyFile: k8s.certs.clientKeyFile,
    });
    expect(await sentWith(credentials)).toEqual(certificateOnly);
    expect(plugin.runs()).toBe(0);
    expect(credentials.toJSON()).toMatchObject({ auth: 'client-certificate' });
  });

  it('runs the exec plugin beside an explicit password without a username, as client-go', async () => {
    const plugin = writeFakePlugin(dir, 'password-plugin');
    k8s.plane.tokens.add('merge-1');
    const file = kubeconfig([], { exec: { command: plugin.command, args: ['--prefix=merge'] } });
    expect(await sentWith(find(file, { password: 'pw' }))).toEqual([
      { auth: 'bearer', authorization: 'Bearer merge-1', clientCertificate: undefined },
    ]);
    expect(plugin.runs()).toBe(1);
  });

  it("refuses an explicit token beside the user's username/password, as kubectl does", () => {
    const file = kubeconfig(['username: alice', 'password: pw']);
    expect(() => find(file, { token: 'test-token' })).toThrow(
      'kubeconfig: more than one authentication method found for user "tester"; found [token basicAuth], only one is allowed',
    );
    const tokenUser = kubeconfig(['token: test-token']);
    expect(() => find(tokenUser, { username: 'alice', password: 'pw' })).toThrow(
      /more than one authentication method found for user "tester"/,
    );
  });

  it('merges an explicit username or password into the user field by field', async () => {
    const file = kubeconfig(['username: bob', 'password: pw']);
    expect(await sentWith(find(file, { username: 'alice' }))).toEqual([
      { auth: 'basic', authorization: `Basic ${base64('alice:pw')}`, clientCertificate: undefined },
    ]);
    const other = kubeconfig(['username: alice', 'password: wrong']);
    expect(await sentWith(find(other, { password: 'pw' }))).toEqual([
      { auth: 'basic', authorization: `Basic ${base64('alice:pw')}`, clientCertificate: undefined },
    ]);
  });

  it('treats an empty explicit value as none, as an empty kubectl flag', async () => {
    const file = kubeconfig(['username: alice', 'password: pw']);
    expect(await sentWith(find(file, { token: '' }))).toEqual([
      { auth: 'basic', authorization: `Basic ${base64('alice:pw')}`, clientCertificate: undefined },
    ]);
  });
});

describe('impersonation', () => {
  it("merges explicit values into the user's as, as-groups and as-uid field by field", () => {
    const file = kubeconfig(['token: test-token', 'as: bob', 'as-groups: [ops]', 'as-uid: "7"']);
    expect(find(file, { impersonate: { user: 'jane' } }).impersonationHeaders).toEqual({
      'impersonate-user': 'jane',
      'impersonate-group': ['ops'],
      'impersonate-uid': '7',
    });
    expect(find(file, { impersonate: { groups: ['dev'] } }).impersonationHeaders).toEqual({
      'impersonate-user': 'bob',
      'impersonate-group': ['dev'],
      'impersonate-uid': '7',
    });
  });
});

describe('an explicit CA and the cluster', () => {
  it('turns verification back on for a cluster the kubeconfig marks insecure, as kubectl', async () => {
    const file = writeExecKubeconfig(dir, {
      server: k8s.plane.url,
      clusterLines: ['    insecure-skip-tls-verify: true'],
      userLines: ['    token: test-token'],
      name: 'insecure.yaml',
    });
    const warnings: string[] = [];
    const credentials = find(file, {
      caFile: k8s.certs.caFile,
      onWarning: (m) => warnings.push(m),
    });
    expect(credentials.insecureSkipTlsVerify).toBe(false);
    expect(warnings).toEqual([]);
    expect(await sentWith(credentials)).toEqual([
      { auth: 'bearer', authorization: 'Bearer test-token', clientCertificate: undefined },
    ]);
    expect(() => find(file, { caFile: k8s.certs.caFile, insecureSkipTlsVerify: true })).toThrow(
      /insecureSkipTlsVerify and a certificate authority exclude each other/,
    );
  });
});

describe('an explicit server with a credential', () => {
  it('is used alone by default, and merged into the kubeconfig with explicitServerAlone: false', async () => {
    const file = writeExecKubeconfig(dir, {
      server: 'https://127.0.0.1:1',
      caFile: k8s.certs.caFile,
      userLines: [
        `    client-certificate: ${k8s.certs.clientCertFile}`,
        `    client-key: ${k8s.certs.clientKeyFile}`,
      ],
      name: 'elsewhere.yaml',
    });
    const explicit = { server: k8s.plane.url, token: 'test-token', env: { KUBECONFIG: file } };
    const alone = findClusterCredentials({ ...explicit, ca: k8s.certs.ca });
    opened.push(alone as ClusterCredentials);
    expect(alone?.source).toBe('options');
    expect(await sentWith(alone as ClusterCredentials)).toEqual([
      { auth: 'bearer', authorization: 'Bearer test-token', clientCertificate: undefined },
    ]);
    // As kubectl --server --token: the kubeconfig's CA and the user's certificate still apply.
    const merged = findClusterCredentials({ ...explicit, explicitServerAlone: false });
    opened.push(merged as ClusterCredentials);
    expect(merged?.source).toBe('kubeconfig');
    expect(await sentWith(merged as ClusterCredentials)).toEqual([
      { auth: 'bearer', authorization: 'Bearer test-token', clientCertificate: 'test-user' },
    ]);
    const none = findClusterCredentials({
      ...explicit,
      env: {},
      homeDir: dir,
      ca: k8s.certs.ca,
      explicitServerAlone: false,
    });
    opened.push(none as ClusterCredentials);
    expect(none?.source).toBe('options');
  });
});

describe('a user with no credential (kubectl would ask on its terminal)', () => {
  const noTerminal = /a proxy has no terminal to ask on/;

  it.each([
    ['an empty user', []],
    ['a user with only impersonation', ['as: jane']],
  ])('refuses %s at start, naming the user', (_what, lines) => {
    const file = kubeconfig(lines);
    expect(() => find(file)).toThrow(
      'kubeconfig: user "tester" has no credential (token, tokenFile, username, client certificate and key, exec plugin or auth-provider); kubectl asks for a username and password on its terminal here, and stops without one ("error: EOF")',
    );
  });

  it('refuses a password without a username, and a key without a certificate', () => {
    expect(() => find(kubeconfig(['password: pw']))).toThrow(
      /user "tester" has a password but no username, and no other credential; kubectl asks/,
    );
    expect(() => find(kubeconfig([]), { clientKeyFile: k8s.certs.clientKeyFile })).toThrow(
      /client-certificate-data or client-certificate must be specified for user "tester" to use its client key, and there is no other credential/,
    );
  });

  it('refuses a context that names no user', () => {
    const file = join(dir, 'no-user.yaml');
    writeExecKubeconfig(dir, {
      server: k8s.plane.url,
      caFile: k8s.certs.caFile,
      name: 'no-user.yaml',
    });
    writeFileSync(file, readFileSync(file, 'utf8').replace('    user: tester\n', ''));
    expect(() => find(file)).toThrow(
      /the kubeconfig context \(it names no user\) has no credential .*; kubectl asks/,
    );
  });

  it('refuses a plain-http kubeconfig server too, as kubectl v1.32 does', () => {
    expect(() => find(kubeconfig([], { server: 'http://127.0.0.1:9' }))).toThrow(noTerminal);
  });

  it('starts once any credential is given explicitly', async () => {
    const file = kubeconfig([]);
    expect(await sentWith(find(file, { token: 'test-token' }))).toEqual([
      { auth: 'bearer', authorization: 'Bearer test-token', clientCertificate: undefined },
    ]);
    expect(
      await sentWith(
        find(file, {
          clientCertFile: k8s.certs.clientCertFile,
          clientKeyFile: k8s.certs.clientKeyFile,
        }),
      ),
    ).toEqual(certificateOnly);
    // A username alone is basic authentication with an empty password, as kubectl sends it.
    expect(await sentWith(find(file, { username: 'alice' }))).toEqual([
      { auth: 'none', authorization: `Basic ${base64('alice:')}`, clientCertificate: undefined },
    ]);
  });

  it('sends nothing, and asks nothing, when an explicit server is plain http', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await getApiVersions(find(kubeconfig([]), { server: url })).catch(() => undefined);
      expect(seen.map((headers) => headers.authorization)).toEqual([undefined]);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('refuses an explicit https server with no credential and no kubeconfig', () => {
    const none = { env: {}, homeDir: dir, inCluster: false as const };
    expect(() => findClusterCredentials({ ...none, server: 'https://10.0.0.1:6443' })).toThrow(
      'no credential for https://10.0.0.1:6443: no token, tokenFile, username or client certificate and key; kubectl asks',
    );
    const cleartext = findClusterCredentials({ ...none, server: 'http://127.0.0.1:9' });
    expect(cleartext?.toJSON()).toMatchObject({ auth: 'none (plain http)' });
    cleartext?.close();
  });

  it('leaves createClusterCredentials, which takes no kubeconfig, free to send nothing', async () => {
    const credentials = createClusterCredentials({ server: k8s.plane.url, ca: k8s.certs.ca });
    opened.push(credentials);
    expect(credentials.toJSON()).toMatchObject({ auth: 'none' });
    expect(await sentWith(credentials)).toEqual([
      { auth: 'none', authorization: undefined, clientCertificate: undefined },
    ]);
  });
});
