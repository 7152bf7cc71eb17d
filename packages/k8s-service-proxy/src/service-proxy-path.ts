/**
 * @module Builds `{base}/api/v1/namespaces/{namespace}/services/{[scheme:]service[:port]}/proxy
 * [/{suffix}][?{query}]` (spec: "Cluster control-plane interface").
 */
import { assertOptionsObject, OPTION_ERROR_CODES } from '@resourceful/option-checks';
import { isNamespaceName, isPortName, isServiceName } from './kubernetes-names.js';
import { encodeSuffixSegments, hasControlCharacter, suffixProblem } from './safe-suffix.js';

export type ServiceScheme = 'http' | 'https';

export type QueryInput =
  | string
  | URLSearchParams
  | Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

export interface ServiceProxyPathOptions {
  namespace: string;
  service: string;
  /** Port name or number; left out of the path when not given (the service's only port). */
  port?: string | number;
  /** Scheme toward the service; left out when not given (the control plane uses `http`). */
  scheme?: ServiceScheme;
  /**
   * Raw segments (`['files', 'a b']`, encoded here), or an already-encoded path (`'/files/a%20b'`)
   * that is checked: dot segments, encoded or not, and backslashes are refused.
   */
  suffix?: string | readonly string[];
  /**
   * Already-encoded query text (`a=1&b=2`, without `?`), or parameters that are encoded here.
   */
  query?: QueryInput;
}

/**
 * Thrown for an invalid part of a service proxy path; `target` names the option, `code` is
 * option-checks' `ERR_RESOURCEFUL_INVALID_OPTION` (a value out of range).
 */
export class ServiceProxyPathError extends RangeError {
  override readonly name = 'ServiceProxyPathError';
  readonly code = OPTION_ERROR_CODES.invalidOption;
  constructor(
    message: string,
    readonly target: keyof ServiceProxyPathOptions,
  ) {
    super(message);
  }
}

function check(ok: boolean, message: string, target: keyof ServiceProxyPathOptions): void {
  if (!ok) throw new ServiceProxyPathError(message, target);
}

/** `service`, `https:service`, `service:port` or `https:service:port`. */
export function serviceReference(
  options: Pick<ServiceProxyPathOptions, 'service' | 'port' | 'scheme'>,
) {
  assertOptionsObject('serviceReference', options);
  const { service, port, scheme } = options;
  check(
    typeof service === 'string' && isServiceName(service),
    'service must be a Kubernetes service name (RFC 1035 label: lower-case letters, digits and "-", starting with a letter, 63 characters at most)',
    'service',
  );
  const portText = port === undefined ? undefined : String(port);
  check(
    portText === undefined ||
      ((typeof port === 'string' || typeof port === 'number') && isPortName(portText)),
    'port must be a port name (IANA service name) or a number from 1 to 65535',
    'port',
  );
  check(
    scheme === undefined || scheme === 'http' || scheme === 'https',
    'scheme must be "http" or "https"',
    'scheme',
  );
  return `${scheme === undefined ? '' : `${scheme}:`}${service}${portText === undefined ? '' : `:${portText}`}`;
}

/** The proxy prefix of a service, without suffix: `/api/v1/namespaces/ns/services/svc/proxy`. */
export function serviceProxyPrefix(
  options: Pick<ServiceProxyPathOptions, 'namespace' | 'service' | 'port' | 'scheme'>,
): string {
  assertOptionsObject('serviceProxyPrefix', options);
  check(
    typeof options.namespace === 'string' && isNamespaceName(options.namespace),
    'namespace must be a Kubernetes namespace name (RFC 1123 label: lower-case letters, digits and "-", 63 characters at most)',
    'namespace',
  );
  return `/api/v1/namespaces/${options.namespace}/services/${serviceReference(options)}/proxy`;
}

function encodeSuffix(suffix: ServiceProxyPathOptions['suffix']): string {
  if (suffix === undefined || suffix === '') return '';
  if (Array.isArray(suffix)) {
    try {
      return encodeSuffixSegments(suffix);
    } catch (error) {
      throw new ServiceProxyPathError((error as Error).message, 'suffix');
    }
  }
  check(typeof suffix === 'string', 'suffix must be a string or an array of strings', 'suffix');
  const text = (suffix as string).startsWith('/') ? (suffix as string) : `/${suffix as string}`;
  const problem = suffixProblem(text);
  check(problem === undefined, `suffix ${problem}`, 'suffix');
  check(
    !/[\s"<>^`{|}]/.test(text),
    'suffix contains characters that must be percent-encoded',
    'suffix',
  );
  return text;
}

function encodeQuery(query: QueryInput | undefined): string {
  if (query === undefined) return '';
  if (typeof query === 'string') {
    const text = query.startsWith('?') ? query.slice(1) : query;
    check(
      !/[\s#"<>`{}]/.test(text) && !hasControlCharacter(text),
      'query must be encoded (no spaces, "#" or control characters)',
      'query',
    );
    return text === '' ? '' : `?${text}`;
  }
  const params = new URLSearchParams();
  if (query instanceof URLSearchParams) {
    for (const [name, value] of query) params.append(name, value);
  } else {
    check(
      typeof query === 'object' && query !== null,
      'query must be a string or an object',
      'query',
    );
    for (const [name, value] of Object.entries(query)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) params.append(name, String(item));
      else params.append(name, String(value));
    }
  }
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/**
 * The path (and query) of a service proxy request, relative to the control plane's base URL.
 * @example serviceProxyPath({ namespace: 'payments', service: 'ledger', port: 'http', suffix: ['v1', 'entries'], query: { page: 2 } })
 * // → '/api/v1/namespaces/payments/services/ledger:http/proxy/v1/entries?page=2'
 */
export function serviceProxyPath(options: ServiceProxyPathOptions): string {
  assertOptionsObject('serviceProxyPath', options);
  return serviceProxyPrefix(options) + encodeSuffix(options.suffix) + encodeQuery(options.query);
}

/**
 * `serviceProxyPath` appended to a base URL (which may carry a path, as behind a gateway). The
 * suffix is checked before the `URL` is built, so it cannot climb out of the proxy prefix.
 */
export function serviceProxyUrl(base: string | URL, options: ServiceProxyPathOptions): URL {
  assertOptionsObject('serviceProxyUrl', options);
  const path = serviceProxyPath(options);
  const baseUrl = new URL(String(base));
  const basePath = baseUrl.pathname.replace(/\/+$/, '');
  const url = new URL(baseUrl.origin);
  const queryStart = path.indexOf('?');
  url.pathname = basePath + (queryStart === -1 ? path : path.slice(0, queryStart));
  if (queryStart !== -1) url.search = path.slice(queryStart);
  const prefix = basePath + serviceProxyPrefix(options);
  if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
    // Defence in depth: never happens with the checks above.
    throw new ServiceProxyPathError('suffix leaves the service proxy prefix', 'suffix');
  }
  return url;
}
