/**
 * `kubectl proxy` and `k8s-local-proxy` started in pairs on the same kubeconfig of each credential
 * kind (exec plugins, OIDC id-token, impersonation flags, `--token` over a plugin, a plain-http
 * control plane), against the same double: what the double received must be the same, and so
 * must the status the client got. Kubeconfigs kubectl refuses must stop both at start.
 *
 * The kubectl installed here is a version dispatcher: before `kubectl proxy` starts it calls
 * `GET /version` with the kubeconfig's credentials, so its one plugin run happens before it
 * serves; ours happens on the first request (a documented difference: start-up never waits for,
 * or fails on, a plugin). That call is left out of the comparisons.
 */

import { X509Certificate } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ExecStanza, writeExecKubeconfig } from '@resourceful/test-support';
import {
  makeServerCertificate,
  rawRequest,
  rawUpgrade,
  startConnectProxy,
  startSocks5Proxy,
  useControlPlane,
  writeFakePlugin,
} from '@resourceful/test-support/k8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findKubectl,
  type RunningProxy,
  startKubectlProxy,
  startOurProxy,
} from './support/proxy-processes.js';

const kubectl = findKubectl();
const runDifferential = kubectl !== undefined || process.env.CI !== undefined;
const SERVICE_PATH = '/api/v1/namespaces/default/services/web/proxy/items';

/** startProcess's rejection for a process that exits with `code` having printed only `line`. */
function exitedWith(code: number, line: string): RegExp {
  const literal = `exited with ${code} before serving; stderr: ${line}\n`;
  return new RegExp(`${literal.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`);
}

describe.skipIf(!runDifferential)('credential kinds, k8s-local-proxy against kubectl proxy', () => {
  const k8s = useControlPlane({ tokens: ['test-token'], basic: ['alice:pw'] });
  let dir: string;
  let counter = 0;

  beforeAll(async () => {
    if (kubectl === undefined) throw new Error('kubectl is required for this suite under CI');
    dir = mkdtempSync(join(tmpdir(), 'kubectl-credentials-'));
  });
  afterAll(async () => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function kubeconfigWith(options: {
    exec?: ExecStanza;
    userLines?: string[];
    clusterLines?: string[];
    server?: string;
    /** `false`: no `certificate-authority` line (the test gives its own in `clusterLines`). */
    caFile?: false;
  }) {
    counter += 1;
    return writeExecKubeconfig(dir, {
      server: options.server ?? k8s.plane.url,
      caFile:
        options.server?.startsWith('http:') || options.caFile === false
          ? undefined
          : k8s.certs.caFile,
      exec: options.exec,
      userLines: options.userLines,
      clusterLines: options.clusterLines,
      name: `k${counter}.yaml`,
    });
  }

  async function pair(
    kubeconfig: string,
    flags: string[] = [],
  ): Promise<[RunningProxy, RunningProxy]> {
    return Promise.all([
      startKubectlProxy(kubectl as string, [`--kubeconfig=${kubeconfig}`, ...flags]),
      startOurProxy([`--kubeconfig=${kubeconfig}`, ...flags]),
    ]);
  }

  /** One GET through each proxy: the statuses and what the double saw (auth and identity). */
  async function through(proxies: readonly RunningProxy[], path = SERVICE_PATH) {
    const results = [];
    for (const proxy of proxies) {
      const before = k8s.plane.requests.length;
      const response = await rawRequest(proxy.port, { path });
      results.push({
        status: response.status,
        body: response.body,
        upstream: k8s.plane.requests.slice(before).map((request) => ({
          auth: request.auth,
          authorization: request.headers.authorization,
          clientCertificate: request.clientCertificate,
          user: request.headers['impersonate-user'],
          group: request.headers['impersonate-group'],
          uid: request.headers['impersonate-uid'],
        })),
      });
    }
    return results;
  }

  /** A kubeconfig for `https://kube.test:PORT` (a name only the forward proxy maps to the double). */
  function throughProxyUrl(proxyUrl: string) {
    return kubeconfigWith({
      server: `https://kube.test:${k8s.plane.port}`,
      userLines: ['    token: test-token'],
      clusterLines: [`    proxy-url: ${proxyUrl}`, '    tls-server-name: localhost'],
    });
  }

  /**
   * One GET through each proxy: both answer 200 alike, and each reached `kube.test:PORT` through
   * the forward proxy once, as `recorded()` (the proxy's list of destinations) shows.
   */
  async function expectSameAnswersVia(
    proxies: readonly RunningProxy[],
    recorded: () => readonly string[],
  ) {
    const recordedPer = [];
    const answers = [];
    for (const running of proxies) {
      const before = recorded().length;
      answers.push(...(await through([running])));
      recordedPer.push(recorded().slice(before));
    }
    expect(answers[0]?.status).toBe(200);
    expect(answers[1]).toEqual(answers[0]);
    expect(recordedPer).toEqual([[`kube.test:${k8s.plane.port}`], [`kube.test:${k8s.plane.port}`]]);
  }

  /**
   * Starts both with `args`: neither may serve, and each one's failure (exit code and stderr, as
   * startProcess words it) must match its pattern.
   */
  async function expectBothRefuseToStart(args: readonly string[], theirs: RegExp, ours: RegExp) {
    const outcomes = await Promise.allSettled([
      startKubectlProxy(kubectl as string, args),
      startOurProxy(args),
    ]);
    for (const outcome of outcomes) {
      if (outcome.status === 'fulfilled') await outcome.value.stop();
    }
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected']);
    const messages = outcomes.map((outcome) =>
      outcome.status === 'rejected' ? String(outcome.reason) : '',
    );
    expect(messages[0]).toMatch(theirs);
    expect(messages[1]).toMatch(ours);
  }

  async function stopAll(proxies: readonly RunningProxy[]) {
    await Promise.all(proxies.map((proxy) => proxy.stop()));
  }

  it('runs an exec plugin lazily, once, and sends its token (v1beta1 and v1)', async () => {
    for (const apiVersion of [
      'client.authentication.k8s.io/v1beta1',
      'client.authentication.k8s.io/v1',
    ]) {
      counter += 1;
      const prefix = `pair${counter}`;
      k8s.plane.tokens.add(`${prefix}-1`);
      const plugins = [writeFakePlugin(dir, `k-${counter}`), writeFakePlugin(dir, `o-${counter}`)];
      const kubeconfigs = plugins.map((plugin) =>
        kubeconfigWith({
          exec: {
            apiVersion,
            command: plugin.command,
            args: [`--prefix=${prefix}`, '--ttl=3600'],
            interactiveMode: 'Never',
          },
        }),
      );
      const proxies = await Promise.all([
        startKubectlProxy(kubectl as string, [`--kubeconfig=${kubeconfigs[0]}`]),
        startOurProxy([`--kubeconfig=${kubeconfigs[1]}`]),
      ]);
      try {
        expect(plugins[1]?.runs()).toBe(0);
        const [theirs, ours] = await through(proxies);
        await through(proxies);
        expect(theirs?.status).toBe(200);
        expect(ours?.status).toBe(200);
        expect(ours?.upstream).toEqual(theirs?.upstream);
        // One run each for the whole life of the proxy: the credential is kept until it expires.
        expect(plugins.map((plugin) => plugin.runs())).toEqual([1, 1]);
        expect(plugins[1]?.lastRun().execInfo).toEqual(plugins[0]?.lastRun().execInfo);
      } finally {
        await stopAll(proxies);
      }
    }
  });

  it("gives a provideClusterInfo plugin the cluster's exec extension as spec.cluster.config", async () => {
    counter += 1;
    const prefix = `info${counter}`;
    k8s.plane.tokens.add(`${prefix}-1`);
    const plugins = [writeFakePlugin(dir, `k-${counter}`), writeFakePlugin(dir, `o-${counter}`)];
    const kubeconfigs = plugins.map((plugin) =>
      kubeconfigWith({
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: plugin.command,
          args: [`--prefix=${prefix}`, '--ttl=3600'],
          interactiveMode: 'Never',
          provideClusterInfo: true,
        },
        clusterLines: [
          '    tls-server-name: localhost',
          '    extensions:',
          '    - name: client.authentication.k8s.io/exec',
          '      extension: {audience: foo, nested: {list: [1, two]}}',
        ],
      }),
    );
    const proxies = await Promise.all([
      startKubectlProxy(kubectl as string, [`--kubeconfig=${kubeconfigs[0]}`]),
      startOurProxy([`--kubeconfig=${kubeconfigs[1]}`]),
    ]);
    try {
      const [theirs, ours] = await through(proxies);
      expect(theirs?.status).toBe(200);
      expect(ours?.upstream).toEqual(theirs?.upstream);
      const execInfo = plugins.map((plugin) => plugin.lastRun().execInfo);
      expect(execInfo[0]).toMatchObject({
        spec: { cluster: { config: { audience: 'foo', nested: { list: [1, 'two'] } } } },
      });
      expect(execInfo[1]).toEqual(execInfo[0]);
    } finally {
      await stopAll(proxies);
    }
  });

  it('answers 500 and sends nothing when the plugin fails (kubectl in text, ours an envelope)', async () => {
    const plugin = writeFakePlugin(dir, `fail-${++counter}`);
    const kubeconfig = kubeconfigWith({ exec: { command: plugin.command, args: ['--exit=3'] } });
    const proxies = await pair(kubeconfig);
    try {
      const [theirs, ours] = await through(proxies);
      expect(theirs?.status).toBe(500);
      expect(ours?.status).toBe(500);
      expect(theirs?.upstream).toEqual([]);
      expect(ours?.upstream).toEqual([]);
      expect(JSON.parse(ours?.body ?? '{}').error.message).toMatch(/exited with code 3/);
    } finally {
      await stopAll(proxies);
    }
  });

  it('lets --token win over the plugin, which never runs', async () => {
    const plugin = writeFakePlugin(dir, `unused-${++counter}`);
    const kubeconfig = kubeconfigWith({ exec: { command: plugin.command } });
    const proxies = await pair(kubeconfig, ['--token=test-token']);
    try {
      const [theirs, ours] = await through(proxies);
      expect(theirs?.status).toBe(200);
      expect(ours).toEqual(theirs);
      expect(plugin.runs()).toBe(0);
    } finally {
      await stopAll(proxies);
    }
  });

  it.each([
    ['a user with token and tokenFile', ['    token: inline-token'], []],
    ['a tokenFile user and --token', [], ['--token=flag-token']],
  ])("sends the file's token for %s, as client-go does", async (_what, userLines, flags) => {
    const tokenFile = join(dir, `token-${++counter}`);
    writeFileSync(tokenFile, 'file-token\n');
    k8s.plane.tokens.add('file-token');
    const kubeconfig = kubeconfigWith({ userLines: [...userLines, `    tokenFile: ${tokenFile}`] });
    const proxies = await pair(kubeconfig, flags);
    try {
      const [theirs, ours] = await through(proxies);
      expect(theirs?.upstream).toEqual([
        expect.objectContaining({ auth: 'bearer', authorization: 'Bearer file-token' }),
      ]);
      expect(ours).toEqual(theirs);
    } finally {
      await stopAll(proxies);
    }
  });

  it('sends --as, --as-group (repeated) and --as-uid as Impersonate-* headers', async () => {
    const kubeconfig = kubeconfigWith({ userLines: ['    token: test-token'] });
    const proxies = await pair(kubeconfig, [
      '--as=jane',
      '--as-group=ops',
      '--as-group=dev',
      '--as-uid=42',
    ]);
    try {
      const [theirs, ours] = await through(proxies);
      expect(theirs?.upstream).toEqual([
        {
          auth: 'bearer',
          authorization: 'Bearer test-token',
          user: 'jane',
          group: 'ops, dev',
          uid: '42',
        },
      ]);
      expect(ours).toEqual(theirs);
    } finally {
      await stopAll(proxies);
    }
  });

  it('sends an OIDC id-token as the bearer token', async () => {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const idToken = `${part({ alg: 'RS256' })}.${part({ sub: 'jane', exp: Math.floor(Date.now() / 1000) + 3600 })}.c2ln`;
    k8s.plane.tokens.add(idToken);
    const kubeconfig = kubeconfigWith({
      userLines: [
        '    auth-provider:',
        '      name: oidc',
        '      config:',
        '        client-id: k8s',
        '        idp-issuer-url: https://issuer.invalid',
        `        id-token: ${idToken}`,
      ],
    });
    const proxies = await pair(kubeconfig);
    try {
      const [theirs, ours] = await through(proxies);
      expect(theirs?.status).toBe(200);
      expect(ours).toEqual(theirs);
    } finally {
      await stopAll(proxies);
    }
  });

  it('sends no credential to a plain http:// control plane, but the impersonation headers', async () => {
    const seen: IncomingHttpHeaders[] = [];
    const server = createServer((req, res) => {
      // The kubectl dispatcher's start-up version check (see the module comment).
      if (!req.url?.startsWith('/version')) seen.push(req.headers);
      res.writeHead(401, { 'Content-Type': 'application/json' }).end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const plugin = writeFakePlugin(dir, `cleartext-${++counter}`);
    const kubeconfig = kubeconfigWith({
      server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      exec: { command: plugin.command },
    });
    const proxies = await pair(kubeconfig, ['--as=jane']);
    try {
      for (const proxy of proxies) {
        const answer = await rawRequest(proxy.port, { path: '/api' });
        expect(answer.status).toBe(401);
      }
      expect(seen.map((headers) => [headers.authorization, headers['impersonate-user']])).toEqual([
        [undefined, 'jane'],
        [undefined, 'jane'],
      ]);
      expect(plugin.runs()).toBe(0);
      expect(proxies[1]?.stderr()).toMatch(/plain http:\/\/: no credentials are sent/);
    } finally {
      await stopAll(proxies);
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("tunnels requests through the cluster's proxy-url as kubectl does, and upgrades too (kubectl dials those directly)", async () => {
    const proxy = await startConnectProxy({ aliases: ['kube.test'] });
    const kubeconfig = throughProxyUrl(proxy.url);
    const proxies = await pair(kubeconfig);
    try {
      await expectSameAnswersVia(proxies, () => proxy.tunnels.map((t) => t.authority));
      const socketPath = '/api/v1/namespaces/default/services/web/proxy/socket';
      const [kubectlUpgrade, ourUpgrade] = [
        await rawUpgrade(proxies[0]?.port ?? 0, socketPath),
        await rawUpgrade(proxies[1]?.port ?? 0, socketPath),
      ];
      // Documented difference: kubectl v1.32 resolves the server name itself for upgrades.
      expect(kubectlUpgrade.status).toBe(500);
      expect(kubectlUpgrade.body).toMatch(/kube\.test/);
      expect(ourUpgrade).toEqual({ status: 101, echoed: 'echo:ping' });
    } finally {
      await stopAll(proxies);
      await proxy.close();
    }
  });

  it("tunnels through an https:// proxy-url, verified with the cluster's CA, as kubectl does", async () => {
    const proxy = await startConnectProxy({
      aliases: ['kube.test'],
      tls: { cert: k8s.certs.serverCert, key: k8s.certs.serverKey },
    });
    const kubeconfig = throughProxyUrl(proxy.url);
    const proxies = await pair(kubeconfig);
    try {
      await expectSameAnswersVia(proxies, () => proxy.tunnels.map((t) => t.authority));
    } finally {
      await stopAll(proxies);
      await proxy.close();
    }
  });

  it.each([
    ['names only the proxy host', 'IP:127.0.0.1', [500, 200]],
    ["names only the cluster's tls-server-name", 'DNS:localhost', [200, 200]],
  ])(
    'accepts an https:// proxy certificate that %s, where kubectl checks only tls-server-name (documented difference)',
    async (_what, subjectAltName, statuses) => {
      const proxy = await startConnectProxy({
        aliases: ['kube.test'],
        tls: makeServerCertificate(k8s.certs, `proxy-${++counter}`, subjectAltName),
      });
      const proxies = await pair(throughProxyUrl(proxy.url));
      try {
        const answers = await through(proxies);
        expect(answers.map((answer) => answer.status)).toEqual(statuses);
      } finally {
        await stopAll(proxies);
        await proxy.close();
      }
    },
  );

  it('connects through a socks5:// proxy-url, the proxy resolving the name, as kubectl does', async () => {
    const socks = await startSocks5Proxy({ aliases: ['kube.test'] });
    const kubeconfig = throughProxyUrl(socks.url);
    const proxies = await pair(kubeconfig);
    try {
      await expectSameAnswersVia(proxies, () => socks.connections);
    } finally {
      await stopAll(proxies);
      await socks.close();
    }
  });

  it('logs one line saying why the certificate failed, not a stack, once per reason', async () => {
    const kubeconfig = kubeconfigWith({ userLines: ['    token: test-token'] });
    const proxies = await pair(kubeconfig, ['--tls-server-name=wrong.example']);
    try {
      const answers = [];
      for (let round = 0; round < 3; round += 1) answers.push(...(await through(proxies)));
      const ours = answers.filter((_, index) => index % 2 === 1);
      const theirs = answers.filter((_, index) => index % 2 === 0);
      // kubectl answers 500 text/plain with Go's error; we answer the 502 envelope (documented).
      expect(theirs.map((answer) => answer.status)).toEqual([500, 500, 500]);
      expect(ours.map((answer) => answer.status)).toEqual([502, 502, 502]);
      expect(proxies[0]?.stderr()).toMatch(/x509: certificate is valid for .*not wrong\.example/);
      const lines = proxies[1]?.stderr().trimEnd().split('\n') ?? [];
      expect(lines).toEqual([
        expect.stringMatching(
          /^error: proxying GET \/api\/v1\/namespaces\/default\/services\/web\/proxy\/items failed: 502 UPSTREAM_TLS: .*wrong\.example.* \(ERR_TLS_CERT_ALTNAME_INVALID\)$/,
        ),
      ]);
      // The client learns the class of failure only, as before.
      const envelope = JSON.parse(ours[0]?.body ?? '{}');
      expect(envelope.error).toMatchObject({
        code: 'UPSTREAM_ERROR',
        message: 'The control plane certificate could not be verified.',
        innererror: { code: 'UPSTREAM_TLS' },
      });
      expect(ours[0]?.body).not.toMatch(/wrong\.example|altnames/);
    } finally {
      await stopAll(proxies);
    }
  });

  const base64 = (text: string) => Buffer.from(text).toString('base64');
  it.each([
    [
      'a v1 exec stanza without interactiveMode',
      () => ({ exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'aws' } }),
      /interactiveMode must be specified/,
      /interactiveMode must be set/,
    ],
    [
      'a user with a token and a username/password',
      () => ({ userLines: ['    token: t', '    username: u', '    password: p'] }),
      /more than one authentication method/,
      /more than one authentication method/,
    ],
    [
      'a client certificate without its key',
      () => ({ userLines: [`    client-certificate: ${k8s.certs.clientCertFile}`] }),
      /client-key-data or client-key must be specified for tester/,
      /client-key-data or client-key must be specified for user "tester"/,
    ],
    [
      'a client key without its certificate and no other credential',
      () => ({ userLines: [`    client-key: ${k8s.certs.clientKeyFile}`] }),
      // kubectl asks for a username on stdin (stdout: "Please enter Username:"), empty here.
      /error: EOF/,
      /client-certificate-data or client-certificate must be specified for user "tester"/,
    ],
    [
      'certificate-authority and certificate-authority-data',
      () => ({ clusterLines: [`    certificate-authority-data: ${base64(k8s.certs.ca)}`] }),
      /certificate-authority-data and certificate-authority are both specified for double/,
      /certificate-authority-data and certificate-authority are both specified for cluster "double"/,
    ],
    [
      'client-certificate and client-certificate-data',
      () => ({
        userLines: [
          `    client-certificate: ${k8s.certs.clientCertFile}`,
          `    client-certificate-data: ${base64(k8s.certs.clientCert)}`,
          `    client-key: ${k8s.certs.clientKeyFile}`,
        ],
      }),
      /client-cert-data and client-cert are both specified for tester/,
      /client-certificate-data and client-certificate are both specified for user "tester"/,
    ],
    [
      'client-key and client-key-data',
      () => ({
        userLines: [
          `    client-certificate: ${k8s.certs.clientCertFile}`,
          `    client-key: ${k8s.certs.clientKeyFile}`,
          `    client-key-data: ${base64(k8s.certs.clientKey)}`,
        ],
      }),
      /client-key-data and client-key are both specified for tester/,
      /client-key-data and client-key are both specified for user "tester"/,
    ],
    [
      'certificate-authority-data that is not base64',
      () => ({
        caFile: false as const,
        clusterLines: ['    certificate-authority-data: "%%%not base64%%%"'],
        userLines: ['    token: test-token'],
      }),
      /illegal base64 data at input byte 0/,
      /clusters\[double\]\.cluster\.certificate-authority-data is not valid base64 \(illegal base64 data at input byte 0/,
    ],
    [
      'a certificate-authority file in DER, not PEM',
      () => {
        const derFile = join(dir, 'ca.der');
        writeFileSync(derFile, new X509Certificate(k8s.certs.ca).raw);
        return {
          caFile: false as const,
          clusterLines: [`    certificate-authority: ${derFile}`],
          userLines: ['    token: test-token'],
        };
      },
      /unable to load root certificates: unable to parse bytes as PEM block/,
      /certificate authority file .*ca\.der .*holds no PEM certificate: unable to load root certificates: unable to parse bytes as PEM block/,
    ],
    [
      'certificate-authority-data that holds random text',
      () => ({
        caFile: false as const,
        clusterLines: [`    certificate-authority-data: ${base64('not a certificate')}`],
        userLines: ['    token: test-token'],
      }),
      /unable to load root certificates: unable to parse bytes as PEM block/,
      /certificate-authority-data\) holds no PEM certificate: unable to load root certificates: unable to parse bytes as PEM block/,
    ],
  ])('refuses to start with %s, as kubectl does', async (_what, options, theirs, ours) => {
    const kubeconfig = kubeconfigWith(options());
    await expectBothRefuseToStart([`--kubeconfig=${kubeconfig}`], theirs, ours);
  });

  it.each([
    ['socks4://127.0.0.1:1080', 'unsupported scheme "socks4", must be http, https, or socks5'],
    ['http://[::1', 'could not parse: http://[::1'],
    // No http:// is assumed in a kubeconfig (it is for HTTPS_PROXY).
    ['127.0.0.1:3128', 'could not parse: 127.0.0.1:3128'],
  ])(
    'refuses to start with proxy-url %s as kubectl does: exit 1, the same line',
    async (proxyUrl, reason) => {
      const kubeconfig = kubeconfigWith({
        server: 'https://kube.test:6443',
        userLines: ['    token: test-token'],
        clusterLines: [`    proxy-url: '${proxyUrl}'`],
      });
      const exit = exitedWith(
        1,
        `error: invalid 'proxy-url' "${proxyUrl}" for cluster "double": ${reason}`,
      );
      await expectBothRefuseToStart([`--kubeconfig=${kubeconfig}`], exit, exit);
    },
  );
  describe('flags merged into the kubeconfig user field by field', () => {
    const cert = () => `--client-certificate=${k8s.certs.clientCertFile}`;
    const key = () => `--client-key=${k8s.certs.clientKeyFile}`;
    it.each([
      [
        'a client-certificate user and --client-key',
        () => [`    client-certificate: ${k8s.certs.clientCertFile}`],
        () => [key()],
        { auth: 'client-certificate', clientCertificate: 'test-user' },
      ],
      [
        'a client-certificate-data user and --client-key',
        () => [`    client-certificate-data: ${base64(k8s.certs.clientCert)}`],
        () => [key()],
        { auth: 'client-certificate', clientCertificate: 'test-user' },
      ],
      [
        'a client-key user and --client-certificate',
        () => [`    client-key: ${k8s.certs.clientKeyFile}`],
        () => [cert()],
        { auth: 'client-certificate', clientCertificate: 'test-user' },
      ],
      [
        'an unreadable client-certificate replaced by --client-certificate',
        () => [
          `    client-certificate: ${join(dir, 'missing.crt')}`,
          `    client-key: ${k8s.certs.clientKeyFile}`,
        ],
        () => [cert()],
        { auth: 'client-certificate', clientCertificate: 'test-user' },
      ],
      [
        'a certificate user and --token (both are sent)',
        () => [
          `    client-certificate: ${k8s.certs.clientCertFile}`,
          `    client-key: ${k8s.certs.clientKeyFile}`,
        ],
        () => ['--token=test-token'],
        { auth: 'bearer', authorization: 'Bearer test-token', clientCertificate: 'test-user' },
      ],
      [
        'a token user and --client-key alone (ignored)',
        () => ['    token: test-token'],
        () => [key()],
        { auth: 'bearer', authorization: 'Bearer test-token' },
      ],
      [
        'a username/password user and --username',
        () => ['    username: bob', '    password: pw'],
        () => ['--username=alice'],
        { auth: 'basic', authorization: `Basic ${base64('alice:pw')}` },
      ],
      [
        'an empty user and --username, --password',
        () => [],
        () => ['--username=alice', '--password=pw'],
        { auth: 'basic', authorization: `Basic ${base64('alice:pw')}` },
      ],
      [
        'a username/password user and a certificate (both are sent)',
        () => ['    username: alice', '    password: pw'],
        () => [cert(), key()],
        {
          auth: 'basic',
          authorization: `Basic ${base64('alice:pw')}`,
          clientCertificate: 'test-user',
        },
      ],
      [
        'a username/password user and an empty --token',
        () => ['    username: alice', '    password: pw'],
        () => ['--token='],
        { auth: 'basic', authorization: `Basic ${base64('alice:pw')}` },
      ],
    ])('sends what kubectl sends for %s', async (_what, userLines, flags, expected) => {
      const kubeconfig = kubeconfigWith({ userLines: userLines() });
      const proxies = await pair(kubeconfig, flags());
      try {
        const [theirs, ours] = await through(proxies);
        expect(theirs?.upstream).toEqual([expected]);
        expect(ours).toEqual(theirs);
      } finally {
        await stopAll(proxies);
      }
    });

    it('refuses at start a --client-key that does not match the certificate (kubectl starts and answers 500)', async () => {
      const kubeconfig = kubeconfigWith({
        userLines: [`    client-certificate: ${k8s.certs.clientCertFile}`],
      });
      const flags = [`--client-key=${join(k8s.certs.dir, 'other-ca.key')}`];
      const outcomes = await Promise.allSettled([
        startKubectlProxy(kubectl as string, [`--kubeconfig=${kubeconfig}`, ...flags]),
        startOurProxy([`--kubeconfig=${kubeconfig}`, ...flags]),
      ]);
      const [theirs, ours] = outcomes;
      try {
        // Documented difference: kubectl serves, and fails every request with Go's TLS error.
        expect(theirs?.status).toBe('fulfilled');
        if (theirs?.status === 'fulfilled') {
          const [answer] = await through([theirs.value]);
          expect(answer?.status).toBe(500);
          expect(answer?.upstream).toEqual([]);
          expect(theirs.value.stderr()).toMatch(/private key does not match public key/);
        }
        expect(ours?.status).toBe('rejected');
        expect(ours?.status === 'rejected' ? String(ours.reason) : '').toMatch(
          /the client certificate and key cannot be used together \(key values mismatch/,
        );
      } finally {
        for (const outcome of outcomes) {
          if (outcome.status === 'fulfilled') await outcome.value.stop();
        }
      }
    });

    it("merges --server and --token into KUBECONFIG's cluster CA and user certificate", async () => {
      const kubeconfig = kubeconfigWith({
        server: 'https://127.0.0.1:1',
        caFile: false,
        clusterLines: [`    certificate-authority: ${k8s.certs.caFile}`],
        userLines: [
          `    client-certificate: ${k8s.certs.clientCertFile}`,
          `    client-key: ${k8s.certs.clientKeyFile}`,
        ],
      });
      const flags = [`--server=${k8s.plane.url}`, '--token=test-token'];
      const env = { KUBECONFIG: kubeconfig };
      const proxies = await Promise.all([
        startKubectlProxy(kubectl as string, flags, env),
        startOurProxy(flags, env),
      ]);
      try {
        const [theirs, ours] = await through(proxies);
        expect(theirs?.upstream).toEqual([
          { auth: 'bearer', authorization: 'Bearer test-token', clientCertificate: 'test-user' },
        ]);
        expect(ours).toEqual(theirs);
      } finally {
        await stopAll(proxies);
      }
    });

    it.each([
      [['--as=jane'], { user: 'jane', group: 'ops', uid: '7' }],
      [['--as-group=dev', '--as-group=qa'], { user: 'bob', group: 'dev, qa', uid: '7' }],
      [['--as-uid=9'], { user: 'bob', group: 'ops', uid: '9' }],
    ])("merges %j into the user's impersonation field by field", async (flags, expected) => {
      const kubeconfig = kubeconfigWith({
        userLines: [
          '    token: test-token',
          '    as: bob',
          '    as-groups: [ops]',
          '    as-uid: "7"',
        ],
      });
      const proxies = await pair(kubeconfig, flags);
      try {
        const [theirs, ours] = await through(proxies);
        expect(theirs?.upstream).toEqual([
          { auth: 'bearer', authorization: 'Bearer test-token', ...expected },
        ]);
        expect(ours).toEqual(theirs);
      } finally {
        await stopAll(proxies);
      }
    });

    it('verifies with --certificate-authority a cluster the kubeconfig marks insecure', async () => {
      const kubeconfig = kubeconfigWith({
        caFile: false,
        clusterLines: ['    insecure-skip-tls-verify: true'],
        userLines: ['    token: test-token'],
      });
      const ca = `--certificate-authority=${k8s.certs.caFile}`;
      const verified = await pair(kubeconfig, [ca]);
      try {
        const [theirs, ours] = await through(verified);
        expect(theirs?.status).toBe(200);
        expect(ours).toEqual(theirs);
      } finally {
        await stopAll(verified);
      }
      // Verification is really on again: a name the certificate does not carry fails both.
      const wrongName = await pair(kubeconfig, [ca, '--tls-server-name=wrong.example']);
      try {
        const [theirs, ours] = await through(wrongName);
        expect([theirs?.status, ours?.status]).toEqual([500, 502]);
        expect(theirs?.upstream).toEqual([]);
        expect(ours?.upstream).toEqual([]);
      } finally {
        await stopAll(wrongName);
      }
    });

    it('presents --client-certificate instead of running the exec plugin, as kubectl', async () => {
      const plugins = [
        writeFakePlugin(dir, `k-cert-${++counter}`),
        writeFakePlugin(dir, `o-cert-${counter}`),
      ];
      const kubeconfigs = plugins.map((plugin) =>
        kubeconfigWith({ exec: { command: plugin.command } }),
      );
      const proxies = await Promise.all([
        startKubectlProxy(kubectl as string, [`--kubeconfig=${kubeconfigs[0]}`, cert(), key()]),
        startOurProxy([`--kubeconfig=${kubeconfigs[1]}`, cert(), key()]),
      ]);
      try {
        const [theirs, ours] = await through(proxies);
        expect(theirs?.upstream).toEqual([
          { auth: 'client-certificate', clientCertificate: 'test-user' },
        ]);
        expect(ours).toEqual(theirs);
        expect(plugins.map((plugin) => plugin.runs())).toEqual([0, 0]);
      } finally {
        await stopAll(proxies);
      }
    });

    it.each([
      [
        'an empty user',
        () => [],
        () => [],
        /error: EOF/,
        /user "tester" has no credential \(token, tokenFile, username, client certificate and key, exec plugin or auth-provider\); kubectl asks for a username and password on its terminal here, and stops without one/,
      ],
      [
        'a user with a password only',
        () => ['    password: pw'],
        () => [],
        /error: EOF/,
        /user "tester" has a password but no username, and no other credential/,
      ],
      [
        'an empty user and --password',
        () => [],
        () => ['--password=pw'],
        /error: EOF/,
        /user "tester" has a password but no username/,
      ],
      [
        'an empty user and --client-key',
        () => [],
        () => [key()],
        /error: EOF/,
        /client-certificate-data or client-certificate must be specified for user "tester" to use its client key/,
      ],
      [
        'a client-certificate user and no key anywhere',
        () => [`    client-certificate: ${k8s.certs.clientCertFile}`],
        () => [],
        /client-key-data or client-key must be specified for tester/,
        /client-key-data or client-key must be specified for user "tester" to use the client certificate \(kubectl refuses it too\); give it in the kubeconfig or with --client-key/,
      ],
      [
        'a token user and --client-certificate without a key',
        () => ['    token: test-token'],
        () => [cert()],
        /client-key-data or client-key must be specified for tester/,
        /client-key-data or client-key must be specified for user "tester"/,
      ],
      [
        'a client-key-data user and --client-key',
        () => [
          `    client-certificate: ${k8s.certs.clientCertFile}`,
          `    client-key-data: ${base64(k8s.certs.clientKey)}`,
        ],
        () => [key()],
        /client-key-data and client-key are both specified for tester/,
        /client-key-data and client-key are both specified for user "tester"/,
      ],
      [
        'a username/password user and --token',
        () => ['    username: alice', '    password: pw'],
        () => ['--token=test-token'],
        /more than one authentication method found for tester; found \[token basicAuth\]/,
        /more than one authentication method found for user "tester"; found \[token basicAuth\]/,
      ],
      [
        'a token user and --username, --password',
        () => ['    token: test-token'],
        () => ['--username=alice', '--password=pw'],
        /more than one authentication method found for tester; found \[token basicAuth\]/,
        /more than one authentication method found for user "tester"; found \[token basicAuth\]/,
      ],
    ])(
      'refuses to start with %s, as kubectl without a terminal',
      async (_what, userLines, flags, theirs, ours) => {
        const kubeconfig = kubeconfigWith({ userLines: userLines() });
        await expectBothRefuseToStart([`--kubeconfig=${kubeconfig}`, ...flags()], theirs, ours);
      },
    );
  });
});
