/**
 * @module A real Redis Cluster for tests: three primaries and three replicas of Debian's
 * `redis-server` on loopback ports, joined with `redis-cli --cluster create … --cluster-replicas 1`,
 * each node in its own temp dir, stopped by PID. A short `cluster-node-timeout` makes a failover
 * take about a second, so tests can kill a primary and watch its replica take over.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { promisify } from 'node:util';
import {
  firstExecutable,
  installedOrSkipped,
  redisServerArgs,
  type ServerProcess,
  spawnServer,
  waitUntilServing,
} from './child-processes.js';
import { findRedisServer } from './redis-server.js';
import { freePort, waitFor } from './servers.js';

const run = promisify(execFile);

export interface RedisClusterNode {
  readonly port: number;
  /** `redis://127.0.0.1:PORT`. */
  readonly url: string;
  /** The PID of the running process, or undefined while the node is down. */
  readonly pid: number | undefined;
  /** SIGKILL, as a crashed machine: nothing is saved, no goodbye to the other nodes. */
  kill(): Promise<void>;
  /** Starts the node again on the same ports and dir (its nodes.conf makes it rejoin). */
  start(): Promise<void>;
}

export interface RedisCluster {
  readonly nodes: readonly RedisClusterNode[];
  /** Every node's URL, for a client's root nodes. */
  readonly urls: readonly string[];
  /** The milliseconds of `cluster-node-timeout` the nodes run with. */
  readonly nodeTimeoutMs: number;
  /** Runs `redis-cli -p PORT …args` against a node and resolves with its output. */
  cli(port: number, ...args: string[]): Promise<string>;
  /** The hash slot of a key (`CLUSTER KEYSLOT`). */
  keySlot(key: string): Promise<number>;
  /** The node currently serving `slot` as primary, as a live node sees it. */
  primaryOf(slot: number): Promise<RedisClusterNode>;
  /** The ports of the current primaries. */
  primaries(): Promise<number[]>;
  /** The node currently replicating the primary on `port`. */
  replicaOf(port: number): Promise<RedisClusterNode>;
  /** Resolves when every live node reports `cluster_state:ok` and every slot has a primary. */
  waitUntilHealthy(timeoutMs?: number): Promise<void>;
  /** Resolves when `slot` is served by a primary other than `port` and the cluster is healthy. */
  waitForFailover(slot: number, port: number, timeoutMs?: number): Promise<RedisClusterNode>;
  /** Resolves when three replicas are connected to their primaries and synced. */
  waitForReplicasInSync(timeoutMs?: number): Promise<void>;
  /** Stops every node by PID and removes the temp dir. Safe to call twice. */
  close(): Promise<void>;
}

/** The `redis-cli` binary beside `redis-server` (or on PATH), or undefined. */
export function findRedisCli(): string | undefined {
  const server = findRedisServer();
  const dirs = [
    ...(server === undefined ? [] : [join(server, '..')]),
    ...(process.env.PATH ?? '').split(delimiter),
    '/usr/bin',
    '/usr/local/bin',
  ].filter((dir) => dir !== '');
  return firstExecutable(dirs.map((dir) => join(dir, 'redis-cli')));
}

/**
 * Whether the Redis Cluster suites can run (`redis-server` and `redis-cli` installed). Under
 * `CI` their absence throws (CI must run them); elsewhere it warns once and returns false.
 */
export function hasRedisCluster(): boolean {
  return installedOrSkipped(
    findRedisServer() !== undefined && findRedisCli() !== undefined,
    'redis-server and redis-cli were not both found on PATH (or REDIS_SERVER_BIN); install them (Debian: apt-get install redis-server)',
    'Redis Cluster suites',
  );
}

export interface StartRedisClusterOptions {
  /** `cluster-node-timeout` in ms: how long a silent primary takes to be failed over. @default 500 */
  nodeTimeoutMs?: number;
}

/** Starts 3 primaries + 3 replicas on free loopback ports; resolves when the cluster is healthy. */
export async function startRedisCluster(
  options: StartRedisClusterOptions = {},
): Promise<RedisCluster> {
  const server = findRedisServer();
  const cli = findRedisCli();
  if (server === undefined || cli === undefined) throw new Error('redis-server is not installed');
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 500;
  const root = mkdtempSync(join(tmpdir(), 'resourceful-redis-cluster-'));
  // Six client ports and six cluster bus ports, all distinct. The bus port is set explicitly
  // (not port + 10000, which may be taken or above 65535).
  const taken = new Set<number>();
  const distinctFreePort = async (): Promise<number> => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const port = await freePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
    throw new Error('no free loopback port found for the Redis Cluster');
  };
  const ports: number[] = [];
  const busPorts: number[] = [];
  for (let i = 0; i < 6; i++) {
    ports.push(await distinctFreePort());
    busPorts.push(await distinctFreePort());
  }

  const redisCli = async (port: number, ...args: string[]) =>
    (await run(cli, ['-h', '127.0.0.1', '-p', String(port), ...args], { timeout: 10_000 })).stdout;

  const nodes = ports.map((port, index) => {
    const dir = join(root, String(port));
    mkdirSync(dir);
    let child: ServerProcess | undefined;

    async function start(): Promise<void> {
      const started = spawnServer(server!, [
        ...redisServerArgs(port, dir),
        '--cluster-port',
        String(busPorts[index]),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(nodeTimeoutMs),
        // DEBUG SLEEP lets a test stall a replica to stand for replication lag.
        '--enable-debug-command',
        'local',
      ]);
      child = started;
      await waitUntilServing(
        started,
        async () => (await redisCli(port, 'PING').catch(() => '')).trim() === 'PONG',
        { name: `redis-server (cluster node ${port})`, timeoutMs: 10_000, intervalMs: 25 },
      );
    }

    async function kill(): Promise<void> {
      const killed = child;
      child = undefined;
      if (killed === undefined || killed.exited()) return;
      const proc = killed.process;
      const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
      if (proc.pid !== undefined) process.kill(proc.pid, 'SIGKILL');
      await exited;
    }

    const node: RedisClusterNode = {
      port,
      url: `redis://127.0.0.1:${port}`,
      get pid() {
        return child?.process.pid;
      },
      kill,
      start,
    };
    return node;
  });

  let closed = false;
  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    await Promise.all(nodes.map((node) => node.kill()));
    rmSync(root, { recursive: true, force: true });
  }

  /** `CLUSTER NODES` of one live node: id, port, flags, primary id and slot ranges per line. */
  async function clusterNodes() {
    for (const node of nodes) {
      if (node.pid === undefined) continue;
      const text = await redisCli(node.port, 'CLUSTER', 'NODES').catch(() => '');
      if (text.trim() === '') continue;
      return text
        .trim()
        .split('\n')
        .map((line) => {
          const [id, address, flags, of, , , , , ...slots] = line.split(' ');
          return {
            id,
            of,
            port: Number(address?.split('@')[0]?.split(':')[1]),
            flags: flags?.split(',') ?? [],
            slots: slots.filter((range) => !range.startsWith('[')),
          };
        });
    }
    throw new Error('no cluster node answers');
  }

  async function primaries(): Promise<number[]> {
    return (await clusterNodes())
      .filter((entry) => entry.flags.includes('master') && !entry.flags.includes('fail'))
      .filter((entry) => entry.slots.length > 0)
      .map((entry) => entry.port);
  }

  async function replicaOf(port: number): Promise<RedisClusterNode> {
    const entries = await clusterNodes();
    const primary = entries.find((entry) => entry.port === port);
    const replica = entries.find(
      (entry) =>
        entry.flags.includes('slave') && !entry.flags.includes('fail') && entry.of === primary?.id,
    );
    const node = nodes.find((candidate) => candidate.port === replica?.port);
    if (node === undefined) throw new Error(`no live replica of ${port}`);
    return node;
  }

  async function primaryOf(slot: number): Promise<RedisClusterNode> {
    for (const entry of await clusterNodes()) {
      if (!entry.flags.includes('master') || entry.flags.includes('fail')) continue;
      for (const range of entry.slots) {
        const [from, to = from] = range.split('-').map(Number);
        if (from !== undefined && to !== undefined && slot >= from && slot <= to) {
          const node = nodes.find((candidate) => candidate.port === entry.port);
          if (node) return node;
        }
      }
    }
    throw new Error(`no primary serves slot ${slot}`);
  }

  async function waitUntilHealthy(timeoutMs = 20_000): Promise<void> {
    await waitFor(
      async () => {
        for (const node of nodes) {
          if (node.pid === undefined) continue;
          const info = await redisCli(node.port, 'CLUSTER', 'INFO').catch(() => '');
          if (!info.includes('cluster_state:ok')) return false;
        }
        const live = await clusterNodes();
        let covered = 0;
        for (const entry of live) {
          if (!entry.flags.includes('master') || entry.flags.includes('fail')) continue;
          for (const range of entry.slots) {
            const [from, to = from] = range.split('-').map(Number);
            covered += (to ?? 0) - (from ?? 0) + 1;
          }
        }
        return covered === 16384;
      },
      { timeoutMs, intervalMs: 100, what: 'the Redis Cluster to be healthy' },
    );
  }

  async function waitForReplicasInSync(timeoutMs = 20_000): Promise<void> {
    await waitFor(
      async () => {
        const replicas = (await clusterNodes()).filter(
          (entry) => entry.flags.includes('slave') && !entry.flags.includes('fail'),
        );
        if (replicas.length !== 3) return false;
        for (const replica of replicas) {
          const info = await redisCli(replica.port, 'INFO', 'replication').catch(() => '');
          if (!info.includes('master_link_status:up')) return false;
        }
        return true;
      },
      { timeoutMs, intervalMs: 100, what: 'three replicas in sync' },
    );
  }

  try {
    await Promise.all(nodes.map((node) => node.start()));
    await run(
      cli,
      [
        '--cluster',
        'create',
        ...ports.map((port) => `127.0.0.1:${port}`),
        '--cluster-replicas',
        '1',
        '--cluster-yes',
      ],
      { timeout: 30_000 },
    );
    await waitUntilHealthy();
    // Every replica must have finished its first sync, or a failover test could start while
    // a replica has nothing to take over with.
    await waitForReplicasInSync();
  } catch (error) {
    await close();
    throw error;
  }

  return {
    nodes,
    urls: nodes.map((node) => node.url),
    nodeTimeoutMs,
    cli: redisCli,
    async keySlot(key) {
      const live = nodes.find((node) => node.pid !== undefined);
      if (live === undefined) throw new Error('no cluster node is running');
      return Number((await redisCli(live.port, 'CLUSTER', 'KEYSLOT', key)).trim());
    },
    primaryOf,
    primaries,
    replicaOf,
    waitUntilHealthy,
    waitForReplicasInSync,
    async waitForFailover(slot, port, timeoutMs = 20_000) {
      let promoted: RedisClusterNode | undefined;
      await waitFor(
        async () => {
          promoted = await primaryOf(slot).catch(() => undefined);
          return promoted !== undefined && promoted.port !== port;
        },
        { timeoutMs, intervalMs: 50, what: `a replica to take slot ${slot} over from ${port}` },
      );
      await waitUntilHealthy(timeoutMs);
      return promoted!;
    },
    close,
  };
}
