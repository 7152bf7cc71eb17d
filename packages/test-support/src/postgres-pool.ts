/**
 * @module A test PostgreSQL (`startPostgresServer`) with a node-postgres pool on it, stopped
 * together: the set-up of every suite that talks to a database of its own.
 */
import pg from 'pg';
import { type PostgresServer, startPostgresServer } from './postgres-server.js';

export interface PostgresPool {
  readonly server: PostgresServer;
  readonly pool: pg.Pool;
  /** Ends the pool, then stops the server and removes its dir. Safe to call twice. */
  close(): Promise<void>;
}

/**
 * Starts a PostgreSQL and opens a pool of at most `max` connections on it (4 by default). The
 * pool ignores the errors of its idle clients (node-postgres emits them on the pool: the
 * server's shutdown at the end of the suite, or a test stopping it), which would otherwise end
 * the test process; queries still fail as they should.
 */
export async function startPostgresPool({ max = 4 }: { max?: number } = {}): Promise<PostgresPool> {
  const server = await startPostgresServer();
  const pool = new pg.Pool({ connectionString: server.url, max });
  pool.on('error', () => undefined);
  let closed = false;
  return {
    server,
    pool,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
      await server.close();
    },
  };
}
