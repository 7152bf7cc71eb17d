/**
 * @module A real `redis-server` for tests: started on a free loopback port with its own temp
 * dir, stopped and restarted on the same port to simulate an outage. No system service needed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  firstExecutable,
  installedOrSkipped,
  redisServerArgs,
  type ServerProcess,
  spawnServer,
  waitUntilServing,
} from './child-processes.js';
import { freePort } from './servers.js';

export interface RedisServer {
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  readonly port: number;
  /**
   * Stops the server (`SHUTDOWN SAVE`, so the data survives a `restart()` as it would on a
   * Redis with persistence). Resolves when the process has exited.
   */
  stop(): Promise<void>;
  /**
   * Starts the server again on the same port and dir; resolves when it answers PING. With
   * `{ empty: true }` it stops without saving and comes back with no data, as a Redis without
   * persistence does after a crash or a restart.
   */
  restart(options?: { empty?: boolean }): Promise<void>;
  /** Stops the server and removes its temp dir. Safe to call twice. */
  close(): Promise<void>;
}

/** The `redis-server` binary (`REDIS_SERVER_BIN`, else found on PATH), or undefined. */
export function findRedisServer(): string | undefined {
  const candidates = process.env.REDIS_SERVER_BIN
    ? [process.env.REDIS_SERVER_BIN]
    : [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin']
        .filter((dir) => dir !== '')
        .map((dir) => join(dir, 'redis-server'));
  return firstExecutable(candidates);
}

/**
 * Whether the Redis suites can run. Throws when `redis-server` is missing and `CI` is set (CI
 * must run them); otherwise warns once and returns false, for `describe.skipIf(!hasRedisServer())`.
 */
export function hasRedisServer(): boolean {
  return installedOrSkipped(
    findRedisServer() !== undefined,
    'redis-server was not found on PATH (or REDIS_SERVER_BIN); install it (Debian: apt-get install redis-server)',
    'Redis suites',
  );
}

/** Sends one RESP command on a fresh connection and resolves with the first reply line. */
function sendRaw(port: number, args: readonly string[], timeoutMs = 2_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let reply = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('redis-server did not answer in time'));
    }, timeoutMs);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
      else resolve(reply);
    };
    socket.once('error', finish);
    socket.once('close', () => finish());
    socket.on('data', (data) => {
      reply += data.toString('utf8');
      if (reply.includes('\r\n')) finish();
    });
    socket.once('connect', () => {
      const frame = `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
      socket.write(frame);
    });
  });
}

async function answersPing(port: number): Promise<boolean> {
  try {
    return (await sendRaw(port, ['PING'], 500)).startsWith('+PONG');
  } catch {
    return false;
  }
}

/**
 * Starts `redis-server` on 127.0.0.1 on a free port (`--save '' --appendonly no`, temp dir) and
 * resolves once it answers PING. Throws when the binary is missing.
 */
export async function startRedisServer(): Promise<RedisServer> {
  const bin = findRedisServer();
  if (bin === undefined) throw new Error('redis-server is not installed');
  const dir = mkdtempSync(join(tmpdir(), 'resourceful-redis-'));
  const port = await freePort();
  let child: ServerProcess | undefined;
  let closed = false;

  async function start(): Promise<void> {
    const started = spawnServer(bin!, redisServerArgs(port, dir));
    child = started;
    try {
      await waitUntilServing(started, () => answersPing(port), {
        name: `redis-server on port ${port}`,
        timeoutMs: 10_000,
        intervalMs: 25,
      });
    } catch (error) {
      started.process.kill('SIGKILL');
      throw error;
    }
  }

  async function stop(save = true): Promise<void> {
    const stopping = child;
    child = undefined;
    if (stopping === undefined || stopping.exited()) return;
    const proc = stopping.process;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    // SHUTDOWN closes the connection without a reply on success; a failure is fine, the
    // kill below is the fallback.
    await sendRaw(port, ['SHUTDOWN', save ? 'SAVE' : 'NOSAVE']).catch(() => undefined);
    const killTimer = setTimeout(() => proc.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(killTimer);
  }

  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop: () => stop(),
    async restart(options = {}) {
      if (closed) throw new Error('the redis-server was closed');
      await stop(!options.empty);
      // A dump left by an earlier saving stop would otherwise be loaded again.
      if (options.empty) rmSync(join(dir, 'dump.rdb'), { force: true });
      await start();
    },
    async close() {
      if (closed) return;
      closed = true;
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
