import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from '@resourceful/test-support';
import { afterEach, describe, expect, it } from 'vitest';

const exampleDir = fileURLToPath(new URL('..', import.meta.url));

function startService(port: number): ChildProcess {
  return spawn(process.execPath, ['--conditions=source', '--import', 'tsx', 'src/server.ts'], {
    cwd: exampleDir,
    env: { ...process.env, PORT: String(port), NODE_ENV: 'production' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

describe('the service process', () => {
  let child: ChildProcess | undefined;

  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });

  it('listens on PORT and stops cleanly on SIGTERM', async () => {
    const port = await freePort();
    child = startService(port);
    let output = '';
    child.stdout?.on('data', (chunk) => {
      output += chunk;
    });
    await waitFor(() => output.includes('listening'), { timeoutMs: 30_000, what: 'listening' });
    const res = await fetch(`http://127.0.0.1:${port}/v1/vault/credit-cards`);
    expect(res.status).toBe(200);
    child.kill('SIGTERM');
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
