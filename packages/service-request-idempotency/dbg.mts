import { startRedisCluster } from '@resourceful/test-support';
import { redisStore, scopedKey } from './src/index.ts';
import { connectCluster, entryTag } from './test/cluster-helpers.ts';
const c = await startRedisCluster();
try {
const client = await connectCluster(c);
const prefix = 'p:';
const store = redisStore({ cluster: client, prefix, onWarning: () => {}, commandTimeoutMs: 500 });
const id = 'x1';
const slot = await c.keySlot(`${entryTag(prefix, id)}epoch`);
const p = await c.primaryOf(slot);
console.log(await store.acquire(scopedKey('', id), { fingerprint: 'f', token: 't', lockTtlMs: 60000 }));
await p.kill();
const t = Date.now();
for (let i = 0; i < 60; i++) {
  try { console.log(Date.now()-t, JSON.stringify(await store.get(scopedKey('', id)))); if (i > 3) break; }
  catch (e) { console.log(Date.now()-t, (e as Error).constructor.name, (e as Error).message); }
  await new Promise(r => setTimeout(r, 250));
}
client.destroy();
} finally { await c.close(); }
