/**
 * The same requests through `kubectl proxy` and through `k8s-service-proxy`, both pointed at the
 * same control-plane double with the same kubeconfig: the answers and what the double received
 * must match request by request, except where a test names a documented difference.
 *
 * The suite runs twice: against a double that speaks HTTP/1.1 only, and against one that offers
 * HTTP/2 by ALPN as a real API server does. kubectl negotiates HTTP/2 there, so the comparison
 * includes the HTTP version the double saw; pseudo-headers (`:authority`, …) are not compared,
 * the other headers are, as on HTTP/1.1.
 */
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCertificates, type TestCertificates } from './support/certificates.js';
import {
  type ControlPlaneDouble,
  type RecordedRequest,
  startControlPlane,
} from './support/control-plane-double.js';
import { writeKubeconfig } from './support/kubeconfig.js';
import {
  findKubectl,
  type RunningProxy,
  startKubectlProxy,
  startOurProxy,
} from './support/proxy-processes.js';
import { type RawRequest, type RawResponse, rawRequest, rawUpgrade } from './support/raw-client.js';

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

const PROTOCOLS = [
  { name: 'HTTP/1.1 only', http2: false },
  { name: 'offering HTTP/2', http2: true },
] as const;

for (const protocol of PROTOCOLS) {
  describe.skipIf(!runDifferential)(
    `k8s-service-proxy against kubectl proxy, control plane ${protocol.name}`,
    () => {
      let certs: TestCertificates;
      let kubeconfig: string;
      let plane: ControlPlaneDouble;
      let reference: RunningProxy;
      let candidate: RunningProxy;

      beforeAll(async () => {
        if (kubectl === undefined) throw new Error('kubectl is required for this suite under CI');
        certs = makeCertificates();
        plane = await startControlPlane(certs, { http2: protocol.http2 });
        kubeconfig = writeKubeconfig(certs.dir, {
          server: plane.url,
          caFile: certs.caFile,
          user: { token: 'test-token' },
        });
        [reference, candidate] = await Promise.all([
          startKubectlProxy(kubectl, [`--kubeconfig=${kubeconfig}`]),
          startOurProxy([`--kubeconfig=${kubeconfig}`]),
        ]);
      });

      afterAll(async () => {
        await Promise.all([reference?.stop(), candidate?.stop()]);
        await plane?.close();
        certs?.cleanup();
      });

      async function observe(proxy: RunningProxy, request: RawRequest): Promise<Observation> {
        const before = plane.requests.length;
        const headers = Object.fromEntries(
          Object.entries(request.headers ?? {}).map(([name, value]) => [
            name,
            typeof value === 'string' ? value.replaceAll('{port}', String(proxy.port)) : value,
          ]),
        );
        const response = await rawRequest(proxy.port, { ...request, headers });
        return { response, upstream: seen(plane.requests.slice(before)) };
      }

      async function both(request: RawRequest): Promise<[Observation, Observation]> {
        const kubectlSaw = await observe(reference, request);
        const oursSaw = await observe(candidate, request);
        return [kubectlSaw, oursSaw];
      }

      function expectSameAnswer(kubectlSaw: Observation, oursSaw: Observation): void {
        for (const request of kubectlSaw.upstream) {
          expect(request.httpVersion).toBe(protocol.http2 && !request.upgrade ? '2.0' : '1.1');
        }
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

      it('relays an upgrade and splices both connections (101)', async () => {
        const path = `${SERVICE}/web/proxy/socket`;
        const before = plane.requests.length;
        const kubectlResult = await rawUpgrade(reference.port, path);
        const kubectlUpstream = seen(plane.requests.slice(before));
        const middle = plane.requests.length;
        const ourResult = await rawUpgrade(candidate.port, path);
        const ourUpstream = seen(plane.requests.slice(middle));
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
          const before = plane.requests.length;
          const kubectlResult = await rawUpgrade(reference.port, path);
          const ourResult = await rawUpgrade(candidate.port, path);
          expect(kubectlResult.status).toBe(301);
          expect(ourResult).toEqual(kubectlResult);
          expect(plane.requests.length).toBe(before);
        },
      );

      if (protocol.http2) {
        it('keeps HTTP/1.1 when DISABLE_HTTP2 is set, as client-go does (200)', async () => {
          const env = { DISABLE_HTTP2: '1' };
          const [kubectlOnH1, oursOnH1] = await Promise.all([
            startKubectlProxy(kubectl as string, [`--kubeconfig=${kubeconfig}`], env),
            startOurProxy([`--kubeconfig=${kubeconfig}`], env),
          ]);
          try {
            const request: RawRequest = {
              method: 'POST',
              path: `${SERVICE}/web/proxy/items?x=1`,
              headers: { 'Content-Type': 'application/json' },
              body: '{"a":1}',
            };
            const kubectlSaw = await observe(kubectlOnH1, request);
            const oursSaw = await observe(oursOnH1, request);
            expect(kubectlSaw.response.status).toBe(200);
            expect(kubectlSaw.upstream.map((r) => r.httpVersion)).toEqual(['1.1']);
            expect(oursSaw.response.status).toBe(200);
            expect(oursSaw.upstream).toEqual(kubectlSaw.upstream);
          } finally {
            await Promise.all([kubectlOnH1.stop(), oursOnH1.stop()]);
          }
        });
      }

      if (!protocol.http2) {
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
            const kubeconfig = writeKubeconfig(certs.dir, {
              server: `https://127.0.0.1:${port}`,
              caFile: certs.caFile,
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
      }
    },
  );
}
