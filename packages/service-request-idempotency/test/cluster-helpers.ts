/**
 * Redis Cluster clients as an app instance would make them, and the store's documented key
 * layout (README, "Keys"), so a test can find the slot (and the primary) of an id.
 */
import { createHash } from 'node:crypto';
import type { RedisCluster } from '@resourceful/test-support';
import { createCluster } from 'redis';
import { scopedKey } from '../src/index.js';

export type Cluster = ReturnType<typeof createCluster>;

/** No offline queue (fail fast → 503 while a node is down), quick reconnects. */
export async function connectCluster(cluster: RedisCluster): Promise<Cluster> {
  const client = createCluster({
    rootNodes: cluster.urls.map((url) => ({ url })),
    defaults: {
      disableOfflineQueue: true,
      socket: { reconnectStrategy: (retries) => Math.min(20 * (retries + 1), 200) },
    },
  });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** `<prefix>{<bucket>}`: the hash tag of a store key. */
export function keyTag(prefix: string, key: string): string {
  const bucket = createHash('sha256').update(key).digest().readUInt16BE(0) % 1024;
  return `${prefix}{${bucket}}`;
}

/** The hash tag of the entry of `id` sent without `Authorization`. */
export function entryTag(prefix: string, id: string): string {
  return keyTag(prefix, scopedKey('', id));
}
