import { hasRedisServer, useRedisServer, waitFor } from '@resourceful/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customersAcross, type ServiceProcess, startService } from './service-process.js';

const available = hasRedisServer();

describe.skipIf(!available)('two example processes sharing one Redis', () => {
  const redis = useRedisServer();
  let services: ServiceProcess[] = [];

  beforeAll(async () => {
    services = await Promise.all([
      startService({ REDIS_URL: redis.server.url }),
      startService({ REDIS_URL: redis.server.url }),
    ]);
  }, 60_000);

  afterAll(async () => {
    await Promise.all(services.map((service) => service.stop()));
  });

  it('use the Redis store', () => {
    for (const service of services) expect(service.output()).toContain('idempotency store: redis');
  });

  it('create exactly one resource when both get the same Service-Request-Id at once', async () => {
    const body = JSON.stringify({ merchant_customer_id: 'shared-redis-1', merchant_id: 'M-1' });
    const send = (service: ServiceProcess) =>
      fetch(`${service.url}/v1/customers/customers`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Service-Request-Id': 'shared-id-1' },
        body,
      }).then((res) => res.status);
    const statuses = await Promise.all(
      Array.from({ length: 10 }, (_, index) => send(services[index % 2]!)),
    );
    expect(statuses.filter((status) => status === 201).length).toBeGreaterThanOrEqual(1);
    expect(statuses.every((status) => status === 201 || status === 409)).toBe(true);

    expect(await customersAcross(services, 'shared-redis-1')).toBe(1);
  });

  it('replay the stored response from the other process', async () => {
    const body = JSON.stringify({ code: 'shared-2' });
    const post = (service: ServiceProcess) =>
      fetch(`${service.url}/v1/risk/decisions`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Service-Request-Id': 'shared-id-2' },
        body,
      });
    const first = await post(services[0]!);
    const second = await post(services[1]!);
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await second.json()).toEqual(await first.json());
  });
});

describe.skipIf(!available)('the example with Redis down', () => {
  const redis = useRedisServer();
  let service: ServiceProcess;

  beforeAll(async () => {
    await redis.server.stop();
    service = await startService({ REDIS_URL: redis.server.url });
  }, 60_000);

  afterAll(async () => {
    await service?.stop();
  });

  const postDecision = (id?: string) =>
    fetch(`${service.url}/v1/risk/decisions`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        ...(id === undefined ? {} : { 'Service-Request-Id': id }),
      },
      body: JSON.stringify({ code: 'down-1' }),
    });

  it('starts and serves everything but idempotent POSTs, which fail closed with 503', async () => {
    expect((await fetch(`${service.url}/v1/vault/credit-cards`)).status).toBe(200);
    expect((await postDecision()).status).toBe(201);
    const refused = await postDecision('down-id-1');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe(
      'SERVICE_UNAVAILABLE',
    );
  });

  it('serves idempotent POSTs again once Redis is back', async () => {
    await redis.server.restart();
    await waitFor(async () => (await postDecision('down-id-2')).status === 201, {
      timeoutMs: 20_000,
      what: 'an idempotent POST to succeed after Redis came back',
    });
    const repeat = await postDecision('down-id-2');
    expect(repeat.status).toBe(201);
    expect(repeat.headers.get('idempotent-replayed')).toBe('true');
  });

  it('logs the outage as one line when it starts and one when it ends, without stack traces', async () => {
    for (let i = 0; i < 3; i++) await postDecision(`down-id-3-${i}`);
    await waitFor(
      async () => {
        await postDecision(`down-id-4-${Date.now()}`);
        return service.output().includes('reachable again');
      },
      { timeoutMs: 15_000, intervalMs: 500, what: 'the line saying Redis is back' },
    );
    const log = service.output();
    expect(log.match(/idempotency store unreachable/g)).toHaveLength(1);
    expect(log.match(/reachable again/g)).toHaveLength(1);
    expect(log).toMatch(
      /reachable again after [\d.]+ s; [1-9]\d* request\(s\) refused with 503 meanwhile/,
    );
    expect(log).not.toMatch(/^\s+at /m);
  });
});

describe.skipIf(!available)(
  'the example on a Redis without persistence that restarts empty',
  () => {
    const redis = useRedisServer();
    let service: ServiceProcess;

    beforeAll(async () => {
      service = await startService({ REDIS_URL: redis.server.url });
    }, 60_000);

    afterAll(async () => {
      await service?.stop();
    });

    const card = {
      payer_id: 'restart-payer',
      type: 'visa',
      number: '4111111111111111',
      expire_month: '11',
      expire_year: '2031',
    };
    const createCard = () =>
      fetch(`${service.url}/v1/vault/credit-cards`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'Service-Request-Id': 'restart-card-1' },
        body: JSON.stringify(card),
      });
    const cardsOfPayer = async () => {
      const res = await fetch(`${service.url}/v1/vault/credit-cards?page_size=100`);
      const { items } = (await res.json()) as { items: { payer_id: string }[] };
      return items.filter((item) => item.payer_id === 'restart-payer').length;
    };

    it('warns at start that Redis cannot hold the guarantee', async () => {
      await waitFor(() => service.output().includes('appendonly is off'), {
        what: 'the persistence warning',
      });
    });

    it('refuses the retry of a create after the restart instead of creating a second card', async () => {
      await waitFor(async () => (await createCard()).status === 201, {
        what: 'the first create',
      });
      await redis.server.restart({ empty: true });
      // Until the client has reconnected the retry gets the outage's 503 (Retry-After: 1); then
      // the store finds its epoch marker gone and refuses it for the window (a longer Retry-After).
      let retry: Response | undefined;
      await waitFor(
        async () => {
          retry = await createCard();
          return retry.status !== 503 || Number(retry.headers.get('retry-after')) > 1;
        },
        { what: 'an answer to the retry from the reconnected store' },
      );
      expect(retry?.status).toBe(503);
      for (let i = 0; i < 3; i++) {
        const res = await createCard();
        expect(res.status).toBe(503);
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(1);
      }
      expect(await cardsOfPayer()).toBe(1);
    });
  },
);
