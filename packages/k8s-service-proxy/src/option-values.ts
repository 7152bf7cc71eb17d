/**
 * @module Construction checks the factories of this package share: the credentials option and
 * the service a relay targets. Every failure is an option-checks `OptionError` (a `TypeError`
 * with a stable `code`) naming the option.
 */
import { invalidOption, missingOption, oneOfOption } from '@resourceful/option-checks';
import type { ClusterCredentials } from './cluster-credentials.js';
import { isNamespaceName, isPortName, isServiceName } from './kubernetes-names.js';
import type { ServiceScheme } from './service-proxy-path.js';

const CREDENTIALS_EXPECTED =
  'the ClusterCredentials that findClusterCredentials() or createClusterCredentials() return';

/** The `credentials` option: required, and shaped as the resolver this package builds. */
export function credentialsOption(factory: string, value: unknown): ClusterCredentials {
  if (value === undefined) {
    missingOption(factory, 'credentials', CREDENTIALS_EXPECTED);
  }
  const candidate = value as Partial<Record<keyof ClusterCredentials, unknown>> | null;
  if (
    typeof candidate !== 'object' ||
    candidate === null ||
    typeof candidate.requestAuth !== 'function' ||
    typeof candidate.rejected !== 'function' ||
    typeof candidate.close !== 'function' ||
    !(candidate.server instanceof URL)
  ) {
    invalidOption(factory, 'credentials', CREDENTIALS_EXPECTED, value);
  }
  return value as ClusterCredentials;
}

const NAMESPACE_EXPECTED =
  'a Kubernetes namespace name (RFC 1123 label: lower-case letters, digits and "-", 63 characters at most)';
const SERVICE_EXPECTED =
  'a Kubernetes service name (RFC 1035 label: lower-case letters, digits and "-", starting with a letter, 63 characters at most)';
const PORT_EXPECTED = 'a port name (IANA service name) or a number from 1 to 65535';

/** The fixed target of a relay, checked: `undefined` parts are left to route parameters. */
export interface TargetOptions {
  namespace: string | undefined;
  service: string | undefined;
  port: string | undefined;
  scheme: ServiceScheme | undefined;
}

/**
 * Checks `namespace`, `service`, `port` and `scheme`. The namespace defaults to the credentials'
 * (then `default`); `service` is required unless a route parameter gives it (`fromParams`).
 */
export function targetOptions(
  factory: string,
  options: { namespace?: unknown; service?: unknown; port?: unknown; scheme?: unknown },
  credentials: ClusterCredentials,
  fromParams: { namespace?: unknown; service?: unknown } = {},
): TargetOptions {
  let namespace: string | undefined;
  if (options.namespace !== undefined) {
    if (typeof options.namespace !== 'string' || !isNamespaceName(options.namespace)) {
      invalidOption(factory, 'namespace', NAMESPACE_EXPECTED, options.namespace);
    }
    namespace = options.namespace;
  } else if (
    fromParams.namespace === undefined &&
    credentials.namespace !== undefined &&
    credentials.namespace !== ''
  ) {
    if (!isNamespaceName(credentials.namespace)) {
      invalidOption(
        factory,
        'namespace',
        NAMESPACE_EXPECTED,
        credentials.namespace,
        ' It was taken from the credentials (the kubeconfig context or service account); pass "namespace" to choose another.',
      );
    }
    namespace = credentials.namespace;
  } else {
    namespace = 'default';
  }
  if (options.service === undefined) {
    if (fromParams.service === undefined) {
      missingOption(factory, 'service', SERVICE_EXPECTED);
    }
  } else if (typeof options.service !== 'string' || !isServiceName(options.service)) {
    invalidOption(factory, 'service', SERVICE_EXPECTED, options.service);
  }
  const { port } = options;
  if (
    port !== undefined &&
    !(
      (typeof port === 'string' || (typeof port === 'number' && Number.isInteger(port))) &&
      isPortName(String(port))
    )
  ) {
    invalidOption(factory, 'port', PORT_EXPECTED, port);
  }
  return {
    namespace,
    service: options.service as string | undefined,
    port: port === undefined ? undefined : String(port),
    scheme:
      options.scheme === undefined
        ? undefined
        : oneOfOption<ServiceScheme>(factory, 'scheme', options.scheme, ['http', 'https'], 'http'),
  };
}
