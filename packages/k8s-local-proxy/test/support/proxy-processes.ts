/**
 * @module Starts `kubectl proxy` and `k8s-local-proxy` (from source, through tsx) as child
 * processes on a free port, reading the port from their `Starting to serve on` line.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const PACKAGE_DIR = join(here, '..', '..');
export const REPO_ROOT = join(PACKAGE_DIR, '..', '..');
export const CLI_SOURCE = join(PACKAGE_DIR, 'src', 'cli.ts');

export interface RunningProxy {
  readonly child: ChildProcess;
  /** The port parsed from `Starting to serve on HOST:PORT` (0 for a Unix socket). */
  readonly port: number;
  /** The whole `Starting to serve on …` line. */
  readonly banner: string;
  stderr(): string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** The installed kubectl, or `undefined`. */
export function findKubectl(): string | undefined {
  for (const candidate of ['/usr/bin/kubectl', '/usr/local/bin/kubectl']) {
    if (existsSync(candidate)) return candidate;
  }
  try {
    return execFileSync('which', ['kubectl'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export const BUILT_BIN = join(PACKAGE_DIR, 'bin', 'k8s-local-proxy.cjs');

/**
 * `node --conditions=source --import tsx src/cli.ts`, so tests need no build; with
 * `K8S_LOCAL_PROXY_BUILT=1`, the built bin as users run it (`bin/k8s-local-proxy.cjs` and the
 * one-file `dist/cli.cjs`), so the whole suite can check the bundle too.
 */
export function ourCommand(): { command: string; prefix: string[] } {
  if (process.env.K8S_LOCAL_PROXY_BUILT === '1') {
    return { command: process.execPath, prefix: [BUILT_BIN] };
  }
  return {
    command: process.execPath,
    prefix: ['--conditions=source', '--import', 'tsx', CLI_SOURCE],
  };
}

/**
 * Variables of the developer's shell that change how both proxies reach the control plane. The
 * children start without them; a test about one of them passes it in `env`.
 */
const CONTROL_PLANE_VARIABLES = [
  'KUBECONFIG',
  'DISABLE_HTTP2',
  'HTTPS_PROXY',
  'https_proxy',
  'HTTP_PROXY',
  'http_proxy',
  'NO_PROXY',
  'no_proxy',
];

/** The parent's environment without `CONTROL_PLANE_VARIABLES`, then `env` on top. */
export function childEnvironment(env: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const inherited: NodeJS.ProcessEnv = { ...process.env };
  for (const name of CONTROL_PLANE_VARIABLES) delete inherited[name];
  return { ...inherited, ...env };
}

export function startProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningProxy> {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: childEnvironment(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (data: Buffer) => {
    stderr += data.toString('utf8');
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${command} did not start within 20 s; stderr: ${stderr}`));
    }, 20_000);
    // 'close', not 'exit': the message then holds all of stderr (the pipes may still be
    // draining when the process has exited).
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited with ${code} before serving; stderr: ${stderr}`));
    });
    child.stdout?.on('data', (data: Buffer) => {
      stdout += data.toString('utf8');
      const match = /Starting to serve on (\S+)/.exec(stdout);
      if (!match) return;
      clearTimeout(timer);
      const where = match[1] ?? '';
      const port = /:(\d+)$/.exec(where);
      resolve({
        child,
        port: port ? Number(port[1]) : 0,
        banner: match[0],
        stderr: () => stderr,
        stop: (signal = 'SIGTERM') => {
          if (child.exitCode !== null || child.signalCode !== null) return exited;
          child.kill(signal);
          const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
          return exited.finally(() => clearTimeout(force));
        },
      });
    });
  });
}

export function startKubectlProxy(
  kubectl: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
) {
  return startProcess(kubectl, ['proxy', '--port=0', ...args], env);
}

export function startOurProxy(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const { command, prefix } = ourCommand();
  return startProcess(command, [...prefix, '--port=0', ...args], env);
}
