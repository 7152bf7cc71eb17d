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

  it('says the cluster relay is off when no credentials are found', async () => {
    service = await startService();
    expect(service.output()).toContain('no cluster credentials found');
    await service.stop();
  });
});
