/**
 * @module `@resourceful/test-support/k8s`: the doubles the tests of k8s-service-proxy and
 * k8s-local-proxy share (a throw-away CA, a control plane over TLS, forward proxies, a fake exec
 * plugin, a raw HTTP client). A subpath of its own: its names (`RawResponse`, `rawRequest`) would
 * clash with the raw-http helpers of the main entry, and no other package's tests need them.
 */
export {
  makeCertificates,
  makeServerCertificate,
  type TestCertificates,
} from './certificates.js';
export { type ConnectProxy, type RecordedTunnel, startConnectProxy } from './connect-proxy.js';
export {
  type ControlPlaneDouble,
  type ControlPlaneOptions,
  type RecordedRequest,
  startControlPlane,
} from './control-plane-double.js';
export { type ControlPlaneSuite, useControlPlane } from './control-plane-suite.js';
export { type FakePlugin, writeFakePlugin } from './exec-plugin.js';
export {
  type RawRequest,
  type RawResponse,
  rawRequest,
  rawUpgrade,
  type UpgradeResult,
} from './raw-client.js';
export { type Socks5Proxy, startSocks5Proxy } from './socks5-proxy.js';
