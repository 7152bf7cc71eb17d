import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClusterCredentials } from '@resourceful/k8s-service-proxy';
import { rawExchange, thrownBy } from '@resourceful/test-support';
import { rawRequest, rawUpgrade, useControlPlane } from '@resourceful/test-support/k8s';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createLocalProxy,
  createRequestFilter,
  type LocalProxy,
  type LocalProxyOptions,
} from '../src/index.js';
import { hostForFilter } from '../src/request-filter.js';

const k8s = useControlPlane();
let www: string;

beforeAll(async () => {
  www = mkdtempSync(join(tmpdir(), 'k8s-www-'));
  writeFileSync(join(www, 'hello.txt'), 'hello');
  mkdirSync(join(www, 'docs'));
  writeFileSync(join(www, 'docs', 'index.html'), '<h1>docs</h1>');
});
afterAll(async () => {
  rmSync(www, { recursive: true, force: true });
});

describe('hostForFilter (Go net.SplitHostPort, whole value on failure)', () => {
  it.each([
    ['localhost:8001', 'localhost'],
    ['localhost', 'localhost'],
    ['127.0.0.1:1', '127.0.0.1'],
    ['[::1]:8001', '::1'],
    ['[::1]', '[::1]'],
    ['::1', '::1'],
    ['', ''],
  ])('%j → %j', (header, host) => {
    expect(hostForFilter(header)).toBe(host);
  });

  it('compiles comma lists and refuses invalid expressions naming the flag', () => {
    expect(() => createRequestFilter({ rejectPaths: '(' })).toThrow(/--reject-paths/);
    const filter = createRequestFilter({
      rejectMethods: 'POST,PUT',
      acceptHosts: '(?i)^LOCALHOST$',
    });
    expect(filter.accepts('POST', '/api', 'localhost')).toBe(false);
    expect(filter.accepts('GET', '/api', 'LocalHost:1')).toBe(true);
  });
});

describe("the filter's regular expressions, in Go's syntax as kubectl reads them", () => {
  const EXEC = '/api/v1/namespaces/default/pods/p/exec';

  it.each([
    ['\\A and \\z', '\\A/api/.*/pods/.*/exec\\z', [EXEC], [`${EXEC}/x`]],
    ['a POSIX class', '^/api/v1/namespaces/[[:digit:]]+/', ['/api/v1/namespaces/7/pods'], [EXEC]],
    ['Unicode classes', '^/x\\pL\\p{Greek}$', ['/xaα'], ['/xaa', '/x1α']],
    ['a quoted literal', '^\\Q/a.b\\E$', ['/a.b'], ['/aXb']],
    ['a "]" first in a class', '^/[]x]$', ['/]', '/x'], ['/y']],
    ['a hex escape', '^/\\x{41}$', ['/A'], ['/B']],
    ['a named group', '^/(?P<kind>pods)/', ['/pods/x'], ['/svc/x']],
    ['"." (which takes "\\r" in Go)', '^/a.b$', ['/a\rb'], ['/a\nb']],
    ['"\\s" (which leaves "\\v" out in Go)', '^/a\\sb$', ['/a b'], ['/a\vb']],
  ])('reads %s as kubectl does', (_what, rejectPaths, rejected, accepted) => {
    const filter = createRequestFilter({ rejectPaths });
    for (const path of rejected) expect(filter.accepts('GET', path, 'localhost'), path).toBe(false);
    for (const path of accepted) expect(filter.accepts('GET', path, 'localhost'), path).toBe(true);
  });

  it.each([
    ['\\C', 'an escape Go refuses too', /\\C is not an escape Go knows/],
    ['\\1', 'a backreference, refused by Go too', /backreference/],
    ['[[:^alpha:]]', 'a negated POSIX class', /has no translation/],
    ['[\\S]', '\\S inside a class', /has no translation/],
  ])('refuses %s (%s) at construction, naming the flag', (rejectPaths, _what, reason) => {
    const error = thrownBy(() => createRequestFilter({ rejectPaths }));
    expect(error.message).toMatch(/--reject-paths: .* is not a valid regular expression/);
    expect(error.message).toMatch(reason);
  });
});

describe('createLocalProxy', () => {
  let proxy: LocalProxy | undefined;
  afterEach(async () => {
    await proxy?.close();
    proxy = undefined;
  });

  async function start(options: Partial<LocalProxyOptions> = {}, server = k8s.plane.url) {
    const credentials = createClusterCredentials({ server, token: 'test-token', ca: k8s.certs.ca });
    proxy = createLocalProxy({ credentials, port: 0, ...options });
    const where = await proxy.listen();
    return Number(where.split(':').at(-1));
  }

  it('refuses bad options at construction', () => {
    const credentials = createClusterCredentials({
      server: k8s.plane.url,
      token: 't',
      ca: k8s.certs.ca,
    });
    expect(() => createLocalProxy({ credentials, port: 70000 })).toThrow(/port/);
    expect(() => createLocalProxy({ credentials, apiPrefix: 'api' })).toThrow(/apiPrefix/);
    expect(() => createLocalProxy({} as unknown as LocalProxyOptions)).toThrow(/credentials/);
    expect(() => createLocalProxy({ credentials, log: 'stderr' as never })).toThrow(
      /"log" must be a function taking a line/,
    );
    credentials.close();
  });

  it('logs why a request or an upgrade could not be relayed, one line each, through log', async () => {
    const lines: string[] = [];
    const port = await start({ log: (line) => lines.push(line) }, 'https://127.0.0.1:1');
    const upgrade = await rawUpgrade(port, '/api/v1/namespaces/default/services/web/proxy/socket');
    expect(upgrade.status).toBe(502);
    const plain = await rawRequest(port, { path: '/api?watch=1' });
    expect(plain.status).toBe(502);
    expect(JSON.parse(plain.body).error.message).toBe('The control plane refused the connection.');
    expect(lines).toEqual([
      'error: proxying GET /api/v1/namespaces/default/services/web/proxy/socket failed: 502 UPSTREAM_REFUSED: connect ECONNREFUSED 127.0.0.1:1 (ECONNREFUSED)\n',
    ]);
  });

  it('strips an --api-prefix that does not start with /api and 404s outside it', async () => {
    const port = await start({ apiPrefix: '/k8s-api/' });
    const res = await rawRequest(port, { path: '/k8s-api/api' });
    expect(res.status).toBe(200);
    expect(k8s.plane.requests.at(-1)?.url).toBe('/api');
    await rawRequest(port, { path: '/k8s-api/api/v1/pods?limit=1' });
    expect(k8s.plane.requests.at(-1)?.url).toBe('/api/v1/pods?limit=1');
    const outside = await rawRequest(port, { path: '/api' });
    expect(outside.status).toBe(404);
    expect(outside.body).toBe('404 page not found\n');
    const bare = await rawRequest(port, { path: '/k8s-api' });
    expect(bare.status).toBe(301);
    expect(bare.headers.location).toBe('/k8s-api/');
  });

  it('keeps an --api-prefix that starts with /api', async () => {
    const port = await start({ apiPrefix: '/api/' });
    await rawRequest(port, { path: '/api/v1/namespaces' });
    expect(k8s.plane.requests.at(-1)?.url).toBe('/api/v1/namespaces');
  });

  it('appends the server path with --append-server-path', async () => {
    const port = await start({ appendServerPath: true }, `${k8s.plane.url}/base/`);
    await rawRequest(port, { path: '/api/v1?watch=1' });
    expect(k8s.plane.requests.at(-1)?.url).toBe('/base/api/v1?watch=1');
  });

  it('rejects methods matched by --reject-methods with 403 and sends nothing', async () => {
    const port = await start({ rejectMethods: 'POST,DELETE' });
    const before = k8s.plane.requests.length;
    const res = await rawRequest(port, { method: 'DELETE', path: '/api' });
    expect(res.status).toBe(403);
    expect(res.body).toBe('Forbidden\n');
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('redirects an upgrade request with a .. segment, never relaying it past --accept-paths', async () => {
    const port = await start({ acceptPaths: '^/api/v1/namespaces/default/services/web/proxy/' });
    const before = k8s.plane.requests.length;
    const res = await rawUpgrade(
      port,
      '/api/v1/namespaces/default/services/web/proxy/../../../../../api?x=1',
    );
    expect(res.status).toBe(301);
    expect(res.location).toBe('/api/v1/api?x=1');
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('refuses an upgrade request outside --accept-paths with 403 Forbidden', async () => {
    const port = await start({ acceptPaths: '^/api/v1/namespaces/default/services/web/proxy/' });
    const before = k8s.plane.requests.length;
    const res = await rawUpgrade(port, '/api/v1/namespaces/default/secrets');
    expect(res).toMatchObject({ status: 403, body: 'Forbidden\n' });
    expect(res.contentType).toBe('text/plain; charset=utf-8');
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('answers CONNECT itself and relays no tunnel: 404 outside --api-prefix, 403 filtered, else 501', async () => {
    const port = await start({ apiPrefix: '/k8s-api/' });
    const before = k8s.plane.requests.length;
    const statusOf = async (target: string) => {
      const head = `CONNECT ${target} HTTP/1.1\r\nHost: localhost:${port}\r\n\r\n`;
      const { text, closedByServer } = await rawExchange(port, head);
      expect(closedByServer).toBe(true);
      return text.split('\r\n')[0];
    };
    expect(await statusOf('localhost:443')).toBe('HTTP/1.1 404 Not Found');
    expect(await statusOf('/k8s-api/api/v1/namespaces/d/pods/p/exec')).toBe(
      'HTTP/1.1 403 Forbidden',
    );
    expect(await statusOf('/k8s-api/api/v1/namespaces/d/pods/p/portforward')).toBe(
      'HTTP/1.1 501 Not Implemented',
    );
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('answers 431 in plain text, as Go does, to request headers too large to parse', async () => {
    const port = await start();
    const before = k8s.plane.requests.length;
    const res = await rawRequest(port, { path: '/api', headers: { 'X-Big': 'x'.repeat(20_000) } });
    expect(res).toMatchObject({ status: 431, body: '431 Request Header Fields Too Large' });
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('lets everything through with --disable-filter', async () => {
    const port = await start({ disableFilter: true });
    const res = await rawRequest(port, {
      path: '/api/v1/namespaces/default/pods/p/exec',
      headers: { Host: 'evil.example' },
    });
    expect(res.status).toBe(404); // the double's answer: it went upstream
  });

  it('serves --www files under --www-prefix and never outside the folder', async () => {
    const port = await start({ www, wwwPrefix: '/static/' });
    const file = await rawRequest(port, { path: '/static/hello.txt' });
    expect(file.status).toBe(200);
    expect(file.body).toBe('hello');
    expect(file.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect((await rawRequest(port, { path: '/static/docs/' })).body).toBe('<h1>docs</h1>');
    expect((await rawRequest(port, { path: '/static/docs' })).status).toBe(301);
    expect((await rawRequest(port, { path: '/static/%2e%2e/%2e%2e/etc/passwd' })).status).toBe(404);
    expect((await rawRequest(port, { path: '/static/missing' })).status).toBe(404);
  });

  it('answers 400 for malformed percent-encoding and sends nothing', async () => {
    const port = await start();
    const before = k8s.plane.requests.length;
    expect((await rawRequest(port, { path: '/api/%zz' })).status).toBe(400);
    expect(k8s.plane.requests.length).toBe(before);
  });

  it('answers 504 when --request-timeout passes, as an envelope', async () => {
    const port = await start({ timeoutMs: 150 });
    const res = await rawRequest(port, {
      path: '/api/v1/namespaces/default/services/web/proxy/hang',
    });
    expect(res.status).toBe(504);
    expect(JSON.parse(res.body).error.code).toBe('UPSTREAM_ERROR');
  });

  it('listens on a Unix socket with --unix-socket', async () => {
    const socketPath = join(www, 'proxy.sock');
    const credentials = createClusterCredentials({
      server: k8s.plane.url,
      token: 'test-token',
      ca: k8s.certs.ca,
    });
    proxy = createLocalProxy({ credentials, unixSocket: socketPath });
    expect(await proxy.listen()).toBe(socketPath);
    const res = await rawRequest(0, { path: '/api', socketPath, headers: { Host: 'localhost' } });
    expect(res.status).toBe(200);
  });
});

describe('option names', () => {
  it('refuses unknown option names of createLocalProxy and createRequestFilter with a hint', () => {
    const credentials = createClusterCredentials({ server: 'https://127.0.0.1:1', token: 't' });
    try {
      expect(() =>
        createLocalProxy({ credentials, prot: 1 } as unknown as LocalProxyOptions),
      ).toThrow(/createLocalProxy: unknown option "prot". Did you mean "port"\?/);
      expect(() => createRequestFilter({ acceptHost: 'x' } as never)).toThrow(
        /Did you mean "acceptHosts"\?/,
      );
    } finally {
      credentials.close();
    }
  });
});
