/**
 * @module The server processes tests start (`redis-server`, Redis Cluster nodes, `postgres`):
 * spawned with stdin and stdout ignored and the start of stderr kept for the error of a failed
 * start, each killed with SIGKILL if the test process exits with it still running, so a crashed
 * or interrupted run leaves no server behind.
 */
import { type ChildProcess, type SpawnOptions, spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { waitFor } from './servers.js';

/** Whether `path` is a file this process may execute. */
export function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first of `candidates` this process may execute, or undefined. */
export function firstExecutable(candidates: readonly string[]): string | undefined {
  return candidates.find(isExecutable);
}

const skipWarned = new Set<string>();

/**
 * Whether the suites needing a server program can run: true when `installed`; otherwise, under
 * `CI`, throws (CI must run them), and elsewhere warns once per `suites` and returns false, for
 * `describe.skipIf(!hasX())`. `missing` says what was not found and how to install it.
 */
export function installedOrSkipped(installed: boolean, missing: string, suites: string): boolean {
  if (installed) return true;
  if (process.env.CI) throw new Error(`${missing}. CI must run the ${suites}.`);
  if (!skipWarned.has(suites)) {
    skipWarned.add(suites);
    console.warn(`${missing}. Skipping the ${suites}.`);
  }
  return false;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) child.kill('SIGKILL');
  });
}

/** A server process a test started. */
export interface ServerProcess {
  readonly process: ChildProcess;
  /** What it wrote to stderr so far (the first `maxStderr` characters). */
  stderr(): string;
  /** Whether it has exited (or was killed). */
  exited(): boolean;
}

export interface SpawnServerOptions extends Pick<SpawnOptions, 'cwd' | 'uid' | 'gid'> {
  /** How much of stderr to keep. @default 4000 */
  readonly maxStderr?: number;
}

/** Spawns `bin` with `args` as a server process of the test run. */
export function spawnServer(
  bin: string,
  args: readonly string[],
  { maxStderr = 4_000, ...options }: SpawnServerOptions = {},
): ServerProcess {
  installExitHook();
  const proc = spawn(bin, args, { ...options, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.on('data', (data: Buffer) => {
    if (stderr.length < maxStderr) stderr += data.toString('utf8');
  });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  return {
    process: proc,
    stderr: () => stderr,
    exited: () => proc.exitCode !== null || proc.signalCode !== null,
  };
}

/**
 * Resolves once `ready()` is true; rejects with `name` and its stderr as soon as the process
 * exits instead, or after `timeoutMs` (`waitFor`).
 */
export async function waitUntilServing(
  server: ServerProcess,
  ready: () => boolean | Promise<boolean>,
  { name, timeoutMs, intervalMs }: { name: string; timeoutMs: number; intervalMs: number },
): Promise<void> {
  await waitFor(
    async () => {
      if (server.exited()) throw new Error(`${name} exited on start: ${server.stderr().trim()}`);
      return ready();
    },
    { timeoutMs, intervalMs, what: name },
  );
}

/**
 * The arguments every test `redis-server` starts with: loopback only, on `port`, no snapshots
 * and no append-only file (the data is thrown away), `dir` as its working dir, in the
 * foreground, warnings only.
 */
export function redisServerArgs(port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--loglevel',
    'warning',
  ];
}
