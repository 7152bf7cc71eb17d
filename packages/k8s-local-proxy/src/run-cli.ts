/**
 * @module The whole command as the bin runs it: flags from `argv`, output on the process's
 * stdout and stderr, the exit code set, and SIGINT / SIGTERM closing the proxy (exit 0). Exported
 * so the deprecated `k8s-service-proxy` bin of @resourceful/k8s-service-proxy can run it.
 */
import { runProxyCommand } from './run-proxy-command.js';

export async function runCli(argv: readonly string[]): Promise<void> {
  const { proxy, exitCode } = await runProxyCommand(argv, {
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
