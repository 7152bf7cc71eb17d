/**
 * @module The `k8s-local-proxy` bin: a drop-in for `kubectl proxy`. Stops cleanly on SIGINT
 * and SIGTERM.
 */
import { runCli } from './run-cli.js';

runCli(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
