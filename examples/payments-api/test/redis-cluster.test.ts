import { createHash } from 'node:crypto';
import { scopedKey } from '@resourceful/service-request-idempotency';
import {
  hasRedisCluster,
  type RedisCluster,
  startRedisCluster,
  waitFor,
} from '@resourceful/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customersAcross, type ServiceProcess, startService } from './service-process.js';

const available = hasRedisCluster();

/** The hash tag the store gives an anonymous caller's id (its README, "Keys"). */
function entryTag(id: string): string {
  const bucket = createHash('sha256').update(scopedKey('', id)).digest().readUInt16BE(0) % 1024;
  return `resourceful:idempotency:{${bucket}}`;
}

interface Envelope {
  error: { code: string };
}

describe.skipIf(!available)('two example processes on one Redis Cluster', () => {
  let cluster: RedisCluster;
  let services: ServiceProcess[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    const env = { REDIS_CLUSTER_URLS: cluster.urls.join(', ') };
    services = await Promise.all([startService(env), startService(env)]);
  }, 90_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
    await cluster?.close();
  });

  const postDecision = (service: ServiceProcess, id: string) =>
    fetch(`${service.url}/v1/risk/decisions`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Service-Request-Id': id },
      body: JSON.stringify({ code: id }),
    });

  it('use the cluster store', () => {
    for (const service of services) {
      expect(service.output()).toContain('idempotency store: redis cluster (6 root nodes)');
    }
  });

  it('create one resource for 20 duplicates split across them', async () => {
    await waitFor(async () => (await postDecision(services[0]!, 'warm-up')).status === 201, {
      timeoutMs: 20_000,
      what: 'the cluster store to answer',
    });
    const body = JSON.stringify({ merchant_customer_id: 'cluster-1', merchant_id: 'M-1' });
    const statuses = await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        fetch(`${services[index % 2]!.url}/v1/customers/customers`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', 'Service-Request-Id': 'cluster-id-1' },
          body,
        }).then((res) => res.status),
      ),
    );
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);
    expect(await customersAcross(services, 'cluster-1')).toBe(1);
  });

  it('answer 503 envelopes with Retry-After while a primary fails over, then recover without a restart', async () => {
    // Ids whose keys live on the primary about to be killed, and ids elsewhere.
    const victimSlot = await cluster.keySlot(`${entryTag('failover-0')}epoch`);
    const victim = await cluster.primaryOf(victimSlot);
    const onVictim: string[] = [];
    for (let i = 0; onVictim.length < 5 && i < 500; i++) {
      const id = `failover-${i}`;
      const slot = await cluster.keySlot(`${entryTag(id)}epoch`);
      if ((await cluster.primaryOf(slot)).port === victim.port) onVictim.push(id);
    }
    const statuses: number[] = [];
    const check = async (res: Response) => {
      statuses.push(res.status);
      if (res.status === 503) {
        expect(res.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        expect(((await res.json()) as Envelope).error.code).toBe('SERVICE_UNAVAILABLE');
      } else {
        await res.arrayBuffer();
      }
      return res.status;
    };

    await victim.kill();
    let round = 0;
    // Traffic during the failover and until an id of the killed primary's slots is served.
    await waitFor(
      async () => {
        round++;
        const answers = await Promise.all(
          onVictim.map((id, i) => postDecision(services[i % 2]!, `${id}-${round}`).then(check)),
        );
        return answers.every((status) => status === 201);
      },
      { timeoutMs: 30_000, intervalMs: 100, what: 'the services to recover after the failover' },
    );
    expect(statuses).toContain(503);
    expect(statuses.every((status) => status === 201 || status === 503)).toBe(true);
    expect((await cluster.primaryOf(victimSlot)).port).not.toBe(victim.port);

    await victim.start();
    await cluster.waitForReplicasInSync();
    // The outage is logged as one line when it starts and one when it ends, no stack traces.
    await waitFor(
      async () => {
        await postDecision(services[0]!, `after-${Date.now()}`);
        return services[0]!.output().includes('reachable again');
      },
      { timeoutMs: 10_000, intervalMs: 500, what: 'the recovery line' },
    );
    const log = services[0]!.output();
    expect(log.match(/idempotency store unreachable/g)?.length).toBeGreaterThanOrEqual(1);
    expect(log).toMatch(/reachable again after [\d.]+ s; \d+ request\(s\) refused with 503/);
    expect(log).not.toMatch(/^\s+at /m);
  }, 90_000);
});

describe('REDIS_CLUSTER_URLS', () => {
  it('refuses to start with a node URL that is not redis://', async () => {
    await expect(
      startService({ REDIS_CLUSTER_URLS: 'redis://127.0.0.1:1,http://x' }),
    ).rejects.toThrow(/REDIS_CLUSTER_URLS: "http:\/\/x" is not a redis:\/\/ URL/);
  });
});
