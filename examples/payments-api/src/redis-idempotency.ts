/**
 * @module The example's idempotency store from the environment: in memory by default, Redis
 * with `REDIS_URL` (one endpoint), Redis Cluster with `REDIS_CLUSTER_URLS` (comma-separated node
 * URLs). While Redis is unreachable, idempotent POSTs answer 503 with `Retry-After` (fail
 * closed) and everything else keeps working; the clients reconnect and follow a failover on
 * their own, so the service recovers without a restart.
 *
 * An outage is an expected, degraded mode, not a fault: it is logged as one line when it starts
 * and one line when it ends, with the number of requests refused meanwhile. Full stack traces
 * stay for real faults.
 */
import type { ResourceStorage } from '@resourceful/api-description';
import type { ErrorHandlerOptions, ErrorReport } from '@resourceful/error-envelope';
import {
  IDEMPOTENCY_ERROR_CAUSES,
  type IdempotencyStore,
  memoryStore,
  redisStore,
} from '@resourceful/service-request-idempotency';
import { createClient, createCluster } from 'redis';
import {
  consoleLogger,
  type Logger,
  type OutageLog,
  type OutageMessages,
  outageLog,
} from './outage-log.js';

export interface IdempotencyWiring {
  readonly store: IdempotencyStore;
  /** `external` for Redis (it can be unreachable: 503), `in-process` for the memory store. */
  readonly storage: ResourceStorage;
  /** For `errorHandler({ onError })`: counts store refusals, logs other faults in full. */
  readonly onError: NonNullable<ErrorHandlerOptions['onError']>;
  close(): Promise<void>;
}

const REDIS_OUTAGE: OutageMessages = {
  down: (reason) =>
    `idempotency store unreachable (${reason}): POSTs with Service-Request-Id answer 503 until it is back`,
  back: (seconds, refused) =>
    `idempotency store reachable again after ${seconds} s; ${refused} request(s) refused with 503 meanwhile`,
};

/** The store, with every call reported to the outage log. */
function observed(store: IdempotencyStore, outage: OutageLog): IdempotencyStore {
  const watch = async <T>(call: Promise<T>): Promise<T> => {
    try {
      const value = await call;
      outage.succeeded();
      return value;
    } catch (error) {
      outage.failed(error);
      throw error;
    }
  };
  return {
    acquire: (key, lock) => watch(store.acquire(key, lock)),
    complete: (key, completion) => watch(store.complete(key, completion)),
    release: (key, token) => watch(store.release(key, token)),
    get: (key) => watch(store.get(key)),
  };
}

/** `REDIS_CLUSTER_URLS`: comma-separated `redis://` or `rediss://` URLs; anything else throws. */
export function parseClusterUrls(value: string): string[] {
  const urls = value
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  if (urls.length === 0) throw new Error('REDIS_CLUSTER_URLS lists no node URL');
  for (const url of urls) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error(`REDIS_CLUSTER_URLS: "${url.slice(0, 80)}" is not a URL`);
    }
    if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
      throw new Error(`REDIS_CLUSTER_URLS: "${url.slice(0, 80)}" is not a redis:// URL`);
    }
  }
  return urls;
}

/**
 * `REDIS_URL`: one `redis://` or `rediss://` URL; anything else throws a message naming the
 * variable, without the value (it may hold a password).
 */
function checkRedisUrl(value: string): void {
  let scheme: string | undefined;
  try {
    scheme = new URL(value).protocol;
  } catch {
    // not a URL
  }
  if (scheme !== 'redis:' && scheme !== 'rediss:') {
    throw new Error(
      'REDIS_URL: must be a redis:// or rediss:// URL, such as redis://127.0.0.1:6379',
    );
  }
}

/** Backoff for reconnects: quick at first, at most two seconds apart. */
const reconnectStrategy = (retries: number) => Math.min(50 * 2 ** retries, 2_000);

export function idempotencyFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
  logger: Logger = consoleLogger,
): IdempotencyWiring {
  const outage = outageLog(logger, REDIS_OUTAGE);
  const onError = (report: ErrorReport): void => {
    if (report.error.innererror?.code === IDEMPOTENCY_ERROR_CAUSES.storeUnavailable) {
      outage.refusedOne();
      return;
    }
    if (report.fault && env.NODE_ENV !== 'test') {
      logger.error(report.cause instanceof Error ? report.cause : report.error);
    }
  };
  const onWarning = (message: string) => logger.warn(message);

  if (env.REDIS_CLUSTER_URLS) {
    const urls = parseClusterUrls(env.REDIS_CLUSTER_URLS);
    if (env.REDIS_URL) logger.log('REDIS_CLUSTER_URLS is set: REDIS_URL is not used');
    // No offline queue: while a node is down, its commands fail at once (503) instead of
    // piling up until it returns.
    const cluster = createCluster({
      rootNodes: urls.map((url) => ({ url })),
      defaults: { disableOfflineQueue: true, socket: { reconnectStrategy } },
    });
    cluster.on('error', (error: Error) => outage.failed(error));
    let closed = false;
    let retry: NodeJS.Timeout | undefined;
    // The cluster client reads the topology once at connect; until a node answers, try again.
    const connect = () => {
      cluster.connect().then(
        () => undefined,
        (error: Error) => {
          outage.failed(error);
          if (!closed) retry = setTimeout(connect, 1_000).unref();
        },
      );
    };
    connect();
    logger.log(`idempotency store: redis cluster (${urls.length} root nodes)`);
    return {
      store: observed(redisStore({ cluster, onWarning }), outage),
      storage: 'external',
      onError,
      async close() {
        closed = true;
        clearTimeout(retry);
        if (cluster.isOpen) await cluster.close();
      },
    };
  }

  if (env.REDIS_URL) {
    checkRedisUrl(env.REDIS_URL);
    const client = createClient({
      url: env.REDIS_URL,
      disableOfflineQueue: true,
      socket: { reconnectStrategy },
    });
    client.on('error', (error: Error) => outage.failed(error));
    // The client keeps reconnecting in the background; the service starts either way.
    client.connect().catch(() => undefined);
    logger.log('idempotency store: redis');
    return {
      store: observed(redisStore({ client, onWarning }), outage),
      storage: 'external',
      onError,
      async close() {
        if (client.isOpen) await client.close();
      },
    };
  }

  if (env.DATABASE_URL) {
    // The resources are shared by every instance on that database, the ids are not: a retry
    // that reaches another instance runs again.
    logger.warn(
      'idempotency store: memory, this process only; instances sharing DATABASE_URL need REDIS_URL (or REDIS_CLUSTER_URLS) for Service-Request-Id to hold across them',
    );
  }
  return { store: memoryStore(), storage: 'in-process', onError, close: async () => undefined };
}
