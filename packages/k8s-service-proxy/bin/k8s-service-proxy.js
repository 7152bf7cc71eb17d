#!/usr/bin/env node
// Deprecated: the kubectl-proxy compatible CLI moved to @resourceful/k8s-local-proxy. This bin
// stays for one minor version and runs that package's CLI when it is installed.
process.stderr.write(
  'Warning: the k8s-service-proxy command is deprecated and will be removed in the next minor version; install @resourceful/k8s-local-proxy and run k8s-local-proxy instead.\n',
);
import('@resourceful/k8s-local-proxy').then(
  ({ runCli }) => runCli(process.argv.slice(2)),
  (error) => {
    if (
      error?.code === 'ERR_MODULE_NOT_FOUND' &&
      /'@resourceful\/k8s-local-proxy'/.test(error.message)
    ) {
      process.stderr.write(
        'error: the command now lives in @resourceful/k8s-local-proxy: npm install @resourceful/k8s-local-proxy\n',
      );
      process.exit(1);
    }
    throw error;
  },
);
