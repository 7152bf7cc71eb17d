/**
 * The same requests through `kubectl proxy` and through `k8s-local-proxy`, both pointed at the
 * same control-plane double with the same kubeconfig: the answers and what the double received
 * must match request by request, except where a test names a documented difference. The double
 * speaks HTTP/1.1 (against one that offers HTTP/2, kubectl uses it and we do not: a documented
 * difference, tested at the end). The second half starts pairs of proxies with the other
 * credential kinds (exec plugins, OIDC id-tokens, `--as*`, `--token` over a plugin) and
 * kubeconfigs both must refuse.
 */

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rawExchange, writeKubeconfig } from '@resourceful/test-support';
import {
  type RawRequest,
  type RawResponse,
  type RecordedRequest,
  rawRequest,
  rawUpgrade,
  useControlPlane,
} from '@resourceful/test-support/k8s';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  findKubectl,
  type RunningProxy,
  startKubectlProxy,
  startOurProxy,
} from './support/proxy-processes.js';

const kubectl = findKubectl();
const runDifferential = kubectl !== undefined || process.env.CI !== undefined;
if (!runDifferential) {
  console.warn(
    'k8s-service-proxy: kubectl is not installed, so the differential suite against `kubectl proxy` is skipped (it always runs under CI).',
  );
}

/** The parts of an upstream request that must be identical through both proxies. */
const COMPARED_HEADERS = [
  'authorization',
  'x-forwarded-for',
  'content-type',
  'content-length',
  'cookie',
  'te',
  'connection',
  'keep-alive',
  'proxy-authorization',
  'x-drop',
  'upgrade',
  'x-custom',
  'impersonate-user',
  'impersonate-group',
  'impersonate-uid',
];

function seen(requests: readonly RecordedRequest[]) {
  return requests.map((request) => ({
    httpVersion: request.httpVersion,
    method: request.method,
    url: request.url,
    body: request.body,
    auth: request.auth,
    upgrade: request.upgrade,
    headers: Object.fromEntries(
      COMPARED_HEADERS.filter((name) => request.headers[name] !== undefined)
        // Node's pooled agent says `Connection: keep-alive`, Go says nothing: the same in HTTP/1.1
        // (RFC 9112 §9.3), and the README lists it.
        .filter((name) => !(name === 'connection' && request.headers[name] === 'keep-alive'))
        .map((name) => [name, request.headers[name]]),
    ),
  }));
}

interface Observation {
  response: RawResponse;
  upstream: ReturnType<typeof seen>;
}

describe.skipIf(!runDifferential)(
  'k8s-local-proxy against kubectl proxy, control plane on HTTP/1.1',
  () => {
    const k8s = useControlPlane();
    let kubeconfig: string;
    let reference: RunningProxy;
    let candidate: RunningProxy;

    beforeAll(async () => {
      if (kubectl === undefined) throw new Error('kubectl is required for this suite under CI');
      kubeconfig = writeKubeconfig(k8s.certs.dir, {
        server: k8s.plane.url,
        caFile: k8s.certs.caFile,
        user: { token: 'test-token' },
      });
      [reference, candidate] = await Promise.all([
        startKubectlProxy(kubectl, [`--kubeconfig=${kubeconfig}`]),
        startOurProxy([`--kubeconfig=${kubeconfig}`]),
      ]);
    });

    afterAll(async () => {
      await Promise.all([reference?.stop(), candidate?.stop()]);
    });

    async function observe(proxy: RunningProxy, request: RawRequest): Promise<Observation> {
      const before = k8s.plane.requests.length;
      const headers = Object.fromEntries(
        Object.entries(request.headers ?? {}).map(([name, value]) => [
          name,
          typeof value === 'string' ? value.replaceAll('{port}', String(proxy.port)) : value,
        ]),
      );
      const response = await rawRequest(proxy.port, { ...request, headers });
      return { response, upstream: seen(k8s.plane.requests.slice(before)) };
    }

    async function both(request: RawRequest): Promise<[Observation, Observation]> {
      const kubectlSaw = await observe(reference, request);
      const oursSaw = await observe(candidate, request);
      return [kubectlSaw, oursSaw];
    }

    function expectSameAnswer(kubectlSaw: Observation, oursSaw: Observation): void {
      expect(oursSaw.response.status).toBe(kubectlSaw.response.status);
      expect(oursSaw.upstream).toEqual(kubectlSaw.upstream);
      for (const name of ['content-type', 'location', 'x-content-type-options', 'x-served-by']) {
        expect(oursSaw.response.headers[name], name).toEqual(kubectlSaw.response.headers[name]);
      }
    }

    const SERVICE = '/api/v1/namespaces/default/services';

    const cases: ReadonlyArray<{ name: string; request: RawRequest; status: number }> = [
      { name: 'relays discovery at /api', request: { path: '/api' }, status: 200 },
      { name: 'relays discovery at /api/', request: { path: '/api/' }, status: 200 },
      {
        name: 'relays a service proxy GET with its query unchanged',
        request: { path: `${SERVICE}/web:http/proxy/a/b?x=1&y=%20z&y=2` },
        status: 200,
      },
      {
        name: 'relays a POST body and drops hop-by-hop headers, appending X-Forwarded-For',
        request: {
          method: 'POST',
          path: `${SERVICE}/web/proxy/items`,
          headers: {
            'Content-Type': 'application/json',
            'Content-Length': '7',
            Connection: 'keep-alive, X-Drop',
            'X-Drop': '1',
            'Keep-Alive': 'timeout=5',
            TE: 'trailers',
            'X-Forwarded-For': '10.0.0.1',
            'Proxy-Authorization': 'Basic eDp5',
            Cookie: 'a=b',
            'X-Custom': 'kept',
          },
          body: '{"a":1}',
        },
        status: 200,
      },
      {
        name: 'refuses the exec path with 403 and sends nothing upstream',
        request: { path: '/api/v1/namespaces/default/pods/p/exec?command=ls' },
        status: 403,
      },
      {
        name: 'refuses the attach path with 403',
        request: { path: '/api/v1/namespaces/default/pods/p/attach' },
        status: 403,
      },
      {
        name: 'refuses a percent-encoded exec path (the filter sees the decoded path)',
        request: { path: '/api/v1/namespaces/default/pods/p/%65xec' },
        status: 403,
      },
      {
        name: 'refuses a foreign Host with 403',
        request: { path: '/api', headers: { Host: 'evil.example.com:{port}' } },
        status: 403,
      },
      {
        name: 'accepts Host localhost without a port',
        request: { path: '/api', headers: { Host: 'localhost' } },
        status: 200,
      },
      {
        name: 'accepts Host [::1] without a port',
        request: { path: '/api', headers: { Host: '[::1]' } },
        status: 200,
      },
      {
        name: 'refuses Host [::1] with a port, as kubectl does (the port-less host is ::1)',
        request: { path: '/api', headers: { Host: '[::1]:{port}' } },
        status: 403,
      },
      {
        name: "forwards the client's own Authorization instead of adding the proxy's token",
        request: { path: '/api', headers: { Authorization: 'Bearer client-own' } },
        status: 401,
      },
      {
        name: 'passes an encoded traversal through unchanged (the control plane judges it)',
        request: { path: `${SERVICE}/web/proxy/%2e%2e/%2e%2e/secrets` },
        status: 200,
      },
      {
        name: 'redirects a literal .. to the cleaned path with 301, query kept',
        request: { path: `${SERVICE}/web/proxy/../../secrets?q=1` },
        status: 301,
      },
      {
        name: 'redirects // and . segments to the cleaned path',
        request: { path: `${SERVICE}/web/proxy/a//b/./c` },
        status: 301,
      },
      {
        name: 'relays percent-encoded bytes that are not UTF-8 (%e9) unchanged',
        request: { path: `${SERVICE}/web/proxy/caf%e9?q=%ff` },
        status: 200,
      },
      {
        name: 'refuses an exec path with a byte that is not UTF-8 in the pod name (%ff) with 403',
        request: { path: '/api/v1/namespaces/default/pods/p%ff/exec' },
        status: 403,
      },
      {
        name: "answers malformed percent-encoding (%zz) with Go's plain-text 400",
        request: { path: `${SERVICE}/web/proxy/%zz` },
        status: 400,
      },
      { name: 'relays HEAD', request: { method: 'HEAD', path: '/api' }, status: 200 },
      {
        name: 'answers a malformed request with the plain-text 400 and sends nothing upstream',
        request: { method: 'POST', path: '/api', headers: { 'Content-Length': 'abc' } },
        status: 400,
      },
      {
        name: "relays the service's redirect with its Location unchanged",
        request: { path: `${SERVICE}/web/proxy/redirect` },
        status: 302,
      },
      {
        name: 'relays the control plane 404 for an unknown path',
        request: { path: '/nothing/here' },
        status: 404,
      },
      {
        name: 'refuses an absolute-form target for a foreign host with 403',
        request: { path: 'http://evil.example.com/api', headers: { Host: 'localhost:{port}' } },
        status: 403,
      },
      {
        name: 'relays an absolute-form target for localhost',
        request: { path: 'http://localhost/api', headers: { Host: 'evil.example.com' } },
        status: 200,
      },
      {
        name: 'relays a # in the path percent-encoded (%23), the rest of the path re-escaped as Go does',
        request: { path: `${SERVICE}/web/proxy/a#b!(c)%7e%2F{d}` },
        status: 200,
      },
      {
        name: 'relays a # in the query unchanged, as kubectl does',
        request: { path: `${SERVICE}/web/proxy/a?q=1#frag` },
        status: 200,
      },
      {
        name: 'answers OPTIONS * itself, as Go servers do',
        request: { method: 'OPTIONS', path: '*' },
        status: 200,
      },
    ];

    for (const testCase of cases) {
      it(`${testCase.name} (${testCase.status})`, async () => {
        const [kubectlSaw, oursSaw] = await both(testCase.request);
        expect(kubectlSaw.response.status).toBe(testCase.status);
        expectSameAnswer(kubectlSaw, oursSaw);
        if ([301, 400, 403].includes(testCase.status)) {
          expect(oursSaw.upstream).toEqual([]);
          expect(oursSaw.response.body).toBe(kubectlSaw.response.body);
        }
      });
    }

    it.each([
      [
        '401 for a credential it refuses',
        { path: '/api', headers: { Authorization: 'Bearer x' } },
        401,
      ],
      ['503 for a service without endpoints', { path: `${SERVICE}/no-endpoints/proxy/items` }, 503],
    ] as const)(
      "relays the control plane's own Status answer, %s, status and body unchanged",
      async (_what, request, status) => {
        const [kubectlSaw, oursSaw] = await both(request);
        expect(kubectlSaw.response.status).toBe(status);
        expectSameAnswer(kubectlSaw, oursSaw);
        expect(JSON.parse(oursSaw.response.body)).toMatchObject({ kind: 'Status', code: status });
        expect(oursSaw.response.body).toBe(kubectlSaw.response.body);
      },
    );

    it('answers two Host headers with 400 and sends nothing upstream, as RFC 9112 §3.2 requires', async () => {
      const before = k8s.plane.requests.length;
      const head = 'GET /api HTTP/1.1\r\nHost: localhost\r\nHost: evil.example.com\r\n\r\n';
      const answers = [];
      for (const proxy of [reference, candidate]) {
        const { text, closedByServer } = await rawExchange(proxy.port, head);
        answers.push({ status: text.split('\r\n')[0], body: text.split('\r\n\r\n')[1] });
        expect(closedByServer).toBe(true);
      }
      expect(answers[0]).toEqual({ status: 'HTTP/1.1 400 Bad Request', body: '400 Bad Request' });
      expect(answers[1]).toEqual(answers[0]);
      expect(k8s.plane.requests.length).toBe(before);
    });

    it('answers an authority-form CONNECT with a 301 to / and sends nothing upstream, as kubectl does', async () => {
      const before = k8s.plane.requests.length;
      const head = 'CONNECT localhost:443 HTTP/1.1\r\nHost: localhost:443\r\n\r\n';
      const answers = [];
      for (const proxy of [reference, candidate]) {
        // kubectl keeps the connection open: the answer is all there once the time bound is up.
        const { text } = await rawExchange(proxy.port, head, { timeoutMs: 500 });
        const [statusLine, ...lines] = (text.split('\r\n\r\n')[0] ?? '').split('\r\n');
        const location = lines.find((line) => /^location:/i.test(line));
        answers.push({ statusLine, location, body: text.split('\r\n\r\n')[1] });
      }
      expect(answers[0]).toEqual({
        statusLine: 'HTTP/1.1 301 Moved Permanently',
        location: 'Location: /',
        body: '',
      });
      expect(answers[1]).toEqual(answers[0]);
      expect(k8s.plane.requests.length).toBe(before);
    });

    it('relays an upgrade and splices both connections (101)', async () => {
      const path = `${SERVICE}/web/proxy/socket`;
      const before = k8s.plane.requests.length;
      const kubectlResult = await rawUpgrade(reference.port, path);
      const kubectlUpstream = seen(k8s.plane.requests.slice(before));
      const middle = k8s.plane.requests.length;
      const ourResult = await rawUpgrade(candidate.port, path);
      const ourUpstream = seen(k8s.plane.requests.slice(middle));
      expect(kubectlResult).toEqual({ status: 101, echoed: 'echo:ping' });
      expect(ourResult).toEqual(kubectlResult);
      expect(ourUpstream).toEqual(kubectlUpstream);
    });

    it.each([
      ['a literal ..', `${SERVICE}/web/proxy/../../secrets?q=1`],
      ['// and . segments', `${SERVICE}/web/proxy/a//b/./socket`],
    ])(
      'redirects an upgrade request with %s to the cleaned path, sending nothing upstream (301)',
      async (_what, path) => {
        const before = k8s.plane.requests.length;
        const kubectlResult = await rawUpgrade(reference.port, path);
        const ourResult = await rawUpgrade(candidate.port, path);
        expect(kubectlResult.status).toBe(301);
        expect(ourResult).toEqual(kubectlResult);
        expect(k8s.plane.requests.length).toBe(before);
      },
    );
    /** Starts kubectl and ours with `flags` added, and GETs `paths` through each, in order. */
    async function answersWithFlags(flags: readonly string[], paths: readonly string[]) {
      const all = [`--kubeconfig=${kubeconfig}`, ...flags];
      const pair = await Promise.all([
        startKubectlProxy(kubectl as string, all),
        startOurProxy(all),
      ]);
      try {
        const answers = [];
        for (const proxy of pair) {
          const seen = [];
          for (const path of paths) {
            const { status, headers, body } = await rawRequest(proxy.port, { path });
            seen.push({ path, status, location: headers.location, body });
          }
          answers.push(seen);
        }
        return answers;
      } finally {
        await Promise.all(pair.map((proxy) => proxy.stop()));
      }
    }

    it('serves --api-prefix and --www-prefix given without their trailing slash as kubectl does', async () => {
      const www = mkdtempSync(join(tmpdir(), 'k8s-www-'));
      writeFileSync(join(www, 'hello.txt'), 'hello');
      try {
        const [theirs, ours] = await answersWithFlags(
          ['--api-prefix=/k8s', `--www=${www}`, '--www-prefix=/files'],
          ['/k8s', '/k8s/api', '/k8sapi', '/files', '/files/hello.txt', '/api'],
        );
        expect(theirs?.map((answer) => answer.status)).toEqual([301, 200, 404, 301, 200, 404]);
        expect(theirs?.[4]?.body).toBe('hello');
        expect(ours).toEqual(theirs);
      } finally {
        rmSync(www, { recursive: true, force: true });
      }
    });

    it("reads --reject-paths in Go's syntax as kubectl does (\\A, \\z, POSIX and Unicode classes)", async () => {
      const [theirs, ours] = await answersWithFlags(
        [
          '--reject-paths=\\A/api/.*/pods/.*/exec\\z,^/api/v1/namespaces/[[:digit:]]+/,/x\\p{Greek}',
        ],
        [
          '/api/v1/namespaces/default/pods/p/exec',
          '/api/v1/namespaces/default/pods/p/exec/more',
          '/api/v1/namespaces/123/pods',
          `${SERVICE}/web/proxy/x%CE%B1`,
          `${SERVICE}/web/proxy/xa`,
        ],
      );
      const statuses = (answers: typeof theirs) => answers?.map((answer) => answer.status);
      expect(statuses(theirs)).toEqual([403, 404, 403, 403, 200]);
      expect(statuses(ours)).toEqual(statuses(theirs));
    });

    describe('documented difference: a dead control plane', () => {
      let deadReference: RunningProxy;
      let deadCandidate: RunningProxy;

      beforeAll(async () => {
        // A port that refuses connections: bound, then closed.
        const probe = createServer();
        await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
        const address = probe.address();
        const port = typeof address === 'object' && address !== null ? address.port : 1;
        await new Promise<void>((resolve) => probe.close(() => resolve()));
        const kubeconfig = writeKubeconfig(k8s.certs.dir, {
          server: `https://127.0.0.1:${port}`,
          caFile: k8s.certs.caFile,
          user: { token: 'test-token' },
          name: 'dead.yaml',
        });
        [deadReference, deadCandidate] = await Promise.all([
          startKubectlProxy(kubectl as string, [`--kubeconfig=${kubeconfig}`]),
          startOurProxy([`--kubeconfig=${kubeconfig}`]),
        ]);
      });

      afterAll(async () => {
        await Promise.all([deadReference?.stop(), deadCandidate?.stop()]);
      });

      it('answers 502 UPSTREAM_ERROR as an envelope where kubectl answers 500 with Go error text', async () => {
        const kubectlAnswer = await rawRequest(deadReference.port, { path: '/api' });
        const ourAnswer = await rawRequest(deadCandidate.port, { path: '/api' });
        expect(kubectlAnswer.status).toBe(500);
        expect(kubectlAnswer.headers['content-type']).toMatch(/^text\/plain/);
        expect(ourAnswer.status).toBe(502);
        expect(ourAnswer.headers['content-type']).toBe('application/json; charset=utf-8');
        expect(JSON.parse(ourAnswer.body)).toEqual({
          error: {
            code: 'UPSTREAM_ERROR',
            message: 'The control plane refused the connection.',
            innererror: { code: 'UPSTREAM_REFUSED' },
          },
        });
        expect(ourAnswer.body).not.toContain('test-token');
      });
    });
  },
);

describe.skipIf(!runDifferential)('documented difference: a control plane offering HTTP/2', () => {
  const k8s = useControlPlane({ http2: true });

  it('gets the same answer, over HTTP/1.1 from us where kubectl negotiates HTTP/2 (200)', async () => {
    if (kubectl === undefined) throw new Error('kubectl is required for this suite under CI');
    const kubeconfig = writeKubeconfig(k8s.certs.dir, {
      server: k8s.plane.url,
      caFile: k8s.certs.caFile,
      user: { token: 'test-token' },
    });
    const proxies = await Promise.all([
      startKubectlProxy(kubectl, [`--kubeconfig=${kubeconfig}`]),
      startOurProxy([`--kubeconfig=${kubeconfig}`]),
    ]);
    try {
      const request: RawRequest = {
        method: 'POST',
        path: '/api/v1/namespaces/default/services/web/proxy/items?x=1',
        headers: { 'Content-Type': 'application/json' },
        body: '{"a":1}',
      };
      const answers = [];
      const versions = [];
      for (const proxy of proxies) {
        const before = k8s.plane.requests.length;
        answers.push(await rawRequest(proxy.port, request));
        versions.push(
          k8s.plane.requests
            .slice(before)
            .filter((r) => !r.url.startsWith('/version'))
            .map((r) => r.httpVersion),
        );
      }
      expect(versions).toEqual([['2.0'], ['1.1']]);
      expect(answers[1]?.status).toBe(200);
      expect(answers[1]?.body).toBe(answers[0]?.body);
    } finally {
      await Promise.all(proxies.map((proxy) => proxy.stop()));
    }
  });
});
