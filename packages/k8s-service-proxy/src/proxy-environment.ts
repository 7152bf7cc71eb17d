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

type Environment = Readonly<Record<string, string | undefined>>;

/** Go's `getEnvAny`: the upper-case name first, then the lower-case one. */
function variable(env: Environment, name: string): string {
  return env[name] || env[name.toLowerCase()] || '';
}

/** A proxy URL as Go parses one: a bare `host:port` means `http://host:port`. */
export function parseProxyUrl(text: string, what: string): URL {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new TypeError(`${what} is not a valid proxy URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && url.protocol !== 'socks5:') {
    throw new TypeError(
      `${what} uses ${url.protocol.replace(/:$/, '')}; the proxy schemes kubectl accepts are http, https and socks5`,
    );
  }
  return url;
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
 * TypeError for a proxy variable that is not a usable URL.
 */
export function proxyFromEnvironment(server: URL, env: Environment): URL | undefined {
  const host = server.hostname.replace(/^\[|\]$/g, '');
  if (isLoopback(host.toLowerCase())) return undefined;
  const name = server.protocol === 'https:' ? 'HTTPS_PROXY' : 'HTTP_PROXY';
  const value = variable(env, name);
  if (value === '') return undefined;
  const port = server.port || (server.protocol === 'https:' ? '443' : '80');
  if (exemptByNoProxy(variable(env, 'NO_PROXY'), host, port)) return undefined;
  return parseProxyUrl(value, name);
}
