import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import { errorHandler } from '@resourceful/error-envelope';
import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  type RunningServer,
} from '@resourceful/test-support';
import { rawRequest, rawUpgrade, useControlPlane } from '@resourceful/test-support/k8s';
import request from 'supertest';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClusterCredentials,
  createClusterCredentials,
  type ServiceProxyOptions,
  serviceProxy,
} from '../src/index.js';

const TOKEN = 'relay-token-0123456789';
const PREFIX = '/api/v1/namespaces/payments/services/ledger:http/proxy';

const k8s = useControlPlane({ tokens: [TOKEN] });
let credentials: ClusterCredentials;

beforeAll(async () => {
  credentials = createClusterCredentials({ server: k8s.plane.url, token: TOKEN, ca: k8s.certs.ca });
});
afterAll(async () => {
  credentials.close();
});

describe('serviceProxy options', () => {
  it('refuses missing credentials, unknown options and bad names at construction', () => {
    expect(() => serviceProxy({} as ServiceProxyOptions)).toThrow(/"credentials" is required/);
    expect(() => serviceProxy({ credentials } as ServiceProxyOptions)).toThrow(
      /"service" is required/,
    );
    expect(() => serviceProxy({ credentials, service: 'Ledger' })).toThrow(/"service" must be/);
    expect(() => serviceProxy({ credentials, service: 'ledger', namespace: 'a_b' })).toThrow(
      /"namespace" must be/,
    );
    expect(() =>
      serviceProxy({
        credentials,
        service: 'ledger',
        timeout: 1,
      } as unknown as ServiceProxyOptions),
    ).toThrow(/unknown option "timeout"/);
    expect(() => serviceProxy({ credentials, params: { service: 'svc' } })).toThrow(/allow list/);
    expect(() =>
      serviceProxy({ credentials, params: { service: 'svc' }, allow: ['payments'] }),
    ).toThrow(/"allow\[0\]" must be "namespace\/service"/);
    expect(() => serviceProxy({ credentials, service: 'ledger', timeoutMs: -1 })).toThrow(
      /timeoutMs/,
    );
  });

  it('refuses, at construction, options that would otherwise fail on every request', () => {
    const fromParams = { credentials, params: { service: 'svc' }, allow: ['payments/*'] };
    expect(() =>
      serviceProxy({ ...fromParams, scheme: 'ftp' } as unknown as ServiceProxyOptions),
    ).toThrow(/"scheme" must be "http" or "https"/);
    expect(() => serviceProxy({ ...fromParams, port: 'not a port' })).toThrow(/"port" must be/);
    expect(() =>
      serviceProxy({
        credentials,
        params: { service: 'svc' },
        allow: 'payments/*',
      } as unknown as ServiceProxyOptions),
    ).toThrow(/"allow" must be an array/);
    expect(() =>
      serviceProxy({
        credentials,
        service: 'ledger',
        rewriteHtml: 'yes',
      } as unknown as ServiceProxyOptions),
    ).toThrow(/"rewriteHtml" must be true or false/);
  });

  it('does not mutate the options object', () => {
    const options = Object.freeze({ credentials, service: 'ledger', port: 'http' });
    expect(() => serviceProxy(options)).not.toThrow();
  });
});

describeEachExpress('serviceProxy', (express) => {
  let server: RunningServer | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function start(options: Partial<ServiceProxyOptions> = {}, parseJson = false) {
    const app = express();
    if (parseJson) app.use(express.json());
    const relay = serviceProxy({
      credentials,
      namespace: 'payments',
      service: 'ledger',
      port: 'http',
      ...options,
    } as ServiceProxyOptions);
    app.use('/ledger', relay);
    app.use(
      '/svc/:namespace/:service',
      serviceProxy({
        credentials,
        params: { namespace: 'namespace', service: 'service' },
        allow: ['payments/ledger', 'ops/*'],
        rewriteLocation: true,
      }),
    );
    app.use(errorHandler());
    server = await listen(app);
    return { url: server.url, relay };
  }

  function lastUpstream() {
    return k8s.plane.requests.at(-1);
  }

  /** Runs `use` with credentials that send `token`, closed afterwards. */
  async function withToken(token: string, use: (credentials: ClusterCredentials) => Promise<void>) {
    const credentials = createClusterCredentials({
      server: k8s.plane.url,
      token,
      ca: k8s.certs.ca,
    });
    try {
      await use(credentials);
    } finally {
      credentials.close();
    }
  }

  describe('when the control plane answers with its own Status', () => {
    it('relays a 401 (the relay credential refused) with its Status body, as kubectl proxy does', async () => {
      await withToken('revoked', async (refused) => {
        const { url } = await start({ credentials: refused });
        const res = await request(url).get('/ledger/v1/entries');
        expect(res.status).toBe(401);
        expect(res.headers['content-type']).toMatch(/^application\/json/);
        expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
      });
    });

    it('relays a 503 for a service without endpoints with its Status body, as kubectl proxy does', async () => {
      const { url } = await start({ service: 'no-endpoints' });
      const res = await request(url).get('/ledger/v1/entries');
      expect(res.status).toBe(503);
      expect(res.body).toMatchObject({
        kind: 'Status',
        reason: 'ServiceUnavailable',
        message: 'no endpoints available for service "no-endpoints"',
        code: 503,
      });
    });
  });

  it('relays method, suffix and query with the proxy token, not the client credentials', async () => {
    const { url } = await start();
    const res = await request(url)
      .get('/ledger/v1/entries?page=2&tag=a&tag=b')
      .set('Authorization', 'Bearer client-token')
      .set('Cookie', 'session=abc')
      .set('X-Trace', '1');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      namespace: 'payments',
      service: 'ledger:http',
      suffix: '/v1/entries',
    });
    const seen = lastUpstream();
    expect(seen?.url).toBe(`${PREFIX}/v1/entries?page=2&tag=a&tag=b`);
    expect(seen?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(seen?.headers.cookie).toBeUndefined();
    expect(seen?.headers['x-trace']).toBe('1');
    expect(seen?.headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('relays an absolute-form target (RFC 9112 §3.2.2) to the path its origin form names', async () => {
    const { relay } = await start({ mountPath: '/ledger' });
    server?.server.on('upgrade', relay.upgrade);
    const port = server?.port ?? 0;
    const target = `http://localhost:${port}/ledger/v1/entries?page=2`;
    expect((await rawRequest(port, { path: target })).status).toBe(200);
    expect(lastUpstream()?.url).toBe(`${PREFIX}/v1/entries?page=2`);
    expect((await rawUpgrade(port, target.replace('entries?page=2', 'socket'))).status).toBe(101);
    expect(lastUpstream()?.url).toBe(`${PREFIX}/v1/socket`);
  });

  it('streams a request body up and a chunked answer down', async () => {
    const { url } = await start();
    const posted = await request(url)
      .post('/ledger/items')
      .set('Content-Type', 'application/json')
      .send('{"amount":"10.00"}');
    expect(posted.status).toBe(200);
    expect(posted.body.body).toBe('{"amount":"10.00"}');
    const streamed = await request(url).get('/ledger/stream').buffer(true);
    expect(streamed.text).toBe('chunk 1\nchunk 2\nchunk 3\n');
  });

  it('drops headers that would change who the control plane thinks is calling', async () => {
    const { url } = await start();
    const res = await request(url)
      .get('/ledger/v1/entries')
      .set('Impersonate-User', 'system:admin')
      .set('Impersonate-Group', 'system:masters')
      .set('Impersonate-Uid', '0')
      .set('Impersonate-Extra-Scopes', 'all')
      .set('X-Remote-User', 'admin')
      .set('X-Remote-Group', 'system:masters')
      .set('X-Remote-Extra-Scopes', 'all')
      .set('X-Trace', '1');
    expect(res.status).toBe(200);
    const seen = Object.keys(lastUpstream()?.headers ?? {});
    expect(seen.filter((name) => /^(impersonate-|x-remote-)/.test(name))).toEqual([]);
    expect(seen).toContain('x-trace');
  });

  it('re-sends a body that a JSON parser mounted earlier already read', async () => {
    const { url } = await start({}, true);
    const res = await request(url).post('/ledger/items').send({ amount: '5.00' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body.body)).toEqual({ amount: '5.00' });
  });

  it.each([false, true])(
    're-sends a form that express.urlencoded({ extended: %s }) read with its repeated and nested fields',
    async (extended) => {
      const app = express();
      app.use(express.urlencoded({ extended }));
      app.use('/ledger', serviceProxy({ credentials, namespace: 'payments', service: 'ledger' }));
      app.use(errorHandler());
      server = await listen(app);
      const res = await request(server.url)
        .post('/ledger/items')
        .type('form')
        .send('tag=a&tag=b&note=x+y&meta%5Bk%5D=v&items%5B0%5D%5Bid%5D=1&items%5B1%5D%5Bid%5D=2');
      expect(res.status).toBe(200);
      expect([...new URLSearchParams(lastUpstream()?.body)]).toEqual([
        ['tag', 'a'],
        ['tag', 'b'],
        ['note', 'x y'],
        ['meta[k]', 'v'],
        ['items[0][id]', '1'],
        ['items[1][id]', '2'],
      ]);
    },
  );

  it.each(['"x"', '"5"', '5', '0', 'null', 'false', '[1,"a",null]'])(
    're-sends the JSON body %s that express.json({ strict: false }) read as the same JSON value',
    async (sent) => {
      const app = express();
      app.use(express.json({ strict: false }));
      app.use('/ledger', serviceProxy({ credentials, namespace: 'payments', service: 'ledger' }));
      app.use(errorHandler());
      server = await listen(app);
      const res = await request(server.url)
        .post('/ledger/items')
        .set('content-type', 'application/json')
        .send(sent);
      expect(res.status).toBe(200);
      expect(lastUpstream()?.body).toBe(sent);
      expect(lastUpstream()?.headers['content-length']).toBe(String(Buffer.byteLength(sent)));
    },
  );

  it('re-sends a text body that express.text() read as it is', async () => {
    const app = express();
    app.use(express.text());
    app.use('/ledger', serviceProxy({ credentials, namespace: 'payments', service: 'ledger' }));
    app.use(errorHandler());
    server = await listen(app);
    const res = await request(server.url).post('/ledger/items').type('text').send('"x" y');
    expect(res.status).toBe(200);
    expect(lastUpstream()?.body).toBe('"x" y');
  });

  it('sends no body upstream for a GET that a JSON parser mounted earlier saw', async () => {
    const { url } = await start({}, true);
    const res = await request(url).get('/ledger/items');
    expect(res.status).toBe(200);
    expect(lastUpstream()?.body).toBe('');
    expect(lastUpstream()?.headers['content-length'] ?? '0').toBe('0');
  });

  it('re-sends a gzip body the JSON parser inflated without its Content-Encoding', async () => {
    const { url } = await start({}, true);
    const gzipped = gzipSync('{"amount":"5.00"}');
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = httpRequest(`${url}/ledger/items`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          'Content-Encoding': 'gzip',
          'Content-Length': gzipped.length,
        },
      });
      req.on('response', (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end(gzipped);
    });
    expect(answer.status).toBe(200);
    expect(JSON.parse(JSON.parse(answer.body).body)).toEqual({ amount: '5.00' });
    expect(lastUpstream()?.headers['content-encoding']).toBeUndefined();
  });

  it('answers 400 naming "path" for a suffix that climbs out, and sends nothing upstream', async () => {
    const { url } = await start();
    for (const suffix of ['/%2e%2e/%2e%2e/secrets', '/a/%2E%2E', '/..%2f..%2fsecrets', '/a%5c..']) {
      const before = k8s.plane.requests.length;
      const res = await request(url).get(`/ledger${suffix}`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'path' });
      expect(res.body.error.innererror).toEqual({ code: 'PATH_OUTSIDE_SERVICE' });
      expect(k8s.plane.requests.length).toBe(before);
    }
  });

  it('maps the control plane prefix in Location back to the mount path', async () => {
    const { url } = await start();
    const res = await request(url).get('/ledger/redirect').redirects(0);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/ledger/landing?from=redirect');
  });

  it('leaves Location alone when rewriteLocation is false', async () => {
    const { url } = await start({ rewriteLocation: false });
    const res = await request(url).get('/ledger/redirect').redirects(0);
    expect(res.headers.location).toBe(`${PREFIX}/landing?from=redirect`);
  });

  it('rewrites absolute links in HTML bodies only when rewriteHtml is set', async () => {
    const plain = await start();
    const untouched = await request(plain.url).get('/ledger/html');
    expect(untouched.text).toContain(`href="${PREFIX}/next"`);
    await server?.close();
    const rewriting = await start({ rewriteHtml: true });
    const res = await request(rewriting.url).get('/ledger/html');
    expect(res.text).toContain('href="/ledger/next"');
    expect(res.text).toContain('href="/ledger/style.css"');
    expect(res.text).toContain('href="https://example.com/x"');
    expect(res.headers['content-length']).toBe(String(Buffer.byteLength(res.text)));
  });

  it('keeps every byte of an HTML body that is not UTF-8 while rewriting its links', async () => {
    const { url } = await start({ rewriteHtml: true });
    const res = await request(url)
      .get('/ledger/html-latin1')
      .buffer(true)
      .parse((stream, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => done(null, Buffer.concat(chunks)));
      });
    const expected = Buffer.concat([
      Buffer.from('<a href="/ledger/menu">caf'),
      Buffer.from([0xe9]),
      Buffer.from('</a>'),
    ]);
    expect(res.body).toEqual(expected);
    expect(res.headers['content-length']).toBe(String(expected.length));
  });

  it('answers HEAD on a rewritten HTML page without a Content-Length it cannot know', async () => {
    const { url } = await start({ rewriteHtml: true });
    const res = await request(url).head('/ledger/html');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['content-length']).toBeUndefined();
  });

  it('takes the service from route parameters, restricted by the allow list', async () => {
    const { url } = await start();
    const allowed = await request(url).get('/svc/payments/ledger/v1?x=1');
    expect(allowed.status).toBe(200);
    expect(lastUpstream()?.url).toBe('/api/v1/namespaces/payments/services/ledger/proxy/v1?x=1');
    const wildcard = await request(url).get('/svc/ops/anything/');
    expect(wildcard.status).toBe(200);
    const before = k8s.plane.requests.length;
    expectErrorEnvelope(await request(url).get('/svc/payments/secrets-api/'), 404, {
      code: 'NOT_FOUND',
      target: 'service',
    });
    expectErrorEnvelope(await request(url).get('/svc/kube-system/ledger/'), 404, {
      code: 'NOT_FOUND',
    });
    expectErrorEnvelope(await request(url).get('/svc/payments/Ledger/'), 400, {
      code: 'INVALID_REQUEST',
      target: 'service',
    });
    expectErrorEnvelope(await request(url).get('/svc/__proto__/ledger/'), 400, {
      target: 'namespace',
    });
    expect(k8s.plane.requests.length).toBe(before);
  });

  it("relays response headers larger than Node's 16 KiB default, as kubectl proxy does", async () => {
    const { url } = await start();
    const answer = await new Promise<{ status?: number; big?: string; body: string }>(
      (resolve, reject) => {
        const req = httpRequest(`${url}/ledger/big-headers`, { maxHeaderSize: 1 << 20 }, (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => {
            body += chunk;
          });
          res.on('end', () =>
            resolve({ status: res.statusCode, big: res.headers['x-big'] as string, body }),
          );
        });
        req.on('error', reject);
        req.end();
      },
    );
    expect(answer.status).toBe(200);
    expect(answer.big).toHaveLength(64 * 1024);
    expect(answer.body).toBe('big');
  });

  it('answers 504 UPSTREAM_ERROR when the service does not answer in time', async () => {
    const { url } = await start({ timeoutMs: 150 });
    const res = await request(url).get('/ledger/hang');
    expectErrorEnvelope(res, 504, { code: 'UPSTREAM_ERROR' });
    expect(res.body.error.innererror).toEqual({ code: 'UPSTREAM_TIMEOUT' });
  });

  it('answers 502 without the token when the control plane is unreachable or untrusted', async () => {
    const app = express();
    const dead = createClusterCredentials({ server: 'https://127.0.0.1:1', token: TOKEN });
    const untrusted = createClusterCredentials({
      server: k8s.plane.url,
      token: TOKEN,
      ca: k8s.certs.otherCa,
    });
    app.use('/dead', serviceProxy({ credentials: dead, service: 'ledger' }));
    app.use('/untrusted', serviceProxy({ credentials: untrusted, service: 'ledger' }));
    const reported: unknown[] = [];
    app.use(errorHandler({ onError: (report) => reported.push(report.error.cause) }));
    server = await listen(app);
    const refused = await request(server.url).get('/dead/x');
    expectErrorEnvelope(refused, 502, { code: 'UPSTREAM_ERROR' });
    expect(refused.text).not.toContain(TOKEN);
    const tls = await request(server.url).get('/untrusted/x');
    expectErrorEnvelope(tls, 502, { code: 'UPSTREAM_ERROR' });
    expect(tls.body.error.innererror).toEqual({ code: 'UPSTREAM_TLS' });
    // The low-level reason stays on the error for the app's log, never in the envelope.
    expect(reported).toEqual([
      expect.objectContaining({ code: 'ECONNREFUSED' }),
      expect.objectContaining({ code: 'SELF_SIGNED_CERT_IN_CHAIN' }),
    ]);
    expect(tls.text).not.toContain('SELF_SIGNED');
    dead.close();
    untrusted.close();
  });

  it('answers 500, not 400, when its own token cannot be sent in a header (a line break inside)', async () => {
    await withToken('secret-part\nsecond-part', async (broken) => {
      const { url, relay } = await start({ credentials: broken, mountPath: '/ledger' });
      server?.server.on('upgrade', relay.upgrade);
      const before = k8s.plane.requests.length;
      const res = await request(url).get('/ledger/v1/entries');
      expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
      expect(res.body.error.innererror).toEqual({ code: 'CREDENTIAL_NOT_SENDABLE' });
      expect(res.text).not.toContain('secret-part');
      expect((await rawUpgrade(server?.port ?? 0, '/ledger/socket')).status).toBe(500);
      expect(k8s.plane.requests.length).toBe(before);
    });
  });

  it('relays odd headers (repeated, __proto__) without crashing', async () => {
    const { url } = await start();
    const res = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${url}/ledger/odd`, {
        headers: { __proto__: 'x', 'X-Repeat': ['1', '2'] } as unknown as Record<string, string>,
      });
      req.setHeader('__proto__', 'x');
      req.on('response', (answer) => {
        answer.resume();
        resolve(answer.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(res).toBe(200);
    expect(lastUpstream()?.headers['x-repeat']).toBe('1, 2');
  });

  it('relays WebSocket-style upgrades through middleware.upgrade', async () => {
    const { relay } = await start({ mountPath: '/ledger' });
    server?.server.on('upgrade', relay.upgrade);
    const result = await rawUpgrade(server?.port ?? 0, '/ledger/socket?x=1', {
      Authorization: 'Bearer client',
    });
    expect(result).toEqual({ status: 101, echoed: 'echo:ping' });
    const seen = lastUpstream();
    expect(seen?.upgrade).toBe(true);
    expect(seen?.url).toBe(`${PREFIX}/socket?x=1`);
    expect(seen?.headers.authorization).toBe(`Bearer ${TOKEN}`);
    const refused = await rawUpgrade(server?.port ?? 0, '/ledger/%2e%2e/x');
    expect(refused.status).toBe(400);
  });
});
