/**
 * A primary of a real Redis Cluster killed (SIGKILL) in the middle of bursts of duplicates:
 * what the clients see, whether the service recovers by itself, and how many times a request
 * ran, with and without the `replicas` (WAIT) option. Each trial kills the primary holding the
 * id, waits for its replica to take over, restarts the killed node (it rejoins as a replica)
 * and sends the client's retries until one is answered. Half of the trials first cut the replica's link to its
 * primary (a lagging or partitioned replica: the writes it misses are the ones a failover
 * loses). `IDEMPOTENCY_FAILOVER_TRIALS` (default 1) sets the trials per kind and setting.
 */
import { randomUUID } from 'node:crypto';
import {
  describeEachExpress,
  hasRedisCluster,
  type RedisClusterNode,
  useRedisCluster,
  waitFor,
} from '@resourceful/test-support';
import request, { type Response as TestResponse } from 'supertest';
import { afterAll, describe, expect, it } from 'vitest';
import { redisStore } from '../src/index.js';
import { connectCluster, entryTag } from './cluster-helpers.js';
import { startApp, type TestApp } from './helpers.js';

const available = hasRedisCluster();
const TRIALS = Math.min(Math.max(Number(process.env.IDEMPOTENCY_FAILOVER_TRIALS ?? 1), 1), 50);
const BURST = 20;

interface Trial {
  /** How many times the handler ran for the trial's id. */
  readonly executions: number;
}

describe.skipIf(!available)('a Redis Cluster primary killed amid duplicates', () => {
  const redis = useRedisCluster(connectCluster);
  const results: Record<string, Trial[]> = {};

  afterAll(() => {
    const lines = Object.entries(results).map(([name, trials]) => {
      const duplicated = trials.filter((trial) => trial.executions > 1).length;
      const extra = trials.reduce((sum, trial) => sum + Math.max(0, trial.executions - 1), 0);
      return `${name}: ${trials.length} trials, ${duplicated} with a duplicate execution (${extra} extra runs)`;
    });
    if (lines.length > 0) console.info(`failover trials\n${lines.join('\n')}`);
  });

  async function app(express: Parameters<typeof startApp>[0], replicas: number) {
    const client = await redis.connect();
    const prefix = `failover:${randomUUID()}:`;
    const store = redisStore({
      cluster: client,
      prefix,
      replicas,
      commandTimeoutMs: 500,
      onWarning: () => undefined,
    });
    return { app: await startApp(express, { store }), prefix };
  }

  /** Every answer is a 2xx, a 409 (in flight) or a 503 envelope with Retry-After. */
  function expectOnlyExpectedAnswers(responses: readonly TestResponse[]): void {
    for (const res of responses) {
      expect([201, 409, 503]).toContain(res.status);
      if (res.status === 503) {
        expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
        expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      }
    }
  }

  async function trial(
    target: { app: TestApp; prefix: string },
    cutReplicaLink: boolean,
  ): Promise<Trial> {
    const id = `trial-${randomUUID()}`;
    const slot = await redis.cluster.keySlot(`${entryTag(target.prefix, id)}epoch`);
    const primary = await redis.cluster.primaryOf(slot);
    const replica = await redis.cluster.replicaOf(primary.port);
    if (cutReplicaLink) {
      // The replica cannot authenticate any more, so it stays disconnected from its primary.
      await redis.cluster.cli(replica.port, 'CONFIG', 'SET', 'masterauth', 'not-the-password');
      await redis.cluster.cli(primary.port, 'CLIENT', 'KILL', 'TYPE', 'replica');
      await waitFor(
        async () =>
          (await redis.cluster.cli(primary.port, 'INFO', 'replication')).includes(
            'connected_slaves:0',
          ),
        { what: 'the replica link to drop' },
      );
    }
    try {
      return await burstAndKill(target, id, slot, primary);
    } finally {
      if (cutReplicaLink) await redis.cluster.cli(replica.port, 'CONFIG', 'SET', 'masterauth', '');
      if (primary.pid === undefined) await primary.start();
      await redis.cluster.waitForReplicasInSync();
    }
  }

  async function burstAndKill(
    target: { app: TestApp; prefix: string },
    id: string,
    slot: number,
    primary: RedisClusterNode,
  ): Promise<Trial> {
    const before = target.app.runs.things ?? 0;
    const post = () =>
      request(target.app.url).post('/v1/things').set('Service-Request-Id', id).send({ id });
    const burst = Array.from({ length: BURST }, () => post().then((res) => res));
    await Promise.race(burst);
    await primary.kill();
    const responses: TestResponse[] = await Promise.all(burst);

    await redis.cluster.waitForFailover(slot, primary.port);
    // The killed node comes back, as an orchestrator would restart it, and rejoins as a replica:
    // with `replicas: 1` a primary without a replica refuses every id (503) until then.
    await primary.start();
    // The client retries until it has its answer; the service recovers on its own.
    let answer: TestResponse | undefined;
    await waitFor(
      async () => {
        const res = await post();
        responses.push(res);
        answer = res;
        return res.status === 201;
      },
      // Generous: on a loaded CI machine the client's topology refresh, or a bucket refused for
      // the store's data-loss window (60 s), can outlast a short bound; recovery is the check.
      { timeoutMs: 75_000, intervalMs: 100, what: 'an answer after the failover' },
    ).catch((error: Error) => {
      const last = responses.slice(-5).map((res) => `${res.status} ${res.text.slice(0, 300)}`);
      throw new Error(`${error.message}; last answers:\n${last.join('\n')}`);
    });
    const replay = await post();
    responses.push(replay);
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(answer?.body);
    expectOnlyExpectedAnswers(responses);
    return { executions: (target.app.runs.things ?? 0) - before };
  }

  describeEachExpress('trials', (express) => {
    for (const replicas of [0, 1]) {
      const setting = replicas === 0 ? 'without WAIT' : 'with replicas: 1 (WAIT)';
      it(
        `answers only 201, 409 and 503 envelopes and recovers without a restart, ${setting}`,
        async () => {
          const target = await app(express, replicas);
          for (let i = 0; i < TRIALS; i++) {
            for (const cut of [false, true]) {
              const outcome = await trial(target, cut);
              const name = `${setting}, ${cut ? 'replica link cut' : 'replica in sync'}`;
              results[name] = [...(results[name] ?? []), outcome];
              expect(outcome.executions).toBeGreaterThanOrEqual(1);
              // WAIT makes the handler run only once a replica holds the lock.
              if (replicas === 1) expect(outcome.executions).toBe(1);
            }
          }
        },
        60_000 + TRIALS * 2 * 100_000,
      );
    }
  });
});
