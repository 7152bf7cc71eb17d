/**
 * @module The `k8s-local-proxy` bin: a drop-in for `kubectl proxy`. Stops cleanly on SIGINT
 * and SIGTERM.
 */
import * as nodeModule from 'node:module';

async function main(): Promise<void> {
  // Node 22+ keeps compiled code between runs, which shortens every later start; the rest of
  // the CLI is imported after it is switched on.
  (nodeModule as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const { runCli } = await import('./run-cli.js');
  await runCli(process.argv.slice(2));
}

main().catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
