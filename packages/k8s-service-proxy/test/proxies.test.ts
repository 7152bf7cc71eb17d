/**
 * The control plane behind a forward proxy: the cluster's `proxy-url` and `HTTPS_PROXY` /
 * `NO_PROXY` as Go reads them, for requests and WebSocket upgrades, through a real CONNECT proxy
 * on loopback that records its tunnels. The control plane is addressed as `kube.test` (which
 * the proxy maps to 127.0.0.1) because loopback servers are never proxied from the environment.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope, thrownBy } from '@resourceful/test-support';
import {
  type ConnectProxy,
  makeServerCertificate,
  rawUpgrade,
  startConnectProxy,
  startSocks5Proxy,
  useControlPlane,
} from '@resourceful/test-support/k8s';
import request from 'supertest';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type ClusterCredentials,
  createClusterCredentials,
  findClusterCredentials,
  serviceProxy,
} from '../src/index.js';
import { exemptByNoProxy, proxyFromEnvironment } from '../src/proxy-environment.js';

const TOKEN = 'proxied-token';
const k8s = useControlPlane({ tokens: [TOKEN] });
let proxy: ConnectProxy;
const opened: ClusterCredentials[] = [];

beforeEach(async () => {
  proxy = await startConnectProxy({ aliases: ['kube.test'] });
});
afterEach(async () => {
  for (const credentials of opened.splice(0)) credentials.close();
  await proxy.close();
});

function viaName(
  extra: Parameters<typeof createClusterCredentials>[0] extends infer O ? Partial<O> : never,
) {
  const credentials = createClusterCredentials({
    server: `https://kube.test:${k8s.plane.port}`,
    token: TOKEN,
    ca: k8s.certs.ca,
    tlsServerName: 'localhost',
    ...extra,
  });
  opened.push(credentials);
  return credentials;
}

/** An app relaying `/ledger` to the `ledger` service with `credentials`, errors as envelopes. */
async function ledgerApp(credentials: ClusterCredentials) {
  const express = (await import('express')).default;
  const application = express();
  application.use('/ledger', serviceProxy({ credentials, service: 'ledger' }));
  application.use(errorHandler());
  return application;
}

/** A WebSocket-style upgrade of `/ledger/socket`, relayed through the proxy at `proxyUrl`. */
async function upgradeThrough(proxyUrl: string) {
  const relay = serviceProxy({
    credentials: viaName({ proxyUrl }),
    service: 'ledger',
    mountPath: '/ledger',
  });
  const server = createServer((_req, res) => res.end());
  server.on('upgrade', relay.upgrade);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    return await rawUpgrade((server.address() as AddressInfo).port, '/ledger/socket');
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

describeEachExpress('serviceProxy through a forward proxy', (express) => {
  function app(credentials: ClusterCredentials) {
    const application = express();
    application.use('/ledger', serviceProxy({ credentials, service: 'ledger' }));
    application.use(errorHandler());
    return application;
  }

  it("tunnels through the cluster's proxy-url, keeping the cluster's TLS and token", async () => {
    const credentials = viaName({ proxyUrl: proxy.url });
    const before = k8s.plane.requests.length;
    const res = await request(app(credentials)).get('/ledger/items');
    expect(res.status).toBe(200);
    expect(proxy.tunnels.map((t) => t.authority)).toEqual([`kube.test:${k8s.plane.port}`]);
    expect(k8s.plane.requests.slice(before).map((r) => r.auth)).toEqual(['bearer']);
    expect(JSON.stringify(credentials)).toContain(new URL(proxy.url).origin);
  });

  it('reuses one tunnel for sequential requests (keep-alive)', async () => {
    const relay = app(viaName({ proxyUrl: proxy.url }));
    for (let i = 0; i < 3; i++) await request(relay).get(`/ledger/${i}`).expect(200);
    expect(proxy.tunnels).toHaveLength(1);
  });

  it('answers 502 when the proxy refuses the tunnel, sending nothing to the control plane', async () => {
    await proxy.close();
    proxy = await startConnectProxy({ aliases: ['kube.test'], proxyAuthorization: 'Basic eDp5' });
    const before = k8s.plane.requests.length;
    const res = await request(app(viaName({ proxyUrl: proxy.url }))).get('/ledger/x');
    expectErrorEnvelope(res, 502, { code: 'UPSTREAM_ERROR' });
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('sends the proxy URL credentials as Proxy-Authorization and never shows them', async () => {
    await proxy.close();
    proxy = await startConnectProxy({ aliases: ['kube.test'], proxyAuthorization: 'Basic eDp5' });
    const withUser = proxy.url.replace('http://', 'http://x:y@');
    const credentials = viaName({ proxyUrl: withUser });
    await request(app(credentials)).get('/ledger/x').expect(200);
    expect(proxy.tunnels.map((t) => t.proxyAuthorization)).toEqual(['Basic eDp5']);
    expect(JSON.stringify(credentials)).not.toContain('x:y');
  });
});

describe('upgrades through a forward proxy', () => {
  it('relays a WebSocket-style upgrade through the CONNECT tunnel (101)', async () => {
    expect(await upgradeThrough(proxy.url)).toEqual({ status: 101, echoed: 'echo:ping' });
    expect(proxy.tunnels).toHaveLength(1);
  });
});

describe('an https:// proxy (TLS to the proxy, then the tunnel)', () => {
  async function tlsProxy(cert = k8s.certs.serverCert, key = k8s.certs.serverKey) {
    await proxy.close();
    proxy = await startConnectProxy({ aliases: ['kube.test'], tls: { cert, key } });
    return proxy;
  }

  it("tunnels a request, verifying the proxy with the cluster's CA as kubectl does", async () => {
    const { url } = await tlsProxy();
    expect(url).toMatch(/^https:/);
    const application = await ledgerApp(viaName({ proxyUrl: url }));
    const before = k8s.plane.requests.length;
    await request(application).get('/ledger/over-tls').expect(200);
    expect(proxy.tunnels.map((t) => t.authority)).toEqual([`kube.test:${k8s.plane.port}`]);
    expect(k8s.plane.requests.slice(before).map((r) => [r.url, r.auth])).toEqual([
      ['/api/v1/namespaces/default/services/ledger/proxy/over-tls', 'bearer'],
    ]);
  });

  it('relays a WebSocket-style upgrade through it (101)', async () => {
    const { url } = await tlsProxy();
    expect(await upgradeThrough(url)).toEqual({ status: 101, echoed: 'echo:ping' });
    expect(proxy.tunnels).toHaveLength(1);
  });

  it.each([
    [200, 'the host of the proxy URL', 'IP:127.0.0.1'],
    [200, "the cluster's tls-server-name (kubectl accepts only this one)", 'DNS:localhost'],
    [502, 'neither of them', 'DNS:elsewhere.test'],
  ])(
    'answers %i through a proxy whose certificate names %s',
    async (status, _what, subjectAltName) => {
      const name = `proxy-${subjectAltName.replace(/\W/g, '-')}`;
      const { cert, key } = makeServerCertificate(k8s.certs, name, subjectAltName);
      const { url } = await tlsProxy(cert, key);
      const res = await request(await ledgerApp(viaName({ proxyUrl: url }))).get('/ledger/x');
      expect(res.status).toBe(status);
      expect(proxy.tunnels).toHaveLength(status === 200 ? 1 : 0);
    },
  );

  it('answers 502 to a proxy whose certificate the cluster CA does not sign; no tunnel opens', async () => {
    const { url } = await tlsProxy(
      k8s.certs.otherCa,
      readFileSync(join(k8s.certs.dir, 'other-ca.key'), 'utf8'),
    );
    const application = await ledgerApp(viaName({ proxyUrl: url }));
    const before = k8s.plane.requests.length;
    const res = await request(application).get('/ledger/x');
    expectErrorEnvelope(res, 502, { code: 'UPSTREAM_ERROR' });
    expect(proxy.tunnels).toEqual([]);
    expect(k8s.plane.requests.length).toBe(before);
  });
});

describe('a socks5:// proxy', () => {
  it('connects through it, leaving the host name for the proxy to resolve, as kubectl does', async () => {
    const socks = await startSocks5Proxy({ aliases: ['kube.test'] });
    try {
      const application = await ledgerApp(viaName({ proxyUrl: socks.url }));
      const before = k8s.plane.requests.length;
      await request(application).get('/ledger/one').expect(200);
      await request(application).get('/ledger/two').expect(200);
      expect(socks.connections).toEqual([`kube.test:${k8s.plane.port}`]);
      expect(
        k8s.plane.requests
          .slice(before)
          .map((r) => [r.auth, r.connection === k8s.plane.requests[before]?.connection]),
      ).toEqual([
        ['bearer', true],
        ['bearer', true],
      ]);
    } finally {
      await socks.close();
    }
  });

  it('relays a WebSocket-style upgrade through it (101)', async () => {
    const socks = await startSocks5Proxy({ aliases: ['kube.test'] });
    try {
      expect(await upgradeThrough(socks.url)).toEqual({ status: 101, echoed: 'echo:ping' });
      expect(socks.connections).toEqual([`kube.test:${k8s.plane.port}`]);
    } finally {
      await socks.close();
    }
  });

  it('answers 502 when the SOCKS proxy cannot reach the control plane', async () => {
    const socks = await startSocks5Proxy();
    try {
      const application = await ledgerApp(viaName({ proxyUrl: socks.url }));
      const res = await request(application).get('/ledger/x');
      expectErrorEnvelope(res, 502, { code: 'UPSTREAM_ERROR' });
      expect(socks.connections).toEqual([`kube.test:${k8s.plane.port}`]);
    } finally {
      await socks.close();
    }
  });
});

describe('HTTPS_PROXY and NO_PROXY, as Go reads them', () => {
  it('uses HTTPS_PROXY from the environment for a named control plane', async () => {
    const credentials = findClusterCredentials({
      server: `https://kube.test:${k8s.plane.port}`,
      token: TOKEN,
      ca: k8s.certs.ca,
      tlsServerName: 'localhost',
      kubeconfig: false,
      inCluster: false,
      env: { HTTPS_PROXY: proxy.url, NO_PROXY: 'example.com' },
    }) as ClusterCredentials;
    opened.push(credentials);
    const application = await ledgerApp(credentials);
    await request(application).get('/ledger/env').expect(200);
    expect(proxy.tunnels).toHaveLength(1);
  });

  it('never proxies a loopback control plane from the environment', async () => {
    const credentials = findClusterCredentials({
      server: k8s.plane.url,
      token: TOKEN,
      ca: k8s.certs.ca,
      kubeconfig: false,
      inCluster: false,
      env: { HTTPS_PROXY: proxy.url },
    }) as ClusterCredentials;
    opened.push(credentials);
    const application = await ledgerApp(credentials);
    await request(application).get('/ledger/direct').expect(200);
    expect(proxy.tunnels).toEqual([]);
  });

  const server = new URL('https://api.kube.example.com:6443');
  it.each([
    [{ HTTPS_PROXY: 'proxy:3128' }, 'http://proxy:3128/'],
    [{ https_proxy: 'http://lower:1' }, 'http://lower:1/'],
    [{ HTTPS_PROXY: 'http://upper:1', https_proxy: 'http://lower:1' }, 'http://upper:1/'],
    [{ HTTP_PROXY: 'http://only-http:1' }, undefined],
    [{ HTTPS_PROXY: 'http://p:1', NO_PROXY: '*' }, undefined],
    [{ HTTPS_PROXY: 'http://p:1', NO_PROXY: 'kube.example.com' }, undefined],
    [{ HTTPS_PROXY: 'http://p:1', NO_PROXY: '.kube.example.com' }, undefined],
    [{ HTTPS_PROXY: 'http://p:1', NO_PROXY: '.api.kube.example.com' }, 'http://p:1/'],
    [{ HTTPS_PROXY: 'http://p:1', NO_PROXY: 'api.kube.example.com:443' }, 'http://p:1/'],
    [{ HTTPS_PROXY: 'http://p:1', no_proxy: 'api.kube.example.com:6443' }, undefined],
    [{ HTTPS_PROXY: 'http://p:1', npm_config_no_proxy: '*' }, 'http://p:1/'],
  ])('with %o the proxy is %s', (env, expected) => {
    expect(proxyFromEnvironment(server, env)?.href).toBe(expected);
  });

  it.each([
    ['10.0.0.0/8', '10.1.2.3', true],
    ['10.0.0.0/8', '11.0.0.1', false],
    ['fd00::/8', 'fd00::1', true],
    ['10.1.2.3', '10.1.2.3', true],
    ['[fd00::1]:6443', 'fd00::1', true],
    ['[fd00::1]:443', 'fd00::1', false],
  ])('NO_PROXY %s exempts %s: %s', (noProxy, host, exempt) => {
    expect(exemptByNoProxy(noProxy, host, '6443')).toBe(exempt);
  });

  it('refuses a proxyUrl option kubectl would not accept with ERR_RESOURCEFUL_INVALID_OPTION, naming the schemes it does', () => {
    const error = thrownBy(() => viaName({ proxyUrl: 'socks4://me:s3cret@127.0.0.1:1080' }));
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'proxyUrl' });
    expect(error.message).toBe(
      'createClusterCredentials: "proxyUrl" "socks4://me:xxxxx@127.0.0.1:1080" is not a proxy URL kubectl accepts: unsupported scheme "socks4", must be http, https, or socks5.',
    );
  });

  it('refuses a bad HTTPS_PROXY with ERR_RESOURCEFUL_PROXY_URL_INVALID, naming the variable', () => {
    expect(() => proxyFromEnvironment(server, { https_proxy: 'http://[::1' })).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_PROXY_URL_INVALID',
        message:
          'invalid proxy address "http://[::1" in environment variable https_proxy: could not parse: http://[::1',
      }),
    );
  });

  it('takes socks5:// from HTTPS_PROXY too (Go reads it there)', () => {
    expect(proxyFromEnvironment(server, { HTTPS_PROXY: 'socks5://p:1080' })?.href).toBe(
      'socks5://p:1080',
    );
  });
});
