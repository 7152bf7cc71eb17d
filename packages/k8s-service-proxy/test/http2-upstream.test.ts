/**
 * HTTP/2 toward a control plane that offers it (ALPN `h2`), for the local proxy, the middleware
 * and discovery: the same answers as over HTTP/1.1, no connection-specific header on the wire,
 * one multiplexed connection, reconnection, the same 502/504 envelopes, and upgrades on HTTP/1.1.
 */
import { request as httpRequest } from 'node:http';
import { createServer } from 'node:net';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  type RunningServer,
  waitFor,
} from '@resourceful/test-support';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { http2PoolOf } from '../src/http2-pool.js';
import {
  type ClusterCredentials,
  type ClusterCredentialsOptions,
  createClusterCredentials,
  createLocalProxy,
  findClusterCredentials,
  getApiVersions,
  type LocalProxy,
  type LocalProxyOptions,
  serviceProxy,
} from '../src/index.js';
import { makeCertificates, type TestCertificates } from './support/certificates.js';
import {
  type ControlPlaneDouble,
  type RecordedRequest,
  startControlPlane,
} from './support/control-plane-double.js';
import { type RawResponse, rawRequest, rawUpgrade } from './support/raw-client.js';

const TOKEN = 'test-token';
const SERVICE = '/api/v1/namespaces/default/services';
/** Fields HTTP/2 forbids (RFC 9113 §8.2.2), plus `Host`, which becomes `:authority`. */
const CONNECTION_SPECIFIC = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'host',
];

let certs: TestCertificates;
let h2Plane: ControlPlaneDouble;
let h1Plane: ControlPlaneDouble;

beforeAll(async () => {
  certs = makeCertificates();
  [h2Plane, h1Plane] = await Promise.all([
    startControlPlane(certs, { http2: true }),
    startControlPlane(certs),
  ]);
});
afterAll(async () => {
  await Promise.all([h2Plane.close(), h1Plane.close()]);
  certs.cleanup();
});

/**
 * Credentials toward `plane` with HTTP/2 asked for explicitly, so these tests do not depend on
 * `DISABLE_HTTP2` in the developer's environment (the tests of that variable set it themselves).
 */
function credentialsFor(
  plane: ControlPlaneDouble,
  extra: Partial<ClusterCredentialsOptions> = {},
): ClusterCredentials {
  return createClusterCredentials({
    server: plane.url,
    token: TOKEN,
    ca: certs.ca,
    http2: true,
    ...extra,
  });
}

function poolOf(credentials: ClusterCredentials) {
  const pool = http2PoolOf(credentials);
  if (pool === undefined) throw new Error('these credentials have no HTTP/2 pool');
  return pool;
}

/** A POST whose body is sent in chunks (`Transfer-Encoding: chunked`), as a stream. */
function chunkedPost(port: number, path: string, chunks: readonly string[]): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: '127.0.0.1',
      port,
      method: 'POST',
      path,
      agent: false,
      headers: { Host: `localhost:${port}`, 'Content-Type': 'text/plain', Connection: 'close' },
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.setTimeout(10_000, () => req.destroy(new Error('no answer')));
    const writeNext = (index: number) => {
      if (index === chunks.length) {
        req.end();
        return;
      }
      req.write(chunks[index]);
      setTimeout(() => writeNext(index + 1), 5);
    };
    writeNext(0);
  });
}

/** What a test compares between protocols: the request as the service saw it. */
function upstreamView(request: RecordedRequest) {
  return {
    method: request.method,
    url: request.url,
    body: request.body,
    auth: request.auth,
    headers: Object.fromEntries(
      ['authorization', 'x-forwarded-for', 'content-type', 'x-custom', 'te', 'cookie']
        .filter((name) => request.headers[name] !== undefined)
        .map((name) => [name, request.headers[name]]),
    ),
  };
}

function responseView(response: RawResponse, plane: ControlPlaneDouble) {
  return {
    status: response.status,
    body: response.body.replaceAll(String(plane.port), 'PORT'),
    contentType: response.headers['content-type'],
    location: response.headers.location,
    servedBy: response.headers['x-served-by'],
  };
}

describe('createClusterCredentials http2 options', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('offers HTTP/2 to https servers by default and never to http servers', () => {
    vi.stubEnv('DISABLE_HTTP2', undefined);
    const secure = createClusterCredentials({ server: h2Plane.url, token: TOKEN, ca: certs.ca });
    expect(secure.http2).toBe(true);
    expect(secure.toJSON()).toMatchObject({ http2: true });
    secure.close();
    const plain = createClusterCredentials({
      server: 'http://127.0.0.1:8080',
      token: 't',
      http2: true,
    });
    expect(plain.http2).toBe(false);
    expect(http2PoolOf(plain)).toBeUndefined();
    plain.close();
  });

  it('reads DISABLE_HTTP2 from the process environment when no env is given', () => {
    vi.stubEnv('DISABLE_HTTP2', '1');
    const off = createClusterCredentials({ server: h2Plane.url, token: TOKEN, ca: certs.ca });
    expect(off.http2).toBe(false);
    expect(http2PoolOf(off)).toBeUndefined();
    off.close();
  });

  it('refuses a non-boolean http2 and a negative http2IdleTimeoutMs', () => {
    expect(() => credentialsFor(h2Plane, { http2: 'yes' as unknown as boolean })).toThrow(
      /http2 must be true or false/,
    );
    expect(() => credentialsFor(h2Plane, { http2IdleTimeoutMs: -1 })).toThrow(/http2IdleTimeoutMs/);
    expect(() => credentialsFor(h2Plane, { http2IdleTimeoutMs: Number.NaN })).toThrow(
      /http2IdleTimeoutMs/,
    );
  });

  it('turns HTTP/2 off when DISABLE_HTTP2 is set, as client-go does', () => {
    const base = {
      server: h2Plane.url,
      token: TOKEN,
      ca: certs.ca,
      kubeconfig: false,
      inCluster: false,
    } as const;
    const off = findClusterCredentials({ ...base, env: { DISABLE_HTTP2: '1' } });
    expect(off?.http2).toBe(false);
    off?.close();
    const empty = findClusterCredentials({ ...base, env: { DISABLE_HTTP2: '' } });
    expect(empty?.http2).toBe(true);
    empty?.close();
    const explicit = findClusterCredentials({ ...base, env: { DISABLE_HTTP2: '1' }, http2: true });
    expect(explicit?.http2).toBe(true);
    explicit?.close();
  });
});

describe('local proxy toward a control plane offering HTTP/2', () => {
  const opened: Array<{ proxy: LocalProxy; credentials: ClusterCredentials }> = [];
  afterEach(async () => {
    for (const { proxy, credentials } of opened.splice(0)) {
      await proxy.close();
      credentials.close();
    }
  });

  async function start(
    plane: ControlPlaneDouble,
    extra: Partial<ClusterCredentialsOptions> = {},
    options: Partial<LocalProxyOptions> = {},
  ) {
    const credentials = credentialsFor(plane, extra);
    const proxy = createLocalProxy({ credentials, port: 0, ...options });
    opened.push({ proxy, credentials });
    const port = Number((await proxy.listen()).split(':').at(-1));
    return { port, credentials, proxy };
  }

  /** Discovery, a GET with query, a streamed POST, a streamed answer, a redirect, a 401. */
  async function scenario(plane: ControlPlaneDouble, port: number) {
    const steps: Array<() => Promise<RawResponse>> = [
      () => rawRequest(port, { path: '/api' }),
      () =>
        rawRequest(port, {
          path: `${SERVICE}/web:http/proxy/a/b?x=1&y=%20z&y=2`,
          headers: { 'X-Custom': 'kept', TE: 'trailers', 'X-Forwarded-For': '10.0.0.1' },
        }),
      () => chunkedPost(port, `${SERVICE}/web/proxy/items`, ['{"part":', '1,"more":', '2}']),
      () => rawRequest(port, { path: `${SERVICE}/web/proxy/stream` }),
      () => rawRequest(port, { path: `${SERVICE}/web/proxy/redirect` }),
      () => rawRequest(port, { path: '/api', headers: { Authorization: 'Bearer client-own' } }),
      () => rawRequest(port, { method: 'HEAD', path: '/api' }),
    ];
    const results = [];
    for (const step of steps) {
      const before = plane.requests.length;
      const response = await step();
      const seen = plane.requests.slice(before);
      results.push({
        response: responseView(response, plane),
        upstream: seen.map(upstreamView),
        versions: seen.map((request) => request.httpVersion),
      });
    }
    return results;
  }

  it('relays discovery, a GET with query, a streamed POST and answer, a redirect and a 401 over HTTP/2, answering as over HTTP/1.1', async () => {
    const overH2 = await scenario(h2Plane, (await start(h2Plane)).port);
    const overH1 = await scenario(h1Plane, (await start(h1Plane)).port);
    expect(overH2.flatMap((step) => step.versions)).toEqual(Array(7).fill('2.0'));
    expect(overH1.flatMap((step) => step.versions)).toEqual(Array(7).fill('1.1'));
    const strip = (steps: typeof overH2) =>
      steps.map(({ response, upstream }) => ({ response, upstream }));
    expect(strip(overH2)).toEqual(strip(overH1));
    // Spot checks, so the comparison cannot pass on two empty answers.
    expect(overH2[0]?.response).toMatchObject({ status: 200 });
    expect(JSON.parse(overH2[0]?.response.body ?? '')).toMatchObject({ kind: 'APIVersions' });
    expect(overH2[2]?.upstream[0]?.body).toBe('{"part":1,"more":2}');
    expect(overH2[3]?.response.body).toBe('chunk 1\nchunk 2\nchunk 3\n');
    expect(overH2[4]?.response).toMatchObject({
      status: 302,
      location: `${SERVICE}/web/proxy/landing?from=redirect`,
    });
    expect(overH2[5]?.response.status).toBe(401);
    expect(overH2[6]?.response).toMatchObject({ status: 200, body: '' });
  });

  it('sends no connection-specific header on HTTP/2 and names the server in :authority', async () => {
    const { port } = await start(h2Plane);
    const before = h2Plane.requests.length;
    const res = await rawRequest(port, {
      method: 'POST',
      path: `${SERVICE}/web/proxy/items`,
      headers: {
        Connection: 'keep-alive, X-Drop',
        'X-Drop': '1',
        'Keep-Alive': 'timeout=5',
        'Proxy-Connection': 'keep-alive',
        Upgrade: 'h2c',
        TE: 'trailers',
        'Content-Type': 'application/json',
      },
      body: '{"a":1}',
    });
    expect(res.status).toBe(200);
    const [seen] = h2Plane.requests.slice(before);
    expect(seen?.httpVersion).toBe('2.0');
    for (const name of [...CONNECTION_SPECIFIC, 'x-drop']) {
      expect(seen?.headers[name], name).toBeUndefined();
    }
    expect(seen?.headers[':authority']).toBe(`127.0.0.1:${h2Plane.port}`);
    expect(seen?.headers[':scheme']).toBe('https');
    expect(seen?.headers.te).toBe('trailers');
    expect(seen?.headers['content-length']).toBe('7');
    expect(seen?.body).toBe('{"a":1}');
  });

  it('keeps HTTP/1.1 toward the same control plane with http2: false', async () => {
    const { port, credentials } = await start(h2Plane, { http2: false });
    expect(http2PoolOf(credentials)).toBeUndefined();
    const before = h2Plane.requests.length;
    expect((await rawRequest(port, { path: `${SERVICE}/web/proxy/a?x=1` })).status).toBe(200);
    expect((await chunkedPost(port, `${SERVICE}/web/proxy/items`, ['a', 'b'])).status).toBe(200);
    expect(h2Plane.requests.slice(before).map((r) => r.httpVersion)).toEqual(['1.1', '1.1']);
  });

  it('multiplexes many requests over one HTTP/2 connection', async () => {
    const { port, credentials } = await start(h2Plane);
    const before = h2Plane.requests.length;
    const sessionsBefore = h2Plane.sessions();
    const concurrent = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        rawRequest(port, { path: `${SERVICE}/web/proxy/item/${i}?n=${i}` }),
      ),
    );
    for (let i = 0; i < 3; i++) await rawRequest(port, { path: '/api' });
    expect(concurrent.map((res) => res.status)).toEqual(Array(25).fill(200));
    const seen = h2Plane.requests.slice(before);
    expect(seen).toHaveLength(28);
    expect(new Set(seen.map((r) => r.httpVersion))).toEqual(new Set(['2.0']));
    expect(new Set(seen.map((r) => r.connection)).size).toBe(1);
    expect(h2Plane.sessions() - sessionsBefore).toBe(1);
    expect(poolOf(credentials).sessionCount).toBe(1);
  });

  it("opens another connection when the server's stream limit is reached", async () => {
    const limited = await startControlPlane(certs, { http2: true, maxConcurrentStreams: 2 });
    try {
      const { port } = await start(limited);
      const answers = await Promise.all(
        Array.from({ length: 5 }, () => rawRequest(port, { path: `${SERVICE}/web/proxy/slow` })),
      );
      expect(answers.map((res) => res.body)).toEqual(Array(5).fill('slow'));
      expect(limited.requests.map((r) => r.httpVersion)).toEqual(Array(5).fill('2.0'));
      const perConnection = new Map<number, number>();
      for (const r of limited.requests) {
        perConnection.set(r.connection, (perConnection.get(r.connection) ?? 0) + 1);
      }
      expect(perConnection.size).toBeGreaterThanOrEqual(3);
      expect(Math.max(...perConnection.values())).toBeLessThanOrEqual(2);
    } finally {
      await limited.close();
    }
  });

  it('reconnects when the control plane drops the HTTP/2 connection', async () => {
    const { port, credentials } = await start(h2Plane);
    expect((await rawRequest(port, { path: '/api' })).status).toBe(200);
    const first = h2Plane.requests.at(-1)?.connection;
    h2Plane.dropConnections();
    await waitFor(() => poolOf(credentials).sessionCount === 0, { what: 'the session to close' });
    expect((await rawRequest(port, { path: '/api' })).status).toBe(200);
    const second = h2Plane.requests.at(-1);
    expect(second?.httpVersion).toBe('2.0');
    expect(second?.connection).not.toBe(first);
  });

  it('closes an idle HTTP/2 connection after http2IdleTimeoutMs and reconnects on demand', async () => {
    const { port, credentials } = await start(h2Plane, { http2IdleTimeoutMs: 30 });
    expect((await rawRequest(port, { path: '/api' })).status).toBe(200);
    const first = h2Plane.requests.at(-1)?.connection;
    await waitFor(() => poolOf(credentials).sessionCount === 0, { what: 'the idle timeout' });
    expect((await rawRequest(port, { path: '/api' })).status).toBe(200);
    expect(h2Plane.requests.at(-1)?.connection).not.toBe(first);
  });

  it('closes its HTTP/2 connection when the proxy closes', async () => {
    const { port, credentials, proxy } = await start(h2Plane);
    expect((await rawRequest(port, { path: '/api' })).status).toBe(200);
    expect(poolOf(credentials).sessionCount).toBe(1);
    await proxy.close();
    expect(poolOf(credentials).sessionCount).toBe(0);
  });

  it('answers 504 UPSTREAM_TIMEOUT when the service does not answer, and the connection stays usable', async () => {
    const { port } = await start(h2Plane, {}, { timeoutMs: 150 });
    const res = await rawRequest(port, { path: `${SERVICE}/web/proxy/hang` });
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        code: 'UPSTREAM_ERROR',
        message: 'The control plane did not answer in time.',
        innererror: { code: 'UPSTREAM_TIMEOUT' },
      },
    });
    const hung = h2Plane.requests.at(-1)?.connection;
    expect((await rawRequest(port, { path: '/api' })).status).toBe(200);
    expect(h2Plane.requests.at(-1)?.connection).toBe(hung);
  });

  it('answers the same 502 envelope with HTTP/2 on when the control plane is dead', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    const deadPort = typeof address === 'object' && address !== null ? address.port : 1;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const credentials = createClusterCredentials({
      server: `https://127.0.0.1:${deadPort}`,
      token: TOKEN,
      ca: certs.ca,
      http2: true,
    });
    expect(credentials.http2).toBe(true);
    const proxy = createLocalProxy({ credentials, port: 0 });
    opened.push({ proxy, credentials });
    const port = Number((await proxy.listen()).split(':').at(-1));
    const res = await rawRequest(port, { path: '/api' });
    expect(res.status).toBe(502);
    expect(JSON.parse(res.body)).toEqual({
      error: {
        code: 'UPSTREAM_ERROR',
        message: 'The control plane refused the connection.',
        innererror: { code: 'UPSTREAM_REFUSED' },
      },
    });
    expect(res.body).not.toContain(TOKEN);
  });

  it('relays an upgrade over HTTP/1.1 although the control plane offers HTTP/2', async () => {
    const { port } = await start(h2Plane);
    const before = h2Plane.requests.length;
    const result = await rawUpgrade(port, `${SERVICE}/web/proxy/socket`);
    expect(result).toEqual({ status: 101, echoed: 'echo:ping' });
    const [seen] = h2Plane.requests.slice(before);
    expect(seen).toMatchObject({ upgrade: true, httpVersion: '1.1', auth: 'bearer' });
  });
});

describe('getApiVersions toward a control plane offering HTTP/2', () => {
  it('negotiates HTTP/2 and returns the same answer', async () => {
    const credentials = credentialsFor(h2Plane);
    const before = h2Plane.requests.length;
    await expect(getApiVersions(credentials)).resolves.toMatchObject({
      kind: 'APIVersions',
      versions: ['v1'],
    });
    expect(h2Plane.requests.slice(before).map((r) => r.httpVersion)).toEqual(['2.0']);
    credentials.close();
  });
});

describeEachExpress('serviceProxy toward a control plane offering HTTP/2', (express) => {
  let server: RunningServer | undefined;
  let credentials: ClusterCredentials | undefined;
  const PREFIX = '/api/v1/namespaces/payments/services/ledger:http/proxy';

  afterEach(async () => {
    await server?.close();
    credentials?.close();
    server = undefined;
  });

  async function start(options: { timeoutMs?: number; rewriteHtml?: boolean } = {}) {
    credentials = credentialsFor(h2Plane);
    const app = express();
    const relay = serviceProxy({
      credentials,
      namespace: 'payments',
      service: 'ledger',
      port: 'http',
      mountPath: '/ledger',
      ...options,
    });
    app.use('/ledger', relay);
    app.use(errorHandler());
    server = await listen(app);
    return { url: server.url, relay };
  }

  it('relays a GET with query, a streamed POST and a streamed answer over HTTP/2 with the proxy credentials', async () => {
    const { url } = await start();
    const before = h2Plane.requests.length;
    const got = await request(url)
      .get('/ledger/v1/entries?page=2&tag=a&tag=b')
      .set('Authorization', 'Bearer client-token')
      .set('Cookie', 'session=abc');
    expect(got.status).toBe(200);
    expect(got.headers['x-served-by']).toBe('double');
    const posted = await request(url)
      .post('/ledger/items')
      .set('Content-Type', 'application/json')
      .send('{"amount":"10.00"}');
    expect(posted.body.body).toBe('{"amount":"10.00"}');
    const streamed = await request(url).get('/ledger/stream').buffer(true);
    expect(streamed.text).toBe('chunk 1\nchunk 2\nchunk 3\n');
    const seen = h2Plane.requests.slice(before);
    expect(seen.map((r) => r.httpVersion)).toEqual(['2.0', '2.0', '2.0']);
    expect(seen[0]?.url).toBe(`${PREFIX}/v1/entries?page=2&tag=a&tag=b`);
    expect(seen[0]?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen[0]?.headers.cookie).toBeUndefined();
    expect(new Set(seen.map((r) => r.connection)).size).toBe(1);
  });

  it('maps Location and rewrites HTML bodies over HTTP/2', async () => {
    const { url } = await start({ rewriteHtml: true });
    const redirect = await request(url).get('/ledger/redirect').redirects(0);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe('/ledger/landing?from=redirect');
    const html = await request(url).get('/ledger/html');
    expect(html.text).toContain('href="/ledger/next"');
    expect(html.headers['content-length']).toBe(String(Buffer.byteLength(html.text)));
    expect(h2Plane.requests.at(-1)?.httpVersion).toBe('2.0');
  });

  it('answers 504 UPSTREAM_ERROR when the service does not answer in time over HTTP/2', async () => {
    const { url } = await start({ timeoutMs: 150 });
    const res = await request(url).get('/ledger/hang');
    expectErrorEnvelope(res, 504, { code: 'UPSTREAM_ERROR' });
    expect(res.body.error.innererror).toEqual({ code: 'UPSTREAM_TIMEOUT' });
  });

  it('relays upgrades over HTTP/1.1 through middleware.upgrade', async () => {
    const { relay } = await start();
    server?.server.on('upgrade', relay.upgrade);
    const result = await rawUpgrade(server?.port ?? 0, '/ledger/socket?x=1');
    expect(result).toEqual({ status: 101, echoed: 'echo:ping' });
    expect(h2Plane.requests.at(-1)).toMatchObject({
      upgrade: true,
      httpVersion: '1.1',
      url: `${PREFIX}/socket?x=1`,
    });
  });
});
