/**
 * @module Which database the example uses: PostgreSQL when `DATABASE_URL` is set (one pool per
 * URL in the process), else none (in-memory stores).
 */
import pg from 'pg';
import { quotedSchema } from './migrate.js';

export interface AppDatabase {
  readonly pool: pg.Pool;
  /** The schema holding the tables; created and migrated at start. */
  readonly schema: string;
}

const pools = new Map<string, pg.Pool>();
let appCount = 0;

function poolFor(url: string): pg.Pool {
  let pool = pools.get(url);
  if (pool === undefined) {
    pool = new pg.Pool({ connectionString: url, max: 10 });
    // An idle connection's error (the server restarting) is the pool's to recover from; the
    // next query gets a new connection or fails with 503.
    pool.on('error', () => {});
    pools.set(url, pool);
  }
  return pool;
}

/**
 * `DATABASE_URL` (a `postgres://` URL), `DATABASE_SCHEMA` (default `public`). With
 * `DATABASE_SCHEMA_PER_APP=true` every app built in the process gets a schema of its own, fresh
 * and seeded, as every in-memory app gets fresh stores (the example's test suites run so).
 */
export function databaseFromEnvironment(
  env: NodeJS.ProcessEnv = process.env,
): AppDatabase | undefined {
  const url = env.DATABASE_URL;
  if (url === undefined || url === '') return undefined;
  const schema =
    env.DATABASE_SCHEMA_PER_APP === 'true'
      ? `app_${process.pid}_${++appCount}`
      : (env.DATABASE_SCHEMA ?? 'public');
  quotedSchema(schema);
  return { pool: poolFor(url), schema };
}

/** Ends every pool `databaseFromEnvironment` opened (at shutdown). */
export async function closeDatabasePools(): Promise<void> {
  const open = [...pools.values()];
  pools.clear();
  await Promise.all(open.map((pool) => pool.end()));
}
