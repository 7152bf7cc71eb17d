/**
 * Starts the example service as its own process, as `pnpm start` does, on a free port.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@resourceful/test-support';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));

export interface ServiceProcess {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * The service as `pnpm start` runs it, with `env` over the test's own environment, and what it
 * writes to stdout and stderr so far.
 */
function spawnService(env: Record<string, string>): { child: ChildProcess; output(): string } {
  const child = spawn(
    process.execPath,
    ['--conditions=source', '--import', 'tsx', 'src/server.ts'],
    {
      cwd: exampleDir,
      // No cluster credentials from the machine: the relay stays off unless a test configures it.
      env: { ...process.env, KUBECONFIG: '/nonexistent', HOME: exampleDir, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  return { child, output: () => output };
}

export async function startService(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const port = await freePort();
  const { child, output } = spawnService({ NODE_ENV: 'production', ...env, PORT: String(port) });
  try {
    await waitFor(() => output().includes('listening') || child.exitCode !== null, {
      timeoutMs: 30_000,
      what: 'the service to listen',
    });
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (child.exitCode !== null) throw new Error(`the service exited: ${output()}`);
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    output,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const [code] = await once(child, 'exit');
      return code as number | null;
    },
  };
}

/**
 * Runs the service with `env` (PORT included, as given) until it exits by itself, as a service
 * that refuses its configuration does; killed after `timeoutMs` otherwise.
 */
export async function runUntilExit(
  env: Record<string, string>,
  timeoutMs = 30_000,
): Promise<{ code: number | null; output: string }> {
  const { child, output } = spawnService(env);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const [code] = await once(child, 'exit');
  clearTimeout(timer);
  return { code: code as number | null, output: output() };
}

/**
 * How many customers with this `merchant_customer_id` the services hold together: each keeps
 * its own in-memory data, so a create that ran once is in exactly one of them.
 */
export async function customersAcross(
  services: readonly ServiceProcess[],
  merchantCustomerId: string,
): Promise<number> {
  let found = 0;
  for (const service of services) {
    const res = await fetch(`${service.url}/v1/customers/customers?page_size=100`);
    const { items } = (await res.json()) as { items: { merchant_customer_id: string }[] };
    found += items.filter((item) => item.merchant_customer_id === merchantCustomerId).length;
  }
  return found;
}
