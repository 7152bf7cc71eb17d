/**
 * @module Which database the example uses: PostgreSQL when `DATABASE_URL` is set (one pool per
 * URL in the process), else none (in-memory stores).
 *
 * Every wait on the database is bounded (connecting, waiting for a pooled connection, each
 * query), so a database that stops answering, without refusing or closing connections, gets the
 * same 503 as one that is down, within seconds. The bounds stay far below the idempotency lock's
 * 60 s TTL: a handler stalled on the database cannot outlive the lock that makes its
 * `Service-Request-Id` run once.
 */
import pg from 'pg';
import { quotedSchema } from './migrate.js';

export interface AppDatabase {
  readonly pool: pg.Pool;
  /** The schema holding the tables; created and migrated at start. */
  readonly schema: string;
}

export interface DatabaseTimeouts {
  /** Connecting, and waiting for a free connection of the pool. */
  readonly connectMs: number;
  /** One query, from sending it to its last row (client-side and as `statement_timeout`). */
  readonly queryMs: number;
}

/** The defaults of `DATABASE_CONNECT_TIMEOUT_MS` and `DATABASE_QUERY_TIMEOUT_MS`. */
export const DEFAULT_DATABASE_TIMEOUTS: DatabaseTimeouts = { connectMs: 2_000, queryMs: 5_000 };

/**
 * The largest bound either variable may set: half the idempotency lock's TTL (60 s), so even a
 * request that waits for a connection and then for a query stays inside its lock.
 */
export const MAX_DATABASE_TIMEOUT_MS = 30_000;

function timeoutFrom(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (value === undefined || value === '') return fallback;
  const ms = Number(value);
  if (!/^[0-9]+$/.test(value) || ms < 1 || ms > MAX_DATABASE_TIMEOUT_MS) {
    throw new Error(
      `${name} must be a whole number of milliseconds from 1 to ${MAX_DATABASE_TIMEOUT_MS}, not "${value.slice(0, 40)}"`,
    );
  }
  return ms;
}

/** `DATABASE_CONNECT_TIMEOUT_MS` and `DATABASE_QUERY_TIMEOUT_MS`; a bad value throws. */
export function databaseTimeoutsFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): DatabaseTimeouts {
  return {
    connectMs: timeoutFrom(env, 'DATABASE_CONNECT_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.connectMs),
    queryMs: timeoutFrom(env, 'DATABASE_QUERY_TIMEOUT_MS', DEFAULT_DATABASE_TIMEOUTS.queryMs),
  };
}

/**
 * A pool whose every wait is bounded. `query_timeout` is the client's own bound (a frozen server
 * never answers a cancel); `statement_timeout` lets a server that is alive but slow (a lock, a
 * long plan) cancel the statement itself and keep the connection. A query that failed on its
 * connection gets that connection thrown away by the pool (`pool.query` and `inTransaction`
 * release it with the error), so a stalled query cannot leave a busy connection behind.
 */
export function boundedPool(
  connectionString: string,
  timeouts: DatabaseTimeouts = DEFAULT_DATABASE_TIMEOUTS,
  max = 10,
): pg.Pool {
  const pool = new pg.Pool({
    connectionString,
    max,
    connectionTimeoutMillis: timeouts.connectMs,
    query_timeout: timeouts.queryMs,
    statement_timeout: timeouts.queryMs,
    // A peer that vanished without a FIN is noticed on idle connections too.
    keepAlive: true,
  });
  // An idle connection's error (the server restarting) is the pool's to recover from; the
  // next query gets a new connection or fails with 503.
  pool.on('error', () => {});
  return pool;
}

const pools = new Map<string, pg.Pool>();
let appCount = 0;

function poolFor(url: string, env: NodeJS.ProcessEnv): pg.Pool {
  let pool = pools.get(url);
  if (pool === undefined) {
    pool = boundedPool(url, databaseTimeoutsFromEnvironment(env));
    pools.set(url, pool);
  }
  return pool;
}

// What node-postgres reads as a connection string: a URL of these schemes, or a socket directory.
// Anything else it reads as a path relative to a made-up host ("getaddrinfo ENOTFOUND base").
const DATABASE_URL_SCHEMES = new Set(['postgres:', 'postgresql:', 'socket:']);

/** Throws, naming the variable but not the value (it may hold a password), unless pg can read it. */
function checkDatabaseUrl(url: string): void {
  if (url.startsWith('/')) return;
  let scheme: string | undefined;
  try {
    scheme = new URL(url).protocol;
  } catch {
    // not a URL
  }
  if (scheme === undefined || !DATABASE_URL_SCHEMES.has(scheme)) {
    throw new Error(
      'DATABASE_URL: must be a postgres:// or postgresql:// URL, such as postgres://app@127.0.0.1:5432/payments',
    );
  }
}

/**
 * `DATABASE_URL` (a `postgres://` URL), `DATABASE_SCHEMA` (default `public`),
 * `DATABASE_CONNECT_TIMEOUT_MS` and `DATABASE_QUERY_TIMEOUT_MS` (see `DEFAULT_DATABASE_TIMEOUTS`).
 * With `DATABASE_SCHEMA_PER_APP=true` every app built in the process gets a schema of its own,
 * fresh and seeded, as every in-memory app gets fresh stores (the example's test suites run so).
 */
export function databaseFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): AppDatabase | undefined {
  const url = env.DATABASE_URL;
  if (url === undefined || url === '') return undefined;
  checkDatabaseUrl(url);
  const schema =
    env.DATABASE_SCHEMA_PER_APP === 'true'
      ? `app_${process.pid}_${++appCount}`
      : (env.DATABASE_SCHEMA ?? 'public');
  try {
    quotedSchema(schema);
  } catch (error) {
    throw new Error(`DATABASE_SCHEMA: ${(error as Error).message}`);
  }
  return { pool: poolFor(url, env), schema };
}

/** How long shutdown waits for a pool to close its connections (a frozen server never acks). */
const POOL_END_WAIT_MS = 1_000;

/** Ends every pool `databaseFromEnvironment` opened (at shutdown), waiting at most a second. */
export async function closeDatabasePools(): Promise<void> {
  const open = [...pools.values()];
  pools.clear();
  await Promise.all(
    open.map((pool) => {
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, POOL_END_WAIT_MS).unref();
      });
      return Promise.race([pool.end().catch(() => undefined), waited]).finally(() =>
        clearTimeout(timer),
      );
    }),
  );
}
