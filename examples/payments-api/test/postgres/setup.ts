/**
 * Runs before each suite of the PostgreSQL pass: every app the suite builds (`createApp()`, and
 * the service processes it starts, which inherit the environment) uses the database, each in a
 * fresh, migrated and seeded schema of its own, as each in-memory app has fresh stores.
 */
import { inject } from 'vitest';

process.env.DATABASE_URL = inject('databaseUrl');
process.env.DATABASE_SCHEMA_PER_APP = 'true';
