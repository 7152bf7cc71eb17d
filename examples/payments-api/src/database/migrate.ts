/**
 * @module Applies the migrations a schema lacks, at start. A small runner of our own rather
 * than node-pg-migrate or Knex: the example's migrations are a handful of SQL strings applied in
 * order, and this is the whole of what it needs (an advisory lock so instances starting together
 * take turns, one transaction so a failed migration leaves nothing half-done, a table of applied
 * versions). A service with down-migrations, a CLI and many authors should take node-pg-migrate.
 */
import type pg from 'pg';
import { MIGRATIONS, type Migration } from './migrations.js';

/** A schema name as the example accepts it: it is written into SQL, so nothing but these. */
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function quotedSchema(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new TypeError(
      `The database schema name ${JSON.stringify(schema)} must be lower-case letters, digits and underscores.`,
    );
  }
  return `"${schema}"`;
}

/**
 * Creates `schema` if needed and applies every migration it has not recorded, in version order.
 * Resolves with the versions applied now (empty when the schema was up to date).
 */
export async function migrate(
  pool: pg.Pool,
  schema: string,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<number[]> {
  const quoted = quotedSchema(schema);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    // Two instances starting on one database: the second waits here, then finds the work done.
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `payments-api migrations ${schema}`,
    ]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoted}`);
    await client.query(`SET LOCAL search_path TO ${quoted}`);
    await client.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version integer PRIMARY KEY,
         name text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number }>(
      'SELECT version FROM schema_migrations',
    );
    const applied = new Set(rows.map((row) => row.version));
    const pending = [...migrations]
      .sort((a, b) => a.version - b.version)
      .filter((migration) => !applied.has(migration.version));
    for (const migration of pending) {
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
    }
    await client.query('COMMIT');
    return pending.map((migration) => migration.version);
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    client.release();
  }
}
