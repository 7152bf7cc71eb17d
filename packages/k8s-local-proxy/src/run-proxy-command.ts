/**
 * @module What the `k8s-local-proxy` bin does, as a function the tests can call: parse the
 * flags, find credentials as kubectl would, listen, print `Starting to serve on HOST:PORT`.
 */
import { findClusterCredentials } from '@resourceful/k8s-service-proxy';
import { invalidOption } from '@resourceful/option-checks';
import { parseProxyArgs, UsageError, usage } from './cli-options.js';
import { createLocalProxy, type LocalProxy } from './local-proxy.js';

export interface CommandIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env?: Readonly<Record<string, string | undefined>>;
}

export interface RunningCommand {
  /** `undefined` when the command ended at once (help or an error). */
  readonly proxy: LocalProxy | undefined;
  /** The exit code when the command ended at once. */
  readonly exitCode: number;
}

/** Runs the command; the proxy keeps serving until `proxy.close()`. */
export async function runProxyCommand(
  argv: readonly string[],
  io: CommandIo,
): Promise<RunningCommand> {
  // Checked outside the try: a wrong call is the caller's mistake, not the command line's.
  if (!Array.isArray(argv) || !argv.every((arg) => typeof arg === 'string')) {
    invalidOption('runProxyCommand', 'argv', 'an array of strings (the flags)', argv);
  }
  if (
    typeof io !== 'object' ||
    io === null ||
    typeof io.stdout !== 'function' ||
    typeof io.stderr !== 'function'
  ) {
    invalidOption('runProxyCommand', 'io', 'an object with stdout and stderr functions', io);
  }
  try {
    const options = parseProxyArgs(argv);
    if (options.help) {
      io.stdout(usage());
      return { proxy: undefined, exitCode: 0 };
    }
    const credentials = findClusterCredentials({
      kubeconfig: options.kubeconfig,
      context: options.context,
      cluster: options.cluster,
      user: options.user,
      server: options.server,
      token: options.token,
      caFile: options.certificateAuthority,
      // Paths, not PEMs: kubectl merges these flags into the kubeconfig user field by field.
      clientCertFile: options.clientCertificate,
      clientKeyFile: options.clientKey,
      username: options.username,
      password: options.password,
      tlsServerName: options.tlsServerName,
      insecureSkipTlsVerify: options.insecureSkipTlsVerify ? true : undefined,
      keepAliveMs: options.keepaliveMs,
      impersonate:
        options.as === undefined && options.asUid === undefined && options.asGroups.length === 0
          ? undefined
          : {
              ...(options.as === undefined ? {} : { user: options.as }),
              ...(options.asUid === undefined ? {} : { uid: options.asUid }),
              ...(options.asGroups.length === 0 ? {} : { groups: options.asGroups }),
            },
      // kubectl merges --server and --token into the kubeconfig rather than ignoring it.
      explicitServerAlone: false,
      env: io.env,
      onWarning: (message) => io.stderr(`Warning: ${message}\n`),
    });
    if (credentials === undefined) {
      throw new UsageError(
        'no cluster credentials: pass --kubeconfig or --server and --token, set KUBECONFIG, create ~/.kube/config, or run in a cluster',
      );
    }
    const proxy = createLocalProxy({
      credentials,
      port: options.port,
      address: options.address,
      unixSocket: options.unixSocket,
      acceptHosts: options.acceptHosts,
      acceptPaths: options.acceptPaths,
      rejectPaths: options.rejectPaths,
      rejectMethods: options.rejectMethods,
      apiPrefix: options.apiPrefix,
      www: options.www,
      wwwPrefix: options.wwwPrefix,
      disableFilter: options.disableFilter,
      appendServerPath: options.appendServerPath,
      timeoutMs: options.requestTimeoutMs,
      log: io.stderr,
    });
    if (options.disableFilter) {
      io.stderr(
        'Warning: Request filter disabled, your proxy is vulnerable to XSRF attacks, please be cautious\n',
      );
    }
    let where: string;
    try {
      where = await proxy.listen();
    } catch (error) {
      credentials.close();
      throw new UsageError(
        `cannot listen on ${options.unixSocket || `${options.address}:${options.port}`} (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    io.stdout(`Starting to serve on ${where}\n`);
    return { proxy, exitCode: 0 };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr(`error: ${message}\n`);
    if (error instanceof UsageError && /flag|argument/.test(message)) {
      io.stderr("See 'k8s-local-proxy --help' for usage.\n");
    }
    return { proxy: undefined, exitCode: 1 };
  }
}
