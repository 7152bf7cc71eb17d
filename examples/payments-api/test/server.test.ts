import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from './service-process.js';

describe('the service process', () => {
  let service: ServiceProcess | undefined;

  afterEach(() => {
    if (service && service.child.exitCode === null) service.child.kill('SIGKILL');
  });

  it('listens on PORT and stops cleanly on SIGTERM', async () => {
    service = await startService();
    const res = await fetch(`${service.url}/v1/vault/credit-cards`);
    expect(res.status).toBe(200);
    expect(await service.stop()).toBe(0);
  });

  it('serves a 32 kB URL, answers 414 for 100 kB and 431 for 100 kB of headers, as envelopes', async () => {
    service = await startService();
    const served = await fetch(
      `${service.url}/v1/vault/credit-cards/CARD-SEED1?padding=${'a'.repeat(32_000)}`,
    );
    expect(served.status).toBe(200);
    const longUrl = await fetch(
      `${service.url}/v1/vault/credit-cards?payer_id=${'a'.repeat(100_000)}`,
    );
    expect(longUrl.status).toBe(414);
    expect(((await longUrl.json()) as { error: { code: string } }).error.code).toBe('URI_TOO_LONG');
    const hugeHeaders = await fetch(`${service.url}/v1/vault/credit-cards`, {
      headers: { 'X-Padding': 'a'.repeat(100_000) },
    });
    expect(hugeHeaders.status).toBe(431);
    expect(hugeHeaders.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await hugeHeaders.json()) as { error: { code: string } }).error.code).toBe(
      'HEADERS_TOO_LARGE',
    );
    await service.stop();
  });

  it('says the cluster relay is off when no credentials are found', async () => {
    service = await startService();
    expect(service.output()).toContain('no cluster credentials found');
    await service.stop();
  });
});
