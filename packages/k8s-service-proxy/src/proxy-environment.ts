/**
 * @module Which proxy reaches the control plane: the cluster's `proxy-url` when set (whatever
 * `NO_PROXY` says, as client-go), else `HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY` read as Go's
 * `httpproxy.FromEnvironment` reads them, with client-go's CIDR entries in `NO_PROXY`. Written
 * here rather than taken from `proxy-from-env`, which reads the lower-case names first, also
 * reads `npm_config_*` variables and has no CIDR entries: kubectl users' environments would
 * route differently. Loopback servers are never proxied from the environment (Go's rule).
 * @see https://pkg.go.dev/golang.org/x/net/http/httpproxy#Config.ProxyFunc
 */
import { BlockList, isIP } from 'node:net';
import { CLUSTER_ERROR_CODES, ClusterConfigError } from './cluster-errors.js';

type Environment = Readonly<Record<string, string | undefined>>;

/** Go's `getEnvAny`: the upper-case name first, then the lower-case one; which one was set. */
function variable(env: Environment, name: string): { name: string; value: string } {
  const upper = env[name];
  if (upper) return { name, value: upper };
  const lower = name.toLowerCase();
  return { name: lower, value: env[lower] || '' };
}

/**
 * A proxy URL, or why it cannot be used, in client-go's words (`parseProxyURL` in clientcmd).
 * A bare `host:port` means `http://host:port`, as Go's `httpproxy` reads the environment;
 * with `bareHostIsHttp` false (a kubeconfig's `proxy-url`, which clientcmd parses as it is)
 * it is refused, as kubectl refuses it.
 */
export function parseProxyUrl(text: string, bareHostIsHttp = true): URL | string {
  const hasScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text);
  if (!hasScheme && !bareHostIsHttp) return withoutScheme(text);
  const withScheme = hasScheme ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return `could not parse: ${redactProxyUrl(text)}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'socks5:') {
    return unsupportedScheme(url.protocol.replace(/:$/, ''));
  }
  return url;
}

/** What Go's `url.Parse` makes of a proxy URL without `scheme://`, and client-go then says. */
function withoutScheme(text: string): string {
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1]?.toLowerCase();
  if (scheme === undefined || ['http', 'https', 'socks5'].includes(scheme)) {
    // No scheme: a colon in the first path segment is a parse error, else the scheme is "".
    // (`http:host` parses in Go, but names no host: refused here rather than at the first request.)
    return scheme === undefined && !/^[^/]*:/.test(text)
      ? unsupportedScheme('')
      : `could not parse: ${redactProxyUrl(text)}`;
  }
  return unsupportedScheme(scheme);
}

/** client-go's words for a proxy scheme kubectl does not dial. */
function unsupportedScheme(scheme: string): string {
  return `unsupported scheme "${scheme}", must be http, https, or socks5`;
}

/** The text of a proxy URL with its password, if any, as Go's `URL.Redacted` shows it. */
export function redactProxyUrl(text: string): string {
  return text.replace(/^((?:[a-z][a-z0-9+.-]*:\/\/)?[^/@:]*:)[^/@]*@/i, '$1xxxxx@');
}

/**
 * A cluster's `proxy-url`, refused at load as kubectl refuses it:
 * `invalid 'proxy-url' "socks4://p:1080" for cluster "prod": unsupported scheme "socks4", …`.
 */
export function kubeconfigProxyUrl(text: string, cluster: string, path: string): URL {
  const url = parseProxyUrl(text, false);
  if (typeof url !== 'string') return url;
  throw new ClusterConfigError(
    CLUSTER_ERROR_CODES.proxyUrlInvalid,
    `invalid 'proxy-url' "${redactProxyUrl(text)}" for cluster "${cluster}": ${url}`,
    path,
  );
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Go's `useProxy` never proxies `localhost` or a loopback address. */
function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  const kind = isIP(host);
  return kind !== 0 && LOOPBACK.check(host, kind === 4 ? 'ipv4' : 'ipv6');
}

/** Whether `NO_PROXY` exempts `host:port` (Go's matchers: `*`, IPs, CIDRs, domains, ports). */
export function exemptByNoProxy(noProxy: string, host: string, port: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  for (const raw of noProxy.split(/[\s,]+/)) {
    let entry = raw.trim().toLowerCase();
    if (entry === '') continue;
    if (entry === '*') return true;
    if (entry.includes('/')) {
      const [address = '', prefix = ''] = entry.split('/');
      const family = isIP(address);
      const ipFamily = isIP(name);
      if (family === 0 || ipFamily !== family) continue;
      const list = new BlockList();
      try {
        list.addSubnet(address, Number(prefix), family === 4 ? 'ipv4' : 'ipv6');
      } catch {
        continue;
      }
      if (list.check(name, family === 4 ? 'ipv4' : 'ipv6')) return true;
      continue;
    }
    let entryPort = '';
    const bracket = /^\[(.*)\](?::(\d+))?$/.exec(entry);
    if (bracket) {
      entry = bracket[1] ?? '';
      entryPort = bracket[2] ?? '';
    } else if (isIP(entry) !== 6) {
      const colon = entry.lastIndexOf(':');
      if (colon !== -1) {
        entryPort = entry.slice(colon + 1);
        entry = entry.slice(0, colon);
      }
    }
    if (entryPort !== '' && entryPort !== port) continue;
    if (isIP(entry) !== 0) {
      if (entry === name) return true;
      continue;
    }
    if (entry.startsWith('*.')) entry = entry.slice(1);
    // "foo.com" matches foo.com and its subdomains; ".foo.com" only the subdomains.
    if (entry.startsWith('.')) {
      if (name.endsWith(entry)) return true;
    } else if (name === entry || name.endsWith(`.${entry}`)) {
      return true;
    }
  }
  return false;
}

/**
 * The proxy for `server` from the environment, or `undefined` for a direct connection. Throws a
 * `ClusterConfigError` (`ERR_RESOURCEFUL_PROXY_URL_INVALID`) naming the variable for a proxy
 * URL that cannot be used.
 */
export function proxyFromEnvironment(server: URL, env: Environment): URL | undefined {
  const host = server.hostname.replace(/^\[|\]$/g, '');
  if (isLoopback(host.toLowerCase())) return undefined;
  const proxy = variable(env, server.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY');
  if (proxy.value === '') return undefined;
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  if (exemptByNoProxy(variable(env, 'NO_PROXY').value, host, port)) return undefined;
  const url = parseProxyUrl(proxy.value);
  if (typeof url !== 'string') return url;
  throw new ClusterConfigError(
    CLUSTER_ERROR_CODES.proxyUrlInvalid,
    `invalid proxy address "${redactProxyUrl(proxy.value)}" in environment variable ${proxy.name}: ${url}`,
  );
}
