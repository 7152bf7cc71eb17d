/**
 * The package's own relay (`serviceProxy()`) against http-proxy-middleware 3 configured by
 * `clusterServiceProxyOptions()`, both in Express 5 in this process, relaying small GETs to the
 * same TLS control-plane double with the same credentials. Baseline: the own relay.
 */
import {
  clusterServiceProxyOptions,
  createClusterCredentials,
  serviceProxy,
} from '@resourceful/k8s-service-proxy';
import express from 'express';
import { createProxyMiddleware } from 'http-proxy-middleware';
import { makeCertificates } from '../packages/test-support/src/k8s/certificates.js';
import { startControlPlane } from '../packages/test-support/src/k8s/control-plane-double.js';
import { type Comparison, compare, load } from './harness.js';

export async function run(): Promise<Comparison[]> {
  const certs = makeCertificates();
  const plane = await startControlPlane(certs, { tokens: ['bench-token'] });
  const credentials = createClusterCredentials({
    server: plane.url,
    token: 'bench-token',
    ca: certs.ca,
  });
  const own = express();
  own.use('/ledger', serviceProxy({ credentials, service: 'ledger' }));
  const viaHpm = express();
  viaHpm.use(
    '/ledger',
    createProxyMiddleware(clusterServiceProxyOptions({ credentials, service: 'ledger' })),
  );
  const trim = setInterval(() => plane.requests.splice(0), 500);
  const request = { path: '/ledger/items?page=1' };
  try {
    return [
      await compare(
        'k8s-service-proxy: http-proxy-middleware 3 (clusterServiceProxyOptions) vs serviceProxy()',
        () => load(own, request),
        () => load(viaHpm, request),
      ),
    ];
  } finally {
    clearInterval(trim);
    credentials.close();
    await plane.close();
    certs.cleanup();
  }
}
