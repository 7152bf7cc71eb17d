/**
 * @module Exec credential plugins (`client.authentication.k8s.io/v1` and `v1beta1`), run the way
 * client-go's exec authenticator runs them: on the first request that needs a credential, with
 * the stanza's `args` and `env` on top of the process environment and `KUBERNETES_EXEC_INFO`
 * describing the call; the credential is kept until its `expirationTimestamp`, dropped after a
 * 401, and concurrent requests share one run. A failure is not kept: the next request runs the
 * plugin again. Plugins are started without a shell, with an empty stdin (as client-go runs a
 * plugin that is not interactive), and stopped after a timeout: SIGTERM, then SIGKILL.
 * @see https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { ApiError } from '@resourceful/error-envelope';
import type { ExecConfig } from './cluster-config.js';
import { keyPairProblem } from './key-pair.js';

/** What a plugin gave: a bearer token, or a client certificate and key (PEM). */
export interface ExecCredential {
  readonly token?: string;
  readonly clientCertificate?: string;
  readonly clientKey?: string;
  /** Milliseconds since the epoch; `undefined` keeps the credential until a 401. */
  readonly expiresAt?: number;
}

/** The cluster details a plugin with `provideClusterInfo` receives (ExecCredential spec.cluster). */
export interface ExecClusterInfo {
  server: string;
  'tls-server-name'?: string;
  'insecure-skip-tls-verify'?: boolean;
  'certificate-authority-data'?: string;
  'proxy-url'?: string;
  /** The cluster's `client.authentication.k8s.io/exec` extension (`ExecConfig.clusterConfig`). */
  config?: unknown;
}

export interface ExecCredentialSourceOptions {
  /** Kill the plugin after this long. @default 60000 */
  timeoutMs?: number;
  /** The environment the plugin's `env` is laid on. @default process.env */
  env?: Readonly<Record<string, string | undefined>>;
  cluster?: ExecClusterInfo;
  /** Clock, for expiry. @default Date.now */
  now?: () => number;
}

export interface ExecCredentialSource {
  /** The cached credential, or the result of one (shared) plugin run. Rejects with an ApiError. */
  get(): Promise<ExecCredential>;
  /** The control plane refused `credential` (401): drop it and run the plugin again now. */
  rejected(credential: ExecCredential): void;
}

export const DEFAULT_EXEC_TIMEOUT_MS = 60_000;
/** Largest plugin output read; an ExecCredential is a few KiB. */
const MAX_OUTPUT_BYTES = 1024 * 1024;
/** How long a plugin past its timeout gets to exit on SIGTERM before it is killed outright. */
const KILL_GRACE_MS = 1000;

function pluginFailure(config: ExecConfig, reason: string, code: string): ApiError {
  return ApiError.internal(
    `The credential plugin "${config.command}" ${reason}; no request was sent to the control plane.`,
    { innererror: { code } },
  );
}

/**
 * What Go's `time.Parse(time.RFC3339, …)` takes (client-go reads `expirationTimestamp` with it):
 * `T` and `Z` in capitals, seconds and a zone required (`Z` or `±hh:mm`), the date a real one, a
 * fraction after `.` or `,`, and, as Go's general parser allows, a one-digit hour and a zone hour
 * up to 24. Milliseconds since the epoch, or `undefined` for anything else (`Date.parse` takes
 * far more: a bare date, no zone, `Wed, 25 Nov 2026 …`).
 */
const GO_RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{1,2}):(\d{2}):(\d{2})(?:[.,](\d+))?(?:Z|([+-])(\d{2}):(\d{2}))$/;

function parseGoRfc3339(value: unknown): number | undefined {
  const parts = typeof value === 'string' ? GO_RFC3339.exec(value) : null;
  if (parts === null) return undefined;
  const [year, month, day, hour, minute, second] = parts.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const [fraction = '', sign, zoneHour = '0', zoneMinute = '0'] = parts.slice(7);
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  if (Number(zoneHour) > 24 || Number(zoneMinute) > 60) return undefined;
  const time = new Date(0);
  time.setUTCFullYear(year, month - 1, day);
  // A day the month does not have (February 30) rolls over: Go refuses it.
  if (time.getUTCMonth() !== month - 1 || time.getUTCDate() !== day) return undefined;
  time.setUTCHours(hour, minute, second, Number(fraction.slice(0, 3).padEnd(3, '0')));
  const offsetMinutes = (Number(zoneHour) * 60 + Number(zoneMinute)) * (sign === '-' ? -1 : 1);
  return time.getTime() - offsetMinutes * 60_000;
}

/** Reads the plugin's stdout as client-go does; throws a message naming what is wrong. */
export function parseExecCredential(
  stdout: string,
  apiVersion: string,
): ExecCredential & { problem?: undefined } {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    throw new Error('printed output that is not JSON');
  }
  const object = value as Record<string, unknown> | null;
  if (typeof object !== 'object' || object === null || object.kind !== 'ExecCredential') {
    throw new Error('printed JSON that is not an ExecCredential');
  }
  if (object.apiVersion !== apiVersion) {
    throw new Error(`answered apiVersion ${String(object.apiVersion)}, expected ${apiVersion}`);
  }
  const status = object.status as Record<string, unknown> | undefined;
  if (typeof status !== 'object' || status === null) {
    throw new Error('printed an ExecCredential without status');
  }
  const token = typeof status.token === 'string' && status.token !== '' ? status.token : undefined;
  const cert = status.clientCertificateData;
  const key = status.clientKeyData;
  const hasCert = typeof cert === 'string' && cert !== '';
  const hasKey = typeof key === 'string' && key !== '';
  if (hasCert !== hasKey) {
    throw new Error(
      'returned a client certificate without its key (or a key without its certificate)',
    );
  }
  if (token === undefined && !hasCert) {
    throw new Error('returned neither a token nor a client certificate and key');
  }
  const pairProblem = hasCert ? keyPairProblem(cert as string, key as string) : undefined;
  if (pairProblem !== undefined) {
    throw new Error(`returned a client certificate and key that cannot be used (${pairProblem})`);
  }
  let expiresAt: number | undefined;
  if (status.expirationTimestamp !== undefined && status.expirationTimestamp !== null) {
    expiresAt = parseGoRfc3339(status.expirationTimestamp);
    if (expiresAt === undefined)
      throw new Error('returned an expirationTimestamp that is not RFC 3339');
  }
  return {
    ...(token === undefined ? {} : { token }),
    ...(hasCert ? { clientCertificate: cert as string, clientKey: key as string } : {}),
    ...(expiresAt === undefined ? {} : { expiresAt }),
  };
}

/** Runs the plugin once. Rejects with a 500 ApiError naming the cause (never its output). */
export function runExecPlugin(
  config: ExecConfig,
  options: ExecCredentialSourceOptions = {},
): Promise<ExecCredential> {
  // Requests arrive without a terminal, and the proxy never lends its own to a plugin.
  if (config.interactiveMode === 'Always') {
    return Promise.reject(
      pluginFailure(
        config,
        'needs a terminal (interactiveMode: Always), which a proxy cannot give it',
        'CREDENTIAL_PLUGIN_INTERACTIVE',
      ),
    );
  }
  const execInfo = {
    apiVersion: config.apiVersion,
    kind: 'ExecCredential',
    spec: {
      ...(config.provideClusterInfo && options.cluster ? { cluster: options.cluster } : {}),
      interactive: false,
    },
  };
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env) };
  for (const { name, value } of config.env ?? []) env[name] = value;
  env.KUBERNETES_EXEC_INFO = JSON.stringify(execInfo);
  const timeoutMs = options.timeoutMs ?? DEFAULT_EXEC_TIMEOUT_MS;
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      outcome();
    };
    const fail = (reason: string, code: string) =>
      settle(() => reject(pluginFailure(config, reason, code)));
    let child: ChildProcess;
    try {
      // stdin is /dev/null, as client-go gives a plugin that is not interactive (a plugin that
      // reads it gets end of file at once); stderr is not kept (never echoed, and a plugin that
      // logs a lot must not hit the output limit).
      child = spawn(config.command, [...(config.args ?? [])], {
        env,
        stdio: ['ignore', 'pipe', 'ignore'],
        windowsHide: true,
        shell: false,
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error';
      return reject(
        pluginFailure(config, `could not be run (${code})`, 'CREDENTIAL_PLUGIN_FAILED'),
      );
    }
    /** SIGTERM, then SIGKILL if it is still there a moment later (it may ignore SIGTERM). */
    const stop = () => {
      child.stdout?.destroy();
      child.kill('SIGTERM');
      setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }, KILL_GRACE_MS).unref();
    };
    const deadline =
      timeoutMs > 0
        ? setTimeout(() => {
            fail(`did not finish within ${timeoutMs} ms`, 'CREDENTIAL_PLUGIN_TIMEOUT');
            stop();
          }, timeoutMs)
        : undefined;
    const chunks: Buffer[] = [];
    let size = 0;
    child.stdout?.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT_BYTES) {
        fail('printed more than 1 MiB', 'CREDENTIAL_PLUGIN_BAD_OUTPUT');
        stop();
        return;
      }
      chunks.push(chunk);
    });
    child.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') {
        const hint = config.installHint ? `: ${config.installHint.trim()}` : '';
        fail(`is not installed${hint}`, 'CREDENTIAL_PLUGIN_MISSING');
      } else {
        fail(`could not be run (${error.code ?? 'error'})`, 'CREDENTIAL_PLUGIN_FAILED');
      }
    });
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      if (code === 0) {
        settle(() => {
          try {
            resolve(parseExecCredential(Buffer.concat(chunks).toString('utf8'), config.apiVersion));
          } catch (problem) {
            reject(
              pluginFailure(config, (problem as Error).message, 'CREDENTIAL_PLUGIN_BAD_OUTPUT'),
            );
          }
        });
      } else if (code !== null) {
        fail(`exited with code ${code}`, 'CREDENTIAL_PLUGIN_FAILED');
      } else {
        fail(`could not be run (${signal ?? 'error'})`, 'CREDENTIAL_PLUGIN_FAILED');
      }
    });
  });
}

/** Caches one plugin's credential; see the module comment for the rules. */
export function execCredentialSource(
  config: ExecConfig,
  options: ExecCredentialSourceOptions = {},
): ExecCredentialSource {
  const now = options.now ?? Date.now;
  let cached: ExecCredential | undefined;
  let running: Promise<ExecCredential> | undefined;
  const run = (): Promise<ExecCredential> => {
    if (running !== undefined) return running;
    const attempt = runExecPlugin(config, options).then(
      (credential) => {
        cached = credential;
        return credential;
      },
      (error: unknown) => {
        cached = undefined;
        throw error;
      },
    );
    running = attempt;
    const clear = () => {
      if (running === attempt) running = undefined;
    };
    attempt.then(clear, clear);
    return attempt;
  };
  return {
    get() {
      if (running !== undefined) return running;
      if (cached !== undefined && (cached.expiresAt === undefined || cached.expiresAt > now())) {
        return Promise.resolve(cached);
      }
      return run();
    },
    rejected(credential) {
      // Only the credential in use is dropped: a 401 for an older one says nothing of the new.
      if (credential !== cached || running !== undefined) return;
      cached = undefined;
      run().catch(() => {
        // Reported to the next request, which runs the plugin again.
      });
    },
  };
}
