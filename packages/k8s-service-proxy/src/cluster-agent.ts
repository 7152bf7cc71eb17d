/**
 * @module The keep-alive agent every request to the control plane goes through: TLS settings of
 * the cluster (CA, client certificate, server name, verification) and, when a proxy applies, a
 * tunnel through it. `https-proxy-agent` opens the CONNECT tunnel (also for WebSocket and SPDY
 * upgrades, which then ride the tunnel); `http-proxy-agent` sends absolute-form requests for a
 * plain-http control plane, as Go's transport does; `socks-proxy-agent` connects through a
 * SOCKS5 proxy, loaded on the first connection through one (it is rarely configured and would
 * otherwise cost every start its module load). The classes built on those packages are defined
 * on first use, so that the CLI bundle, which loads the three packages only when read (see
 * tsup.config.ts), starts without them when no proxy applies.
 */

import { type ClientRequest, Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent, type RequestOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { type ConnectionOptions, checkServerIdentity, type PeerCertificate } from 'node:tls';
import { Agent as AgentBase, type AgentConnectOpts } from 'agent-base';
import { HttpProxyAgent } from 'http-proxy-agent';
import { HttpsProxyAgent } from 'https-proxy-agent';
import type { SocksProxyAgent } from 'socks-proxy-agent';

/** The TLS settings toward the control plane (not toward the proxy). */
export type ClusterTls = Pick<
  ConnectionOptions,
  'ca' | 'cert' | 'key' | 'rejectUnauthorized' | 'servername'
>;

type TunnelAgentClass = new (proxy: URL, clusterTls: ClusterTls) => HttpAgent;
type SocksAgentClass = new (proxy: URL, clusterTls: ClusterTls, secure: boolean) => HttpAgent;
let tunnelAgentClass: TunnelAgentClass | undefined;
let socksAgentClass: SocksAgentClass | undefined;

/**
 * The name check of an https:// proxy's certificate when the cluster has a `tls-server-name`.
 * Go's transport (so kubectl) checks the proxy's certificate against the cluster's
 * `tls-server-name`, not the proxy's host, so a kubeconfig whose proxy certificate names only
 * that works there; every other client checks the proxy's host. Either name is accepted here:
 * both are names the kubeconfig vouches for, and a certificate for the cluster's name, from the
 * CA that vouches for the cluster, could as well answer for the cluster itself.
 */
function proxyIdentityCheck(
  tlsServerName: string,
): (host: string, cert: PeerCertificate) => Error | undefined {
  return (host, cert) => {
    const problem = checkServerIdentity(host, cert);
    if (problem === undefined || checkServerIdentity(tlsServerName, cert) === undefined) {
      return undefined;
    }
    return problem;
  };
}

/**
 * `HttpsProxyAgent` takes its constructor's TLS options for the connection to the proxy; the
 * cluster's go with each tunnelled connection instead.
 */
function clusterTunnelAgent(proxy: URL, clusterTls: ClusterTls): HttpAgent {
  tunnelAgentClass ??= class ClusterTunnelAgent extends HttpsProxyAgent<string> {
    constructor(
      proxy: URL,
      private readonly clusterTls: ClusterTls,
    ) {
      // An https:// proxy is verified as Go's transport verifies it, with the cluster's TLS
      // configuration (its CA replaces the system roots; insecure-skip-tls-verify applies too).
      super(proxy, {
        keepAlive: true,
        ...(clusterTls.ca === undefined ? {} : { ca: clusterTls.ca }),
        ...(clusterTls.rejectUnauthorized === false ? { rejectUnauthorized: false } : {}),
        ...(typeof clusterTls.servername === 'string'
          ? { checkServerIdentity: proxyIdentityCheck(clusterTls.servername) }
          : {}),
      });
      // agent-base guesses the protocol from the call stack unless told; requests say `https:`.
      this.protocol = 'https:';
    }

    override connect(...[req, opts]: Parameters<HttpsProxyAgent<string>['connect']>) {
      return super.connect(req, { ...opts, ...this.clusterTls });
    }
  };
  return new tunnelAgentClass(proxy, clusterTls);
}

/**
 * A SOCKS5 proxy (`socks5://`, as kubectl accepts it): the control plane's host name is sent to
 * the proxy to resolve, as Go's SOCKS5 dialer does (socks-proxy-agent calls that `socks5h`),
 * and the cluster's TLS runs inside the connection.
 */
function clusterSocksAgent(proxy: URL, clusterTls: ClusterTls, secure: boolean): HttpAgent {
  socksAgentClass ??= class ClusterSocksAgent extends AgentBase {
    #socks: Promise<SocksProxyAgent> | undefined;

    constructor(
      private readonly proxy: URL,
      private readonly clusterTls: ClusterTls,
      secure: boolean,
    ) {
      super({ keepAlive: true });
      this.protocol = secure ? 'https:' : 'http:';
    }

    override async connect(req: ClientRequest, opts: AgentConnectOpts): Promise<Duplex> {
      this.#socks ??= import('socks-proxy-agent').then(({ SocksProxyAgent }) => {
        const url = new URL(this.proxy.href);
        url.protocol = 'socks5h:';
        return new SocksProxyAgent(url);
      });
      const socks = await this.#socks;
      return socks.connect(req, { ...opts, ...this.clusterTls } as AgentConnectOpts);
    }
  };
  return new socksAgentClass(proxy, clusterTls, secure);
}

/**
 * Node's `https.Agent` names a request's connection pool from every TLS option, so each request
 * re-reads the CA and client certificate into a string of a kilobyte or more, then hashes it.
 * This agent serves one control plane with TLS settings fixed at construction (requests pass
 * none), so the name is computed once per host, port and server name.
 */
class ClusterHttpsAgent extends HttpsAgent {
  readonly #names = new Map<string, string>();

  override getName(options: RequestOptions = {}): string {
    const key = `${options.host}:${options.port}:${options.servername ?? ''}:${options.localAddress ?? ''}:${options.family ?? ''}`;
    let name = this.#names.get(key);
    if (name === undefined) {
      name = super.getName(options);
      this.#names.set(key, name);
    }
    return name;
  }
}

export function createClusterAgent(
  server: URL,
  tls: ClusterTls,
  proxy: URL | undefined,
): HttpAgent {
  if (proxy?.protocol === 'socks5:') {
    return clusterSocksAgent(proxy, tls, server.protocol === 'https:');
  }
  if (server.protocol === 'https:') {
    if (proxy !== undefined) return clusterTunnelAgent(proxy, tls);
    return new ClusterHttpsAgent({ keepAlive: true, ...tls });
  }
  if (proxy !== undefined) {
    const agent = new HttpProxyAgent(proxy, { keepAlive: true });
    agent.protocol = 'http:';
    return agent;
  }
  return new HttpAgent({ keepAlive: true });
}
