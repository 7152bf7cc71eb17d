/**
 * The example service's entry point: `PORT` (default 3000), `REDIS_URL` or
 * `REDIS_CLUSTER_URLS` for a shared idempotency store, graceful shutdown on SIGTERM/SIGINT.
 */

import { findClusterCredentials } from '@resourceful/k8s-service-proxy';
import { appReady, createApp, RELAY_PATH, type ServiceRelayOptions } from './app.js';
import {
  type AppDatabase,
  closeDatabasePools,
  databaseFromEnvironment,
} from './database/app-database.js';
import { countDatabaseRefusal, logDatabaseOutages } from './database/database-outages.js';
import { consoleLogger } from './outage-log.js';
import { idempotencyFromEnvironment } from './redis-idempotency.js';
import { createPaymentsServer } from './server-limits.js';

/** A configuration the service cannot run with: one line naming the variable, exit 1. */
function refuseConfiguration(variable: string, message: string): never {
  console.error(`${variable}: ${message}`);
  process.exit(1);
}

const PORT_TEXT = /^\d{1,5}$/;
const portText = process.env.PORT ?? '3000';
const port = Number(portText);
if (!PORT_TEXT.test(portText) || port > 65_535) {
  refuseConfiguration('PORT', `"${portText.slice(0, 40)}" is not a port number (0 to 65535)`);
}
const host = process.env.HOST ?? '127.0.0.1';
const closers: (() => Promise<unknown>)[] = [];

/** A variable a module refused: its message names it ("REDIS_URL: …"); one line, exit 1. */
function refusedVariable(error: unknown): never {
  console.error((error as Error).message);
  process.exit(1);
}

// Redis for idempotency: REDIS_URL (one endpoint) or REDIS_CLUSTER_URLS (Redis Cluster).
let idempotency: ReturnType<typeof idempotencyFromEnvironment>;
try {
  idempotency = idempotencyFromEnvironment();
} catch (error) {
  refusedVariable(error);
}
closers.push(() => idempotency.close());

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

// PostgreSQL for the cards, customers and webhooks when DATABASE_URL is set (migrated and
// seeded before the server listens); memory otherwise.
// DATABASE_CONNECT_TIMEOUT_MS and DATABASE_QUERY_TIMEOUT_MS bound every wait on it.
let database: AppDatabase | undefined;
try {
  database = databaseFromEnvironment();
} catch (error) {
  refusedVariable(error);
}
closers.push(() => closeDatabasePools());
// An outage is one log line when it starts and one when it ends, as Redis's is.
if (database !== undefined) logDatabaseOutages(database.pool, consoleLogger);

// PAGE_TOKEN_SECRETS: comma-separated, the first signs continuation tokens; every instance
// behind one load balancer gets the same list.
const pageTokenSecrets = process.env.PAGE_TOKEN_SECRETS?.split(',').filter(
  (secret) => secret !== '',
);

// The options createApp takes from the environment, by the name its construction errors give.
const OPTION_VARIABLES: Readonly<Record<string, string>> = {
  publicBaseUrl: 'PUBLIC_BASE_URL',
  'continuation.secrets': 'PAGE_TOKEN_SECRETS',
};

function buildApp(): ReturnType<typeof createApp> {
  try {
    return createApp({
      publicBaseUrl: process.env.PUBLIC_BASE_URL,
      idempotencyStore: idempotency.store,
      idempotencyStorage: idempotency.storage,
      onError: (report) => {
        if (!countDatabaseRefusal(report, database?.pool)) idempotency.onError(report);
      },
      serviceRelay: serviceRelay(),
      database: database ?? false,
      pageTokenSecrets,
    });
  } catch (error) {
    // A value from the environment a factory refused: say which variable, not which option.
    const variable = OPTION_VARIABLES[(error as { option?: unknown }).option as string];
    if (variable === undefined) throw error;
    const message = (error as Error).message.replace(/^\w+: /, '');
    return refuseConfiguration(variable, message);
  }
}

const app = buildApp();

// The server's limits (timeouts, header and request counts) are in server-limits.ts; what Node
// answers itself (parser refusals, timeouts, Expect, CONNECT) gets the envelope too.
const server = createPaymentsServer(app);
try {
  await appReady(app);
} catch (error) {
  console.error(`the database could not be prepared: ${(error as Error).message}`);
  await Promise.allSettled(closers.map((close) => close()));
  process.exit(1);
}
console.log(
  database === undefined
    ? 'stores: in memory'
    : `stores: PostgreSQL, schema ${database.schema} (migrated, seeded)`,
);
// The address cannot be had (another process holds the port, HOST is no local address): one
// line naming the variable to change, as for a value refused above, instead of a stack trace.
const LISTEN_ERRORS: Readonly<Record<string, [variable: string, reason: string]>> = {
  EADDRINUSE: ['PORT', 'is in use by another process'],
  EACCES: ['PORT', 'needs privileges this process does not have'],
  EADDRNOTAVAIL: ['HOST', 'is not an address of this machine'],
  ENOTFOUND: ['HOST', 'is not a name this machine resolves'],
  EAI_AGAIN: ['HOST', 'could not be resolved'],
};
function refuseAddress(error: NodeJS.ErrnoException): void {
  const [variable, reason] = LISTEN_ERRORS[error.code ?? ''] ?? ['HOST', error.message];
  console.error(`${variable}: ${host}:${port} ${reason} (${error.code ?? 'listen failed'})`);
  void Promise.allSettled(closers.map((close) => close())).then(() => process.exit(1));
}
server.once('error', refuseAddress);
server.listen(port, host, () => {
  server.off('error', refuseAddress);
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
  // Idle keep-alive connections would hold close() open; in-flight requests still finish. A
  // connection whose answer finishes after this point then idles for the keep-alive timeout
  // (65 s, longer than the 10 s bound below), so idle connections are closed until close() ends.
  server.closeIdleConnections();
  setInterval(() => server.closeIdleConnections(), 100).unref();
  setTimeout(() => process.exit(1), 10_000).unref();
}

process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
