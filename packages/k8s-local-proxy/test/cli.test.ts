import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeKubeconfig, writeKubeconfigDocument } from '@resourceful/test-support';
import { rawRequest, useControlPlane } from '@resourceful/test-support/k8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseProxyArgs, usage } from '../src/cli-options.js';
import { runProxyCommand } from '../src/run-proxy-command.js';
import {
  childEnvironment,
  ourCommand,
  REPO_ROOT,
  startOurProxy,
  startProcess,
} from './support/proxy-processes.js';

describe('parseProxyArgs', () => {
  it("has kubectl proxy's defaults", () => {
    expect(parseProxyArgs([])).toMatchObject({
      port: 8001,
      address: '127.0.0.1',
      unixSocket: '',
      acceptHosts: '^localhost$,^127\\.0\\.0\\.1$,^\\[::1\\]$',
      acceptPaths: '^.*',
      rejectPaths: '^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach',
      rejectMethods: '^$',
      apiPrefix: '/',
      www: '',
      wwwPrefix: '/static/',
      disableFilter: false,
      keepaliveMs: 0,
      appendServerPath: false,
      insecureSkipTlsVerify: false,
    });
  });

  it('reads pflag forms: --a=b, --a b, -p 1, -p=1, -p1, bare and explicit booleans', () => {
    expect(parseProxyArgs(['--port=9000']).port).toBe(9000);
    expect(parseProxyArgs(['--port', '9001']).port).toBe(9001);
    expect(parseProxyArgs(['-p', '9002']).port).toBe(9002);
    expect(parseProxyArgs(['-p=9003']).port).toBe(9003);
    expect(parseProxyArgs(['-p9004']).port).toBe(9004);
    expect(parseProxyArgs(['--disable-filter']).disableFilter).toBe(true);
    expect(parseProxyArgs(['--disable-filter=false']).disableFilter).toBe(false);
    expect(parseProxyArgs(['-w', '/srv', '-P', '/s/', '-u', '/tmp/s']).www).toBe('/srv');
    expect(parseProxyArgs(['--keepalive=1m30s']).keepaliveMs).toBe(90_000);
    expect(parseProxyArgs(['--keepalive=500ms']).keepaliveMs).toBe(500);
  });

  it('reads --request-timeout as kubectl does: a bare integer is seconds, or a Go duration', () => {
    expect(parseProxyArgs(['--request-timeout=5']).requestTimeoutMs).toBe(5000);
    expect(parseProxyArgs(['--request-timeout=0']).requestTimeoutMs).toBe(0);
    expect(parseProxyArgs(['--request-timeout=1.5s']).requestTimeoutMs).toBe(1500);
    expect(() => parseProxyArgs(['--request-timeout=5x'])).toThrow(
      /Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit/,
    );
  });

  it('refuses unknown flags, bad values and stray arguments', () => {
    expect(() => parseProxyArgs(['--prot=1'])).toThrow('unknown flag: --prot');
    expect(() => parseProxyArgs(['-x'])).toThrow(/unknown shorthand flag: 'x'/);
    expect(() => parseProxyArgs(['--port=abc'])).toThrow(/invalid argument "abc"/);
    expect(() => parseProxyArgs(['--port=65536'])).toThrow(/invalid argument/);
    expect(() => parseProxyArgs(['--keepalive=5'])).toThrow(/duration/);
    expect(() => parseProxyArgs(['--disable-filter=maybe'])).toThrow(/true or false/);
    expect(() => parseProxyArgs(['--port'])).toThrow(/needs an argument/);
    expect(() => parseProxyArgs(['serve'])).toThrow(/unexpected argument/);
    expect(() => parseProxyArgs(['--__proto__=1'])).toThrow(/unknown flag/);
  });

  it('documents every flag in --help', () => {
    const text = usage();
    for (const flag of [
      '-p, --port=8001',
      '--address',
      '-u, --unix-socket',
      '--accept-hosts',
      '--accept-paths',
      '--reject-paths',
      '--reject-methods',
      '--api-prefix',
      '-w, --www',
      '-P, --www-prefix',
      '--disable-filter',
      '--keepalive=0s',
      '--append-server-path',
      '--kubeconfig',
      '--context',
      '--server',
      '--token',
      '--certificate-authority',
      '--insecure-skip-tls-verify',
    ]) {
      expect(text, flag).toContain(flag);
    }
  });
});

describe('runProxyCommand', () => {
  it('prints help on stdout and exits 0', async () => {
    let out = '';
    const result = await runProxyCommand(['--help'], {
      stdout: (t) => (out += t),
      stderr: () => {},
    });
    expect(result.exitCode).toBe(0);
    expect(out).toContain('Usage:');
  });

  it('exits 1 with a kubectl-style message for an unknown flag', async () => {
    let err = '';
    const result = await runProxyCommand(['--bogus'], {
      stdout: () => {},
      stderr: (t) => (err += t),
    });
    expect(result.exitCode).toBe(1);
    expect(err).toBe("error: unknown flag: --bogus\nSee 'k8s-local-proxy --help' for usage.\n");
  });

  it('exits 1 without echoing the token when no credentials can be used', async () => {
    let err = '';
    const result = await runProxyCommand(
      ['--server=https://u:supersecret@h', '--token=supersecret', '--kubeconfig=/nonexistent'],
      { stdout: () => {}, stderr: (t) => (err += t) },
    );
    expect(result.exitCode).toBe(1);
    expect(err).not.toContain('supersecret');
  });
});

describe('runProxyCommand with a cluster configuration it cannot use', () => {
  it.each([
    [
      ['--kubeconfig=/nonexistent/kubeconfig'],
      'error: kubeconfig /nonexistent/kubeconfig does not exist\n',
    ],
    [
      ['--server=https://h', '--token=t', '--certificate-authority=/nonexistent/ca.crt'],
      'error: cannot read certificate-authority /nonexistent/ca.crt (ENOENT)\n',
    ],
  ])('prints one kubectl-style line and exits 1 for %j', async (args, line) => {
    let err = '';
    const result = await runProxyCommand(args, {
      stdout: () => {},
      stderr: (t) => (err += t),
    });
    expect(result.exitCode).toBe(1);
    expect(err).toBe(line);
  });
});

/** Runs the bin to its end: the exit code and all of stderr (read until the pipes close). */
async function runToExit(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<{ code: number | null; stderr: string }> {
  const { command, prefix } = ourCommand();
  const child = spawn(command, [...prefix, ...args], {
    cwd: REPO_ROOT,
    env: childEnvironment(env),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stderr };
}

/** `runProxyCommand` with captured stderr. */
async function runCommand(
  args: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ exitCode: number; stderr: string }> {
  let stderr = '';
  const { exitCode } = await runProxyCommand(args, {
    stdout: () => {},
    stderr: (text) => (stderr += text),
    env,
  });
  return { exitCode, stderr };
}

describe('a proxy URL the command cannot use', () => {
  const SOCKS4 = 'socks4://127.0.0.1:1080';
  const REFUSED = 'unsupported scheme "socks4", must be http, https, or socks5';
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cli-proxy-url-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("prints kubectl's line for the kubeconfig's proxy-url and exits 1, from the bin too", async () => {
    const kubeconfig = writeKubeconfigDocument(dir, 'proxy-url.yaml', {
      server: 'https://kube.test:6443',
      clusterLines: [`    proxy-url: ${SOCKS4}`],
      userLines: ['    token: t'],
    });
    const line = `error: invalid 'proxy-url' "${SOCKS4}" for cluster "double": ${REFUSED}\n`;
    expect(await runCommand([`--kubeconfig=${kubeconfig}`], {})).toEqual({
      exitCode: 1,
      stderr: line,
    });
    expect(await runToExit([`--kubeconfig=${kubeconfig}`])).toEqual({ code: 1, stderr: line });
  });

  it.each(['HTTPS_PROXY', 'https_proxy'])(
    'names %s for a bad proxy in the environment and exits 1, from the bin too',
    async (variable) => {
      const kubeconfig = writeKubeconfig(dir, {
        server: 'https://kube.test:6443',
        user: { token: 't' },
        name: 'environment.yaml',
      });
      const line = `error: invalid proxy address "${SOCKS4}" in environment variable ${variable}: ${REFUSED}\n`;
      const env = { [variable]: SOCKS4 };
      expect(await runCommand([`--kubeconfig=${kubeconfig}`], env)).toEqual({
        exitCode: 1,
        stderr: line,
      });
      expect(await runToExit([`--kubeconfig=${kubeconfig}`], env)).toEqual({
        code: 1,
        stderr: line,
      });
    },
  );
});

describe('the k8s-local-proxy process', () => {
  const k8s = useControlPlane({ tokens: ['flag-token'] });
  let kubeconfig: string;

  beforeAll(async () => {
    kubeconfig = writeKubeconfig(k8s.certs.dir, {
      server: k8s.plane.url,
      caFile: k8s.certs.caFile,
    });
  });

  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`prints the real port for --port=0, serves, and exits 0 on ${signal}`, async () => {
      const proxy = await startOurProxy([
        `--kubeconfig=${kubeconfig}`,
        '--token=flag-token',
        `--certificate-authority=${k8s.certs.caFile}`,
      ]);
      expect(proxy.banner).toBe(`Starting to serve on 127.0.0.1:${proxy.port}`);
      expect(proxy.port).toBeGreaterThan(0);
      const res = await rawRequest(proxy.port, { path: '/api' });
      expect(res.status).toBe(200);
      expect(await proxy.stop(signal)).toBe(0);
      expect(proxy.stderr()).not.toContain('flag-token');
    });
  }

  it('connects with --server, --token and --insecure-skip-tls-verify, warning on stderr', async () => {
    const proxy = await startOurProxy([
      `--server=${k8s.plane.url}`,
      '--token=flag-token',
      '--insecure-skip-tls-verify',
    ]);
    expect((await rawRequest(proxy.port, { path: '/api' })).status).toBe(200);
    expect(proxy.stderr()).toMatch(/TLS verification of the control plane is disabled/);
    await proxy.stop();
  });

  it('exits 1 when the port is taken', async () => {
    const first = await startOurProxy([`--kubeconfig=${kubeconfig}`, '--token=flag-token']);
    const { code, stderr } = await runToExit([
      `--kubeconfig=${kubeconfig}`,
      '--token=flag-token',
      `--port=${first.port}`,
    ]);
    expect(code).toBe(1);
    expect(stderr).toMatch(/cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/);
    await first.stop();
  });

  it('still runs from the deprecated k8s-service-proxy bin, with a notice on stderr', async () => {
    const deprecatedBin = join(
      REPO_ROOT,
      'packages',
      'k8s-service-proxy',
      'bin',
      'k8s-service-proxy.js',
    );
    const proxy = await startProcess(process.execPath, [
      '--conditions=source',
      '--import',
      'tsx',
      deprecatedBin,
      '--port=0',
      `--kubeconfig=${kubeconfig}`,
      '--token=flag-token',
    ]);
    try {
      expect((await rawRequest(proxy.port, { path: '/api' })).status).toBe(200);
      expect(proxy.stderr()).toMatch(/k8s-service-proxy command is deprecated.*k8s-local-proxy/);
    } finally {
      await proxy.stop();
    }
  });
});
