/**
 * Small GETs relayed to the same TLS control-plane double through `kubectl proxy` (baseline) and
 * through `k8s-local-proxy` (candidate, from source), both as separate processes on 127.0.0.1;
 * once with a control plane that speaks HTTP/1.1 only, once with one that offers HTTP/2 (kubectl
 * then uses it; ours stays on HTTP/1.1 keep-alive).
 */

import {
  findKubectl,
  startKubectlProxy,
  startOurProxy,
} from '../packages/k8s-local-proxy/test/support/proxy-processes.js';
import { makeCertificates } from '../packages/k8s-service-proxy/test/support/certificates.js';
import { startControlPlane } from '../packages/k8s-service-proxy/test/support/control-plane-double.js';
import { writeKubeconfig } from '../packages/k8s-service-proxy/test/support/kubeconfig.js';
import { type Comparison, compare, loadUrl } from './harness.js';

export async function run(): Promise<Comparison[]> {
  const kubectl = findKubectl();
  if (kubectl === undefined) {
    console.log('k8s-service-proxy: kubectl is not installed; no baseline, nothing measured');
    return [];
  }
  return [
    await compareOver(kubectl, 'HTTP/1.1', false),
    await compareOver(kubectl, 'HTTP/2', true),
  ];
}

async function compareOver(kubectl: string, protocol: string, http2: boolean): Promise<Comparison> {
  const certs = makeCertificates();
  const plane = await startControlPlane(certs, { http2 });
  const kubeconfig = writeKubeconfig(certs.dir, {
    server: plane.url,
    caFile: certs.caFile,
    user: { token: 'test-token' },
  });
  const [baseline, candidate] = await Promise.all([
    startKubectlProxy(kubectl, [`--kubeconfig=${kubeconfig}`]),
    startOurProxy([`--kubeconfig=${kubeconfig}`]),
  ]);
  // The double records every request; keep memory flat during the runs.
  const trim = setInterval(() => plane.requests.splice(0), 500);
  const request = {
    path: '/api/v1/namespaces/default/services/web:http/proxy/items?page=1',
    headers: { Host: 'localhost' },
  };
  try {
    return await compare(
      `k8s-local-proxy: small GET through the service proxy path vs kubectl proxy, control plane ${protocol}`,
      () => loadUrl(`http://127.0.0.1:${baseline.port}`, request),
      () => loadUrl(`http://127.0.0.1:${candidate.port}`, request),
      // Both proxies are processes of their own; this thread runs the control-plane double.
      { serverInThisThread: false },
    );
  } finally {
    clearInterval(trim);
    await Promise.all([baseline.stop(), candidate.stop()]);
    await plane.close();
    certs.cleanup();
  }
}
