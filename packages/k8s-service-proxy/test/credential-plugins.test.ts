/**
 * The credential resolver with the kubeconfigs people have: exec plugins (a real script that
 * counts its runs), OIDC id-tokens, impersonation and plain-http servers, relayed by the
 * middleware under Express 4 and 5 to the TLS control-plane double.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  type ExecStanza,
  expectErrorEnvelope,
  waitFor,
  writeExecKubeconfig,
} from '@resourceful/test-support';
import { useControlPlane, writeFakePlugin } from '@resourceful/test-support/k8s';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseExecCredential } from '../src/exec-credential.js';
import {
  type ClusterCredentials,
  createClusterCredentials,
  findClusterCredentials,
  getApiVersions,
  serviceProxy,
} from '../src/index.js';

const k8s = useControlPlane({ tokens: [] });
let dir: string;
let counter = 0;
const opened: ClusterCredentials[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'exec-plugin-'));
});
afterEach(() => {
  for (const credentials of opened.splice(0)) credentials.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh plugin and the credentials of a kubeconfig that runs it. */
function withPlugin(
  args: string[] = [],
  stanza: Partial<ExecStanza> = {},
  options: { execTimeoutMs?: number } = {},
) {
  counter += 1;
  const prefix = `tok${counter}`;
  const plugin = writeFakePlugin(dir, `plugin-${counter}`);
  const kubeconfig = writeExecKubeconfig(dir, {
    server: k8s.plane.url,
    caFile: k8s.certs.caFile,
    exec: {
      command: plugin.command,
      args: [`--prefix=${prefix}`, ...args],
      env: [{ name: 'FAKE_PLUGIN_ENV', value: 'from-stanza' }],
      ...stanza,
    },
    name: `kubeconfig-${counter}.yaml`,
  });
  const credentials = findClusterCredentials({ kubeconfig, inCluster: false, ...options });
  if (credentials === undefined) throw new Error('no credentials');
  opened.push(credentials);
  return { plugin, credentials, prefix, kubeconfig };
}

function upstreamSince(before: number) {
  return k8s.plane.requests.slice(before);
}

describeEachExpress('exec credential plugins through serviceProxy', (express) => {
  function app(credentials: ClusterCredentials) {
    const application = express();
    application.use('/ledger', serviceProxy({ credentials, service: 'ledger' }));
    application.use(errorHandler());
    return application;
  }

  it('runs the plugin on the first request, not at start, with args, env and KUBERNETES_EXEC_INFO', async () => {
    const { plugin, credentials, prefix } = withPlugin(['--ttl=3600']);
    k8s.plane.tokens.add(`${prefix}-1`);
    expect(plugin.runs()).toBe(0);
    const before = k8s.plane.requests.length;
    const res = await request(app(credentials)).get('/ledger/items');
    expect(res.status).toBe(200);
    expect(plugin.runs()).toBe(1);
    expect(upstreamSince(before).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${prefix}-1`,
    ]);
    const seen = plugin.lastRun();
    expect(seen.execInfo).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1beta1',
      kind: 'ExecCredential',
      spec: { interactive: false },
    });
    expect(seen.args).toEqual([`--prefix=${prefix}`, '--ttl=3600']);
    expect(seen.env).toEqual({ FAKE_PLUGIN_ENV: 'from-stanza', HOME: process.env.HOME });
  });

  it('keeps the credential until it expires, then runs the plugin again', async () => {
    const { plugin, credentials, prefix } = withPlugin(['--ttl=1']);
    k8s.plane.tokens.add(`${prefix}-1`);
    k8s.plane.tokens.add(`${prefix}-2`);
    const relay = app(credentials);
    await request(relay).get('/ledger/a').expect(200);
    await request(relay).get('/ledger/b').expect(200);
    expect(plugin.runs()).toBe(1);
    await waitFor(
      async () => {
        await request(relay).get('/ledger/c').expect(200);
        return plugin.runs() === 2;
      },
      { what: 'a second plugin run after expirationTimestamp', intervalMs: 200 },
    );
    const last = k8s.plane.requests.at(-1);
    expect(last?.headers.authorization).toBe(`Bearer ${prefix}-2`);
  });

  it('shares one plugin run between concurrent requests', async () => {
    const { plugin, credentials, prefix } = withPlugin(['--delay-ms=300']);
    k8s.plane.tokens.add(`${prefix}-1`);
    const relay = app(credentials);
    const answers = await Promise.all(
      Array.from({ length: 6 }, (_, i) => request(relay).get(`/ledger/c${i}`)),
    );
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(plugin.runs()).toBe(1);
  });

  it('passes a 401 to the client, runs the plugin at once, and sends the new token next', async () => {
    const { plugin, credentials, prefix } = withPlugin();
    k8s.plane.tokens.add(`${prefix}-2`);
    const relay = app(credentials);
    const refused = await request(relay).get('/ledger/first');
    expect(refused.status).toBe(401);
    await waitFor(() => plugin.runs() === 2, { what: 'the plugin re-run after a 401' });
    const before = k8s.plane.requests.length;
    await request(relay).get('/ledger/second').expect(200);
    expect(upstreamSince(before).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${prefix}-2`,
    ]);
    expect(plugin.runs()).toBe(2);
  });

  it('answers 500 naming the exit code when the plugin fails, sends nothing, and does not cache the failure', async () => {
    const { plugin, credentials } = withPlugin(['--exit=3']);
    const relay = app(credentials);
    const before = k8s.plane.requests.length;
    const first = await request(relay).get('/ledger/x');
    expectErrorEnvelope(first, 500, { code: 'INTERNAL_SERVER_ERROR' });
    expect(first.body.error.message).toMatch(/exited with code 3/);
    expect(first.body.error.innererror).toEqual({ code: 'CREDENTIAL_PLUGIN_FAILED' });
    expect(first.text).not.toContain('failing on purpose');
    await request(relay).get('/ledger/y').expect(500);
    expect(plugin.runs()).toBe(2);
    expect(upstreamSince(before)).toEqual([]);
  });

  it('answers 500 with the installHint when the command is not installed', async () => {
    const { credentials } = withPlugin([], {
      command: 'resourceful-no-such-plugin',
      installHint: 'Install it with: brew install no-such-plugin',
    });
    const before = k8s.plane.requests.length;
    const res = await request(app(credentials)).get('/ledger/x');
    expectErrorEnvelope(res, 500);
    expect(res.body.error.message).toMatch(/is not installed: Install it with: brew install/);
    expect(res.body.error.innererror).toEqual({ code: 'CREDENTIAL_PLUGIN_MISSING' });
    expect(upstreamSince(before)).toEqual([]);
  });

  it('answers 500 for interactiveMode Always without running the plugin', async () => {
    const { plugin, credentials } = withPlugin([], {
      apiVersion: 'client.authentication.k8s.io/v1',
      interactiveMode: 'Always',
    });
    const res = await request(app(credentials)).get('/ledger/x');
    expectErrorEnvelope(res, 500);
    expect(res.body.error.message).toMatch(/needs a terminal/);
    expect(plugin.runs()).toBe(0);
  });

  it('presents a client certificate a v1 plugin returns, with no Authorization', async () => {
    const { plugin, credentials } = withPlugin(
      [`--cert=${k8s.certs.clientCertFile}`, `--key=${k8s.certs.clientKeyFile}`],
      { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never' },
    );
    const before = k8s.plane.requests.length;
    await request(app(credentials)).get('/ledger/cert').expect(200);
    const [seen] = upstreamSince(before);
    expect(seen?.auth).toBe('client-certificate');
    expect(seen?.headers.authorization).toBeUndefined();
    expect(plugin.runs()).toBe(1);
  });
});

describeEachExpress('a plugin certificate and key that do not belong together', (express) => {
  it('answers 500 naming the mismatch, sends nothing, and never blames the client', async () => {
    const { credentials } = withPlugin(
      [`--cert=${k8s.certs.clientCertFile}`, `--key=${join(k8s.certs.dir, 'other-ca.key')}`],
      { apiVersion: 'client.authentication.k8s.io/v1', interactiveMode: 'Never' },
    );
    const application = express();
    application.use('/ledger', serviceProxy({ credentials, service: 'ledger' }));
    application.use(errorHandler());
    const before = k8s.plane.requests.length;
    const res = await request(application).get('/ledger/cert');
    expectErrorEnvelope(res, 500);
    expect(res.body.error.message).toMatch(
      /returned a client certificate and key that cannot be used \(key values mismatch/,
    );
    expect(res.body.error.innererror).toMatchObject({ code: 'CREDENTIAL_PLUGIN_BAD_OUTPUT' });
    expect(upstreamSince(before)).toEqual([]);
  });
});

describe('plugin processes that misbehave', () => {
  it('answers 500 CREDENTIAL_PLUGIN_TIMEOUT once execTimeoutMs passes, even for a plugin that ignores SIGTERM', async () => {
    const { credentials } = withPlugin(
      ['--ignore-term', '--delay-ms=60000'],
      {},
      {
        execTimeoutMs: 1000,
      },
    );
    const before = k8s.plane.requests.length;
    await expect(getApiVersions(credentials)).rejects.toMatchObject({
      status: 500,
      message: expect.stringMatching(/did not finish within 1000 ms/),
      innererror: { code: 'CREDENTIAL_PLUGIN_TIMEOUT' },
    });
    expect(upstreamSince(before)).toEqual([]);
  });

  it('gives the plugin an empty stdin, as kubectl does, so one that reads it answers at once', async () => {
    const { plugin, credentials, prefix } = withPlugin(['--read-stdin']);
    k8s.plane.tokens.add(`${prefix}-1`);
    await expect(getApiVersions(credentials)).resolves.toMatchObject({ kind: 'APIVersions' });
    expect(plugin.runs()).toBe(1);
  });

  it('uses the credential of a plugin that writes more than 1 MiB to stderr, as kubectl does', async () => {
    const { credentials, prefix } = withPlugin(['--stderr-bytes=1200000']);
    k8s.plane.tokens.add(`${prefix}-1`);
    await expect(getApiVersions(credentials)).resolves.toMatchObject({ kind: 'APIVersions' });
  });

  it('answers 500 CREDENTIAL_PLUGIN_BAD_OUTPUT naming the limit for more than 1 MiB of output', async () => {
    const { credentials } = withPlugin(['--stdout-bytes=1100000']);
    await expect(getApiVersions(credentials)).rejects.toMatchObject({
      status: 500,
      message: expect.stringMatching(/printed more than 1 MiB/),
      innererror: { code: 'CREDENTIAL_PLUGIN_BAD_OUTPUT' },
    });
  });
});

describe('expirationTimestamp, read as client-go reads it (Go time.Parse with RFC 3339)', () => {
  const V1 = 'client.authentication.k8s.io/v1';
  const parse = (expirationTimestamp: unknown) =>
    parseExecCredential(
      JSON.stringify({
        apiVersion: V1,
        kind: 'ExecCredential',
        status: { token: 't', expirationTimestamp },
      }),
      V1,
    ).expiresAt;

  it.each([
    ['2026-11-25T04:00:00Z', Date.UTC(2026, 10, 25, 4)],
    ['2026-11-25T04:00:00.123456789+01:00', Date.UTC(2026, 10, 25, 3, 0, 0, 123)],
    ['2026-11-25T04:00:00,5-00:30', Date.UTC(2026, 10, 25, 4, 30, 0, 500)],
    ['2026-11-25T4:00:00Z', Date.UTC(2026, 10, 25, 4)],
    ['2024-02-29T23:59:59Z', Date.UTC(2024, 1, 29, 23, 59, 59)],
  ])('takes %s', (text, expected) => {
    expect(parse(text)).toBe(expected);
  });

  it.each([
    '2026-11-25',
    '2026-11-25T04:00Z',
    '2026-11-25T04:00:00',
    '2026-11-25 04:00:00Z',
    '2026-11-25t04:00:00z',
    '2026-11-25T04:00:00+0100',
    'Wed, 25 Nov 2026 04:00:00 GMT',
    '2026-02-30T00:00:00Z',
    '2026-11-25T24:00:00Z',
    '2026-11-25T04:00:60Z',
    ' 2026-11-25T04:00:00Z',
    12345,
  ])('refuses %j, as client-go does', (value) => {
    expect(() => parse(value)).toThrow(/expirationTimestamp that is not RFC 3339/);
  });
});

describe('the credential resolver outside HTTP', () => {
  it('is used by getApiVersions too: the plugin runs once for discovery', async () => {
    const { plugin, credentials, prefix } = withPlugin(['--ttl=3600']);
    k8s.plane.tokens.add(`${prefix}-1`);
    await expect(getApiVersions(credentials)).resolves.toMatchObject({ kind: 'APIVersions' });
    await expect(getApiVersions(credentials)).resolves.toMatchObject({ kind: 'APIVersions' });
    expect(plugin.runs()).toBe(1);
  });

  it('lets an explicit token win over the plugin, which then never runs', async () => {
    const { plugin, kubeconfig } = withPlugin();
    const credentials = findClusterCredentials({ kubeconfig, token: 'flag-token' });
    opened.push(credentials as ClusterCredentials);
    expect((await credentials?.requestAuth())?.authorization).toBe('Bearer flag-token');
    expect(plugin.runs()).toBe(0);
  });

  it('gives a provideClusterInfo plugin the cluster and its client.authentication.k8s.io/exec extension as spec.cluster.config', async () => {
    const extensions = [
      '    extensions:',
      '    - name: other.example/settings',
      '      extension: {ignored: true}',
      '    - name: client.authentication.k8s.io/exec',
      '      extension:',
      '        audience: foo',
      '        scopes: [openid, groups]',
    ];
    const execInfoWith = async (clusterLines: string[]) => {
      counter += 1;
      const plugin = writeFakePlugin(dir, `info-${counter}`);
      k8s.plane.tokens.add(`info${counter}-1`);
      const kubeconfig = writeExecKubeconfig(dir, {
        server: k8s.plane.url,
        caFile: k8s.certs.caFile,
        exec: {
          command: plugin.command,
          args: [`--prefix=info${counter}`],
          provideClusterInfo: true,
        },
        clusterLines: ['    tls-server-name: localhost', ...clusterLines],
        name: `info-${counter}.yaml`,
      });
      const credentials = findClusterCredentials({ kubeconfig, inCluster: false });
      opened.push(credentials as ClusterCredentials);
      await getApiVersions(credentials as ClusterCredentials);
      return (plugin.lastRun().execInfo as { spec: { cluster: Record<string, unknown> } }).spec
        .cluster;
    };
    const cluster = {
      server: k8s.plane.url,
      'tls-server-name': 'localhost',
      'certificate-authority-data': Buffer.from(k8s.certs.ca).toString('base64'),
    };
    expect(await execInfoWith(extensions)).toEqual({
      ...cluster,
      config: { audience: 'foo', scopes: ['openid', 'groups'] },
    });
    expect(await execInfoWith([])).toEqual(cluster);
  });

  it('refuses cluster extensions that are not a list of {name, extension}', () => {
    counter += 1;
    const kubeconfig = writeExecKubeconfig(dir, {
      server: k8s.plane.url,
      exec: { command: 'plugin' },
      clusterLines: ['    extensions: {client.authentication.k8s.io/exec: {audience: foo}}'],
      name: `bad-extensions-${counter}.yaml`,
    });
    expect(() => findClusterCredentials({ kubeconfig, inCluster: false })).toThrow(
      /clusters\[double\]\.cluster\.extensions must be a list of \{name, extension\}/,
    );
  });
});

/** A JWT with the given `exp` (seconds); the signature is not checked by clients. */
function jwt(exp: number): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256' })}.${part({ sub: 'jane', exp })}.c2ln`;
}

/** Credentials of a kubeconfig whose user is `auth-provider: oidc` with `idToken`. */
function oidcCredentials(idToken: string) {
  counter += 1;
  const kubeconfig = writeExecKubeconfig(dir, {
    server: k8s.plane.url,
    caFile: k8s.certs.caFile,
    userLines: [
      '    auth-provider:',
      '      name: oidc',
      '      config:',
      `        id-token: ${idToken}`,
      '        client-id: k8s',
    ],
    name: `oidc-${counter}.yaml`,
  });
  const credentials = findClusterCredentials({ kubeconfig, inCluster: false });
  opened.push(credentials as ClusterCredentials);
  return credentials as ClusterCredentials;
}

describeEachExpress('auth-provider oidc through serviceProxy', (express) => {
  it('sends a valid id-token as the bearer token', async () => {
    const token = jwt(Math.floor(Date.now() / 1000) + 3600);
    k8s.plane.tokens.add(token);
    const application = express();
    application.use(
      '/ledger',
      serviceProxy({ credentials: oidcCredentials(token), service: 'ledger' }),
    );
    const before = k8s.plane.requests.length;
    await request(application).get('/ledger/x').expect(200);
    expect(upstreamSince(before)[0]?.headers.authorization).toBe(`Bearer ${token}`);
  });

  it('answers 500 "cannot refresh" for an expired id-token and sends nothing', async () => {
    const application = express();
    const credentials = oidcCredentials(jwt(Math.floor(Date.now() / 1000) - 60));
    application.use('/ledger', serviceProxy({ credentials, service: 'ledger' }));
    application.use(errorHandler());
    const before = k8s.plane.requests.length;
    const res = await request(application).get('/ledger/x');
    expectErrorEnvelope(res, 500);
    expect(res.body.error.message).toMatch(/cannot refresh/);
    expect(upstreamSince(before)).toEqual([]);
  });
});

describe('auth-provider oidc id-tokens kubectl does not send', () => {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const now = () => Math.floor(Date.now() / 1000);

  it.each([
    ['that is not a JWT', () => 'not-a-jwt', 'OIDC_TOKEN_INVALID', /is not a valid JWT/],
    [
      'whose claims are not JSON',
      () => `${part({ alg: 'RS256' })}.bm90IGpzb24.c2ln`,
      'OIDC_TOKEN_INVALID',
      /is not a valid JWT/,
    ],
    [
      'without an exp claim',
      () => `${part({ alg: 'RS256' })}.${part({ sub: 'jane' })}.c2ln`,
      'OIDC_TOKEN_EXPIRED',
      /has no expiry \(exp\)/,
    ],
    [
      'expiring within 10 seconds (client-go counts it expired)',
      () => jwt(now() + 5),
      'OIDC_TOKEN_EXPIRED',
      /has expired/,
    ],
  ])('answers 500 and sends nothing for an id-token %s', async (_what, token, code, message) => {
    const credentials = oidcCredentials(token());
    const before = k8s.plane.requests.length;
    await expect(getApiVersions(credentials)).rejects.toMatchObject({
      status: 500,
      message: expect.stringMatching(message),
      innererror: { code },
    });
    expect(upstreamSince(before)).toEqual([]);
  });
});

describeEachExpress('a plain http:// control plane', (express) => {
  it('gets no credential at all (as kubectl), but still the impersonation headers, and a log line says so', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headers);
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{"kind":"Status"}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const warnings: string[] = [];
    try {
      const credentials = createClusterCredentials({
        server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        token: 'never-on-the-wire',
        impersonate: { user: 'jane', groups: ['ops', 'dev'], uid: '42' },
        onWarning: (message) => warnings.push(message),
      });
      opened.push(credentials);
      const application = express();
      application.use('/ledger', serviceProxy({ credentials, service: 'ledger' }));
      const res = await request(application).get('/ledger/x').set('Authorization', 'Bearer client');
      expect(res.status).toBe(401);
      expect(seen).toHaveLength(1);
      expect(seen[0]?.authorization).toBeUndefined();
      expect(seen[0]?.['impersonate-user']).toBe('jane');
      expect(seen[0]?.['impersonate-group']).toBe('ops, dev');
      expect(seen[0]?.['impersonate-uid']).toBe('42');
      expect(warnings.join('\n')).toMatch(/plain http:\/\/: no credentials are sent/);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('impersonation from the kubeconfig', () => {
  it('replaces whatever Impersonate-* headers a middleware client sends', async () => {
    counter += 1;
    k8s.plane.tokens.add('imp-token');
    const kubeconfig = writeExecKubeconfig(dir, {
      server: k8s.plane.url,
      caFile: k8s.certs.caFile,
      userLines: [
        '    token: imp-token',
        '    as: jane',
        '    as-groups: [ops]',
        '    as-uid: "7"',
      ],
      name: `imp-${counter}.yaml`,
    });
    const credentials = findClusterCredentials({ kubeconfig }) as ClusterCredentials;
    opened.push(credentials);
    const { default: express } = await import('express');
    const application = express();
    application.use('/ledger', serviceProxy({ credentials, service: 'ledger' }));
    const before = k8s.plane.requests.length;
    await request(application)
      .get('/ledger/x')
      .set('Impersonate-User', 'system:admin')
      .set('Impersonate-Group', 'system:masters')
      .expect(200);
    const [seen] = upstreamSince(before);
    expect(seen?.headers['impersonate-user']).toBe('jane');
    expect(seen?.headers['impersonate-group']).toBe('ops');
    expect(seen?.headers['impersonate-uid']).toBe('7');
  });
});
