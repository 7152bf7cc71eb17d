import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  acceptsConnections as accepts,
  findPostgresBinDir,
  hasPostgresServer,
  startPostgresServer,
} from '../src/index.js';

describe('hasPostgresServer', () => {
  const saved = { bin: process.env.POSTGRES_BIN_DIR, ci: process.env.CI };
  afterEach(() => {
    for (const [name, value] of [
      ['POSTGRES_BIN_DIR', saved.bin],
      ['CI', saved.ci],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  it('fails the run under CI when PostgreSQL is missing', () => {
    process.env.POSTGRES_BIN_DIR = '/nonexistent/postgresql/bin';
    process.env.CI = 'true';
    expect(findPostgresBinDir()).toBeUndefined();
    expect(() => hasPostgresServer()).toThrow(/CI must run the PostgreSQL suites/);
  });

  it('skips with a message elsewhere when PostgreSQL is missing', () => {
    process.env.POSTGRES_BIN_DIR = '/nonexistent/postgresql/bin';
    delete process.env.CI;
    expect(hasPostgresServer()).toBe(false);
  });
});

describe.skipIf(!hasPostgresServer())('startPostgresServer', () => {
  it('serves on a loopback port and is gone, with its directory, after close()', async () => {
    const server = await startPostgresServer();
    expect(server.url).toBe(`postgres://postgres@127.0.0.1:${server.port}/postgres`);
    expect(await accepts(server.port)).toBe(true);
    expect(existsSync(`${server.dir}/data/PG_VERSION`)).toBe(true);
    await server.close();
    await server.close();
    expect(await accepts(server.port)).toBe(false);
    expect(existsSync(server.dir)).toBe(false);
  });
});
