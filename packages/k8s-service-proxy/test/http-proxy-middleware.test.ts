/**
 * `clusterServiceProxyOptions()` with http-proxy-middleware, under Express 4 and 5, against the
 * TLS control-plane double: the same contract as `serviceProxy()` for the cases users meet. The
 * suite runs with version 3 everywhere and, on Node 22+, a second time with version 4 (a vitest
 * project aliases the import; `HTTP_PROXY_MIDDLEWARE_MAJOR` says which one is expected).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  waitFor,
  writeExecKubeconfig,
} from '@resourceful/test-support';
import { rawRequest, useControlPlane, writeFakePlugin } from '@resourceful/test-support/k8s';
import { createProxyMiddleware } from 'http-proxy-middleware';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterCredentials,
  clusterServiceProxyOptions,
  createClusterCredentials,
  findClusterCredentials,
} from '../src/index.js';

const TOKEN = 'hpm-token';
const MAJOR = Number(process.env.HTTP_PROXY_MIDDLEWARE_MAJOR ?? 3);
const k8s = useControlPlane({ tokens: [TOKEN] });
let dir: string;
const opened: ClusterCredentials[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hpm-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  for (const credentials of opened.splice(0)) credentials.close();
});

function tokenCredentials(server = k8s.plane.url): ClusterCredentials {
  const credentials = createClusterCredentials({ server, token: TOKEN, ca: k8s.certs.ca });
  opened.push(credentials);
  return credentials;
}

describe('clusterServiceProxyOptions', () => {
  it(`runs against http-proxy-middleware ${MAJOR}`, async () => {
    // What tells the majors apart in their exports: 4 dropped the legacy factory and added
    // definePlugin.
    const imported = await import('http-proxy-middleware');
    expect('legacyCreateProxyMiddleware' in imported).toBe(MAJOR === 3);
    expect('definePlugin' in imported).toBe(MAJOR >= 4);
  });

  it('checks its options at construction', () => {
    const credentials = tokenCredentials();
    expect(() =>
      clusterServiceProxyOptions({ credentials, service: 'ledger', prot: 1 } as never),
    ).toThrow(/unknown option "prot". Did you mean "port"\?/);
    expect(() => clusterServiceProxyOptions({ credentials, service: 'Bad_Name' })).toThrow();
  });
});

describeEachExpress(`http-proxy-middleware ${MAJOR} with clusterServiceProxyOptions`, (express) => {
  function app(credentials: ClusterCredentials, extra: { port?: string } = {}) {
    const application = express();
    application.use(
      '/ledger',
      createProxyMiddleware(
        clusterServiceProxyOptions({
          credentials,
          namespace: 'payments',
          service: 'ledger',
          ...extra,
        }),
      ),
    );
    application.use(errorHandler());
    return application;
  }

  it("relays to the service proxy path with the cluster's token, not the client's credentials", async () => {
    const before = k8s.plane.requests.length;
    const res = await request(app(tokenCredentials(), { port: 'http' }))
      .get('/ledger/items?x=1')
      .set('Authorization', 'Bearer client')
      .set('Cookie', 'session=1')
      .set('Impersonate-User', 'system:admin');
    expect(res.status).toBe(200);
    const [seen] = k8s.plane.requests.slice(before);
    expect(seen?.url).toBe('/api/v1/namespaces/payments/services/ledger:http/proxy/items?x=1');
    expect(seen?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen?.headers.cookie).toBeUndefined();
    expect(seen?.headers['impersonate-user']).toBeUndefined();
  });

  it('maps the control plane prefix in Location back to the mount path', async () => {
    const res = await request(app(tokenCredentials())).get('/ledger/redirect');
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/ledger/landing?from=redirect');
  });

  it('refuses an encoded traversal with 400 and sends nothing upstream', async () => {
    const before = k8s.plane.requests.length;
    const res = await request(app(tokenCredentials())).get('/ledger/%2e%2e/%2e%2e/secrets');
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'path' });
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('relays an absolute-form target (RFC 9112 §3.2.2) to the path its origin form names', async () => {
    const server = await listen(app(tokenCredentials()));
    try {
      const before = k8s.plane.requests.length;
      const target = `http://localhost:${server.port}/ledger/items?x=1`;
      expect((await rawRequest(server.port, { path: target })).status).toBe(200);
      expect(k8s.plane.requests.slice(before).map((seen) => seen.url)).toEqual([
        '/api/v1/namespaces/payments/services/ledger/proxy/items?x=1',
      ]);
    } finally {
      await server.close();
    }
  });

  it('answers 500 CREDENTIAL_NOT_SENDABLE for a token with a line break, and keeps serving', async () => {
    const credentials = createClusterCredentials({
      server: k8s.plane.url,
      token: 'secret-part\nsecond-part',
      ca: k8s.certs.ca,
    });
    opened.push(credentials);
    const application = app(credentials);
    const before = k8s.plane.requests.length;
    for (const path of ['/ledger/a', '/ledger/b']) {
      const res = await request(application).get(path);
      expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
      expect(res.body.error.innererror).toEqual({ code: 'CREDENTIAL_NOT_SENDABLE' });
    }
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('runs an exec plugin per need: lazily, then again after a 401', async () => {
    const plugin = writeFakePlugin(dir, `hpm-plugin-${Math.random().toString(36).slice(2)}`);
    const prefix = `hpm${Date.now()}`;
    k8s.plane.tokens.add(`${prefix}-2`);
    const kubeconfig = writeExecKubeconfig(dir, {
      server: k8s.plane.url,
      caFile: k8s.certs.caFile,
      exec: { command: plugin.command, args: [`--prefix=${prefix}`] },
      name: `${prefix}.yaml`,
    });
    const credentials = findClusterCredentials({ kubeconfig }) as ClusterCredentials;
    opened.push(credentials);
    const relay = app(credentials);
    expect(plugin.runs()).toBe(0);
    await request(relay).get('/ledger/a').expect(401);
    await waitFor(() => plugin.runs() === 2, { what: 'a plugin re-run after a 401' });
    await request(relay).get('/ledger/b').expect(200);
    expect(k8s.plane.requests.at(-1)?.headers.authorization).toBe(`Bearer ${prefix}-2`);
  });

  it('passes a failing plugin to next(err): a 500 envelope, nothing sent', async () => {
    const plugin = writeFakePlugin(dir, `hpm-failing-${Math.random().toString(36).slice(2)}`);
    const kubeconfig = writeExecKubeconfig(dir, {
      server: k8s.plane.url,
      caFile: k8s.certs.caFile,
      exec: { command: plugin.command, args: ['--exit=4'] },
      name: `failing-${Date.now()}.yaml`,
    });
    const credentials = findClusterCredentials({ kubeconfig }) as ClusterCredentials;
    opened.push(credentials);
    const before = k8s.plane.requests.length;
    const res = await request(app(credentials)).get('/ledger/x');
    expectErrorEnvelope(res, 500);
    expect(res.body.error.message).toMatch(/exited with code 4/);
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('answers a dead control plane with the 502 envelope', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    const port = typeof address === 'object' && address !== null ? address.port : 1;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const res = await request(app(tokenCredentials(`https://127.0.0.1:${port}`))).get('/ledger/x');
    expectErrorEnvelope(res, 502, { code: 'UPSTREAM_ERROR' });
  });
});
