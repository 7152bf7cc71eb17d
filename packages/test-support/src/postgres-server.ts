/**
 * @module A real PostgreSQL for tests, from Debian's `postgresql` package: a fresh cluster
 * (`initdb`) in a temp dir, the server on a free loopback port, stopped by PID. initdb and the
 * server refuse to run as root, so as root both run as the package's `postgres` system user,
 * which then owns the temp dir. No system service needed.
 */
import { execFileSync } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import {
  installedOrSkipped,
  isExecutable,
  spawnServer,
  waitUntilServing,
} from './child-processes.js';
import { acceptsConnections, freePort } from './servers.js';

export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:PORT/postgres` (trust authentication on loopback). */
  readonly url: string;
  readonly port: number;
  /** The temp dir holding the cluster (`data/`) and the server's socket; removed by `close()`. */
  readonly dir: string;
  /** Stops the server (SIGINT: fast shutdown) and removes its temp dir. Safe to call twice. */
  close(): Promise<void>;
}

const DEBIAN_ROOT = '/usr/lib/postgresql';

/**
 * The directory holding `initdb` and `postgres`: `POSTGRES_BIN_DIR`, else the newest
 * `/usr/lib/postgresql/<major>/bin` (Debian installs each major side by side), or undefined.
 */
export function findPostgresBinDir(): string | undefined {
  const candidates: string[] = [];
  if (process.env.POSTGRES_BIN_DIR) {
    candidates.push(process.env.POSTGRES_BIN_DIR);
  } else {
    let majors: string[] = [];
    try {
      majors = readdirSync(DEBIAN_ROOT).filter((name) => /^[0-9]+$/.test(name));
    } catch {
      // not a Debian install
    }
    majors.sort((a, b) => Number(b) - Number(a));
    candidates.push(...majors.map((major) => join(DEBIAN_ROOT, major, 'bin')));
  }
  return candidates.find(
    (dir) => isExecutable(join(dir, 'initdb')) && isExecutable(join(dir, 'postgres')),
  );
}

/**
 * Whether the PostgreSQL suites can run. Throws when PostgreSQL is missing and `CI` is set (CI
 * must run them); otherwise warns once and returns false, for
 * `describe.skipIf(!hasPostgresServer())`.
 */
export function hasPostgresServer(): boolean {
  return installedOrSkipped(
    findPostgresBinDir() !== undefined,
    `PostgreSQL was not found in ${DEBIAN_ROOT}/<version>/bin (or POSTGRES_BIN_DIR); install it (Debian: apt-get install postgresql)`,
    'PostgreSQL suites',
  );
}

/** The uid and gid of the `postgres` user when running as root, so the cluster is not root's. */
function postgresUser(): { uid: number; gid: number } | undefined {
  if (userInfo().uid !== 0) return undefined;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new Error(
      'PostgreSQL refuses to run as root and there is no "postgres" user to run it as; install Debian\'s postgresql package (it creates the user) or run the tests as another user.',
    );
  }
}

/**
 * Creates a cluster in a temp dir (`initdb`, trust auth, C locale, UTF-8) and starts `postgres`
 * on 127.0.0.1 on a free port with fsync off (test data is thrown away). Resolves once the
 * server accepts queries. Throws when PostgreSQL is not installed.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const binDir = findPostgresBinDir();
  if (binDir === undefined) throw new Error('PostgreSQL is not installed');
  const owner = postgresUser();
  const dir = mkdtempSync(join(tmpdir(), 'resourceful-postgres-'));
  if (owner !== undefined) chownSync(dir, owner.uid, owner.gid);
  const dataDir = join(dir, 'data');
  const port = await freePort();
  const asOwner = owner === undefined ? {} : { uid: owner.uid, gid: owner.gid };

  try {
    execFileSync(
      join(binDir, 'initdb'),
      [
        '--pgdata',
        dataDir,
        '--username',
        'postgres',
        '--auth',
        'trust',
        '--encoding',
        'UTF8',
        '--locale',
        'C',
        '--no-sync',
      ],
      { ...asOwner, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }

  const server = spawnServer(
    join(binDir, 'postgres'),
    [
      '-D',
      dataDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      // The socket dir must be writable by the server's user; the temp dir is.
      '-c',
      `unix_socket_directories=${dir}`,
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
    ],
    { ...asOwner, cwd: dir, maxStderr: 8_000 },
  );
  const proc = server.process;

  let closed = false;
  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    if (!server.exited()) {
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      // SIGINT is PostgreSQL's fast shutdown: open sessions are ended, no waiting on clients.
      proc.kill('SIGINT');
      const killTimer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killTimer);
    }
    rmSync(dir, { recursive: true, force: true });
  }

  try {
    await waitUntilServing(
      server,
      // The port opens before recovery ends; "ready to accept connections" is logged after.
      async () =>
        server.stderr().includes('ready to accept connections') && (await acceptsConnections(port)),
      { name: `postgres on port ${port}`, timeoutMs: 30_000, intervalMs: 50 },
    );
  } catch (error) {
    await close();
    throw error;
  }
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, port, dir, close };
}
