/**
 * @module The `k8s-local-proxy` bin: a drop-in for `kubectl proxy`. Stops cleanly on SIGINT
 * and SIGTERM.
 */
import { runProxyCommand } from './run-proxy-command.js';

async function main(): Promise<void> {
  const { proxy, exitCode } = await runProxyCommand(process.argv.slice(2), {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  });
  if (proxy === undefined) {
    process.exitCode = exitCode;
    return;
  }
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    proxy.close().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
