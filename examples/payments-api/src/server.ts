/**
 * The example service's entry point: `PORT` (default 3000), `REDIS_URL` for a shared
 * idempotency store, graceful shutdown on SIGTERM/SIGINT.
 */

import { createServer } from 'node:http';
import { clientErrorHandler } from '@resourceful/error-envelope';
import { findClusterCredentials } from '@resourceful/k8s-service-proxy';
import {
  type IdempotencyStore,
  memoryStore,
  redisStore,
} from '@resourceful/service-request-idempotency';
import { createClient } from 'redis';
import { createApp, RELAY_PATH, type ServiceRelayOptions } from './app.js';
import { MAX_HEADER_SIZE } from './url-length.js';

const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST ?? '127.0.0.1';
const closers: (() => Promise<unknown>)[] = [];

function idempotencyStore(): IdempotencyStore {
  const url = process.env.REDIS_URL;
  if (!url) return memoryStore();
  // No offline queue: while Redis is down, commands fail at once and idempotent POSTs get 503
  // (fail closed), instead of piling up until it returns. Everything else keeps working.
  const client = createClient({ url, disableOfflineQueue: true });
  let reachable = true;
  client.on('error', (error: Error) => {
    if (reachable)
      console.warn(
        `redis unreachable (${error.message}): POSTs with Service-Request-Id answer 503 until it is back`,
      );
    reachable = false;
  });
  client.on('ready', () => {
    if (!reachable) console.log('redis reachable again');
    reachable = true;
  });
  // The client keeps reconnecting in the background; the service starts either way.
  client.connect().catch(() => undefined);
  closers.push(() => client.close());
  console.log('idempotency store: redis');
  return redisStore({ client });
}

/** Cluster credentials from KUBECONFIG, ~/.kube/config or the service-account directory. */
function serviceRelay(): ServiceRelayOptions | undefined {
  let credentials: ReturnType<typeof findClusterCredentials>;
  try {
    credentials = findClusterCredentials();
  } catch (error) {
    console.warn(`cluster credentials unusable: ${(error as Error).message}`);
  }
  if (credentials === undefined) {
    console.log(`no cluster credentials found: the relay at ${RELAY_PATH} is off`);
    return undefined;
  }
  closers.push(async () => credentials.close());
  const relay = {
    credentials,
    namespace: process.env.RELAY_NAMESPACE ?? credentials.namespace ?? 'default',
    service: process.env.RELAY_SERVICE ?? 'ledger',
    port: process.env.RELAY_PORT,
  };
  console.log(`relay on: ${RELAY_PATH} → service ${relay.namespace}/${relay.service}`);
  return relay;
}

const app = createApp({
  publicBaseUrl: process.env.PUBLIC_BASE_URL,
  idempotencyStore: idempotencyStore(),
  serviceRelay: serviceRelay(),
});

const server = createServer({ maxHeaderSize: MAX_HEADER_SIZE }, app);
// Requests Node refuses before Express sees them get the envelope too.
server.on('clientError', clientErrorHandler());
server.listen(port, host, () => {
  console.log(`payments-api listening on http://${host}:${port}`);
});

let closing = false;
function shutdown(signal: string): void {
  // Ctrl-C under `pnpm start` delivers SIGINT twice: the terminal's, then the one pnpm forwards to
  // its script. A repeat must not kill the clean close (the timer below still bounds it), or the
  // service dies of the signal and pnpm reports a failed command after a clean shutdown.
  if (closing) return;
  closing = true;
  console.log(`${signal} received, closing`);
  server.close(async () => {
    await Promise.allSettled(closers.map((close) => close()));
    process.exit(0);
  });
  // Idle keep-alive connections would hold close() open; in-flight requests still finish.
  server.closeIdleConnections();
  setTimeout(() => process.exit(1), 10_000).unref();
}

process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
