/**
 * @module Parses `kubectl proxy`'s flags with pflag's grammar: `--name=value`, `--name value`,
 * `-p 8001`, `-p=8001`, `-p8001`, booleans as `--flag` or `--flag=false`.
 */
import {
  DEFAULT_ACCEPT_HOSTS,
  DEFAULT_ACCEPT_PATHS,
  DEFAULT_REJECT_METHODS,
  DEFAULT_REJECT_PATHS,
} from './request-filter.js';

export interface ProxyCommandOptions {
  port: number;
  address: string;
  unixSocket: string;
  acceptHosts: string;
  acceptPaths: string;
  rejectPaths: string;
  rejectMethods: string;
  apiPrefix: string;
  www: string;
  wwwPrefix: string;
  disableFilter: boolean;
  /** `--keepalive` in milliseconds. */
  keepaliveMs: number;
  appendServerPath: boolean;
  kubeconfig?: string;
  context?: string;
  cluster?: string;
  user?: string;
  server?: string;
  token?: string;
  certificateAuthority?: string;
  clientCertificate?: string;
  clientKey?: string;
  username?: string;
  password?: string;
  tlsServerName?: string;
  insecureSkipTlsVerify: boolean;
  /** `--request-timeout` in milliseconds; 0 waits forever. */
  requestTimeoutMs: number;
  /** `--as`: the user to impersonate. */
  as?: string;
  /** `--as-group`, repeatable. */
  asGroups: string[];
  /** `--as-uid`. */
  asUid?: string;
  help: boolean;
}

type Kind = 'string' | 'stringArray' | 'bool' | 'int' | 'duration' | 'timeout';

interface FlagSpec {
  key: keyof ProxyCommandOptions;
  kind: Kind;
  short?: string;
  usage: string;
}

const FLAGS: Readonly<Record<string, FlagSpec>> = {
  'accept-hosts': {
    key: 'acceptHosts',
    kind: 'string',
    usage: 'Regular expression for hosts that the proxy should accept.',
  },
  'accept-paths': {
    key: 'acceptPaths',
    kind: 'string',
    usage: 'Regular expression for paths that the proxy should accept.',
  },
  address: { key: 'address', kind: 'string', usage: 'The IP address on which to serve on.' },
  'api-prefix': {
    key: 'apiPrefix',
    kind: 'string',
    usage: 'Prefix to serve the proxied API under.',
  },
  'append-server-path': {
    key: 'appendServerPath',
    kind: 'bool',
    usage:
      'If true, enables automatic path appending of the kube context server path to each request.',
  },
  'disable-filter': {
    key: 'disableFilter',
    kind: 'bool',
    usage:
      'If true, disable request filtering in the proxy. This is dangerous, and can leave you vulnerable to XSRF attacks, when used with an accessible port.',
  },
  keepalive: {
    key: 'keepaliveMs',
    kind: 'duration',
    usage:
      'keepalive specifies the keep-alive period for an active network connection. Set to 0 to disable keepalive.',
  },
  port: {
    key: 'port',
    kind: 'int',
    short: 'p',
    usage: 'The port on which to run the proxy. Set to 0 to pick a random port.',
  },
  'reject-methods': {
    key: 'rejectMethods',
    kind: 'string',
    usage: 'Regular expression for HTTP methods that the proxy should reject.',
  },
  'reject-paths': {
    key: 'rejectPaths',
    kind: 'string',
    usage: 'Regular expression for paths that the proxy should reject.',
  },
  'unix-socket': {
    key: 'unixSocket',
    kind: 'string',
    short: 'u',
    usage: 'Unix socket on which to run the proxy.',
  },
  www: {
    key: 'www',
    kind: 'string',
    short: 'w',
    usage: 'Also serve static files from the given directory under the specified prefix.',
  },
  'www-prefix': {
    key: 'wwwPrefix',
    kind: 'string',
    short: 'P',
    usage: 'Prefix to serve static files under, if static file directory is specified.',
  },
  kubeconfig: {
    key: 'kubeconfig',
    kind: 'string',
    usage: 'Path to the kubeconfig file to use for CLI requests.',
  },
  context: { key: 'context', kind: 'string', usage: 'The name of the kubeconfig context to use.' },
  cluster: { key: 'cluster', kind: 'string', usage: 'The name of the kubeconfig cluster to use.' },
  user: { key: 'user', kind: 'string', usage: 'The name of the kubeconfig user to use.' },
  server: {
    key: 'server',
    kind: 'string',
    short: 's',
    usage: 'The address and port of the Kubernetes API server.',
  },
  token: {
    key: 'token',
    kind: 'string',
    usage: 'Bearer token for authentication to the API server.',
  },
  'certificate-authority': {
    key: 'certificateAuthority',
    kind: 'string',
    usage: 'Path to a cert file for the certificate authority.',
  },
  'client-certificate': {
    key: 'clientCertificate',
    kind: 'string',
    usage: 'Path to a client certificate file for TLS.',
  },
  'client-key': { key: 'clientKey', kind: 'string', usage: 'Path to a client key file for TLS.' },
  username: {
    key: 'username',
    kind: 'string',
    usage: 'Username for basic authentication to the API server',
  },
  password: {
    key: 'password',
    kind: 'string',
    usage: 'Password for basic authentication to the API server',
  },
  'tls-server-name': {
    key: 'tlsServerName',
    kind: 'string',
    usage: 'Server name to use for server certificate validation.',
  },
  'insecure-skip-tls-verify': {
    key: 'insecureSkipTlsVerify',
    kind: 'bool',
    usage:
      "If true, the server's certificate will not be checked for validity. This will make your HTTPS connections insecure.",
  },
  'request-timeout': {
    key: 'requestTimeoutMs',
    kind: 'timeout',
    usage: 'The length of time to wait before giving up on a single server request (0 = forever).',
  },
  as: {
    key: 'as',
    kind: 'string',
    usage:
      'Username to impersonate for the operation. User could be a regular user or a service account in a namespace.',
  },
  'as-group': {
    key: 'asGroups',
    kind: 'stringArray',
    usage:
      'Group to impersonate for the operation, this flag can be repeated to specify multiple groups.',
  },
  'as-uid': { key: 'asUid', kind: 'string', usage: 'UID to impersonate for the operation.' },
  help: { key: 'help', kind: 'bool', short: 'h', usage: 'help for k8s-local-proxy' },
};

export function defaultCommandOptions(): ProxyCommandOptions {
  return {
    port: 8001,
    address: '127.0.0.1',
    unixSocket: '',
    acceptHosts: DEFAULT_ACCEPT_HOSTS,
    acceptPaths: DEFAULT_ACCEPT_PATHS,
    rejectPaths: DEFAULT_REJECT_PATHS,
    rejectMethods: DEFAULT_REJECT_METHODS,
    apiPrefix: '/',
    www: '',
    wwwPrefix: '/static/',
    disableFilter: false,
    keepaliveMs: 0,
    appendServerPath: false,
    insecureSkipTlsVerify: false,
    requestTimeoutMs: 0,
    asGroups: [],
    help: false,
  };
}

/** Thrown for a bad command line; the message is what the CLI prints after `error: `. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const UNITS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's `time.ParseDuration` (`0`, `30s`, `1m30s`, `500ms`) → milliseconds. */
export function parseGoDuration(text: string): number {
  if (text === '0') return 0;
  // `\u00b5` is `µ`, escaped so the CLI bundle stays ASCII (see tsup.config.ts).
  const pattern = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|ms|s|m|h)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
    total += Number(match[1]) * (UNITS[match[2] ?? 's'] ?? 0);
    consumed = pattern.lastIndex;
  }
  if (text === '' || consumed !== text.length) {
    throw new UsageError(`invalid duration "${text}" (examples: 0, 30s, 1m30s, 500ms)`);
  }
  return total;
}

function parseBool(text: string, flag: string): boolean {
  if (/^(1|t|true|T|TRUE|True)$/.test(text)) return true;
  if (/^(0|f|false|F|FALSE|False)$/.test(text)) return false;
  throw new UsageError(`invalid argument "${text}" for "--${flag}" flag: expected true or false`);
}

function assign(options: ProxyCommandOptions, name: string, spec: FlagSpec, value: string) {
  const target = options as unknown as Record<string, unknown>;
  switch (spec.kind) {
    case 'bool':
      target[spec.key] = parseBool(value, name);
      return;
    case 'int': {
      if (!/^[0-9]+$/.test(value) || Number(value) > 65535) {
        throw new UsageError(
          `invalid argument "${value}" for "--${name}" flag: expected a port from 0 to 65535`,
        );
      }
      target[spec.key] = Number(value);
      return;
    }
    case 'duration':
      try {
        target[spec.key] = parseGoDuration(value);
      } catch {
        throw new UsageError(
          `invalid argument "${value}" for "--${name}" flag: expected a duration such as 30s`,
        );
      }
      return;
    case 'timeout':
      // client-go's ParseTimeout: a bare non-negative integer is seconds, else a Go duration.
      if (/^\+?[0-9]+$/.test(value)) {
        target[spec.key] = Number(value) * 1000;
        return;
      }
      try {
        target[spec.key] = parseGoDuration(value);
      } catch {
        throw new UsageError(
          'Invalid timeout value. Timeout must be a single integer in seconds, or an integer followed by a corresponding time unit (e.g. 1s | 2m | 3h)',
        );
      }
      return;
    case 'stringArray':
      (target[spec.key] as string[]).push(value);
      return;
    default:
      target[spec.key] = value;
  }
}

const SHORT = new Map(
  Object.entries(FLAGS)
    .filter(([, spec]) => spec.short !== undefined)
    .map(([name, spec]) => [spec.short as string, name]),
);

/** Parses the arguments after the program name. Throws UsageError for anything unknown. */
export function parseProxyArgs(argv: readonly string[]): ProxyCommandOptions {
  const options = defaultCommandOptions();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    let name: string;
    let inline: string | undefined;
    if (arg.startsWith('--')) {
      const eq = arg.indexOf('=');
      name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      inline = eq === -1 ? undefined : arg.slice(eq + 1);
      if (!Object.hasOwn(FLAGS, name)) throw new UsageError(`unknown flag: --${name}`);
    } else if (arg.startsWith('-') && arg.length > 1) {
      const letter = arg[1] ?? '';
      const long = SHORT.get(letter);
      if (long === undefined) throw new UsageError(`unknown shorthand flag: '${letter}' in ${arg}`);
      name = long;
      const rest = arg.slice(2);
      inline = rest === '' ? undefined : rest.startsWith('=') ? rest.slice(1) : rest;
    } else {
      throw new UsageError(`unexpected argument "${arg}"; k8s-local-proxy takes flags only`);
    }
    const spec = FLAGS[name] as FlagSpec;
    if (spec.kind === 'bool') {
      assign(options, name, spec, inline ?? 'true');
      continue;
    }
    if (inline === undefined) {
      const next = argv[i + 1];
      if (next === undefined) throw new UsageError(`flag needs an argument: --${name}`);
      inline = next;
      i++;
    }
    assign(options, name, spec, inline);
  }
  return options;
}

/** The `--help` text, laid out as kubectl's. */
export function usage(): string {
  const defaults = defaultCommandOptions() as unknown as Record<string, unknown>;
  const lines = Object.entries(FLAGS)
    .filter(([name]) => name !== 'help')
    .map(([name, spec]) => {
      const value = defaults[spec.key];
      const shown =
        spec.kind === 'duration'
          ? `${Number(value ?? 0) / 1000}s`
          : spec.kind === 'string'
            ? `'${value ?? ''}'`
            : spec.kind === 'stringArray'
              ? '[]'
              : String(value ?? (spec.kind === 'bool' ? false : ''));
      const flag = spec.short ? `-${spec.short}, --${name}` : `    --${name}`;
      return `    ${flag}=${shown}:\n\t${spec.usage}\n`;
    });
  return [
    'Serves the Kubernetes API on a local port, adding the credentials of your kubeconfig (or the',
    'in-cluster service account): a drop-in for kubectl proxy.',
    '',
    'Examples:',
    '  # Proxy the whole API on a free port (the port is printed on stdout)',
    '  k8s-local-proxy --port=0',
    '',
    '  # Reach a service through the control plane',
    '  curl localhost:8001/api/v1/namespaces/default/services/web:http/proxy/',
    '',
    'Options:',
    ...lines,
    'Usage:',
    '  k8s-local-proxy [--port=PORT] [--www=static-dir] [--www-prefix=prefix] [--api-prefix=prefix] [options]',
    '',
  ].join('\n');
}
