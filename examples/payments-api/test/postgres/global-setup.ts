/**
 * The PostgreSQL pass of the example's suites: one real server for the run (test-support's
 * helper, initdb in a temp dir on a loopback port), its URL handed to the test workers.
 */
import { type PostgresServer, startPostgresServer } from '@resourceful/test-support';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
  }
}

let server: PostgresServer | undefined;

export async function setup(project: TestProject): Promise<void> {
  server = await startPostgresServer();
  project.provide('databaseUrl', server.url);
}

export async function teardown(): Promise<void> {
  await server?.close();
}
