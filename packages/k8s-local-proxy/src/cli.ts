/**
 * @module The `k8s-local-proxy` bin: a drop-in for `kubectl proxy`. Stops cleanly on SIGINT
 * and SIGTERM.
 */
import * as nodeModule from 'node:module';

async function main(): Promise<void> {
  // Node 22+ keeps compiled code between runs, which shortens every later start; the rest of
  // the CLI is imported after it is switched on.
  (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const { runProxyCommand } = await import('./run-proxy-command.js');
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
