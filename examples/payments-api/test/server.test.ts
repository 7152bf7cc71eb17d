import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { waitFor } from '@resourceful/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { databaseFromEnvironment } from '../src/database/app-database.js';
import { idempotencyFromEnvironment } from '../src/redis-idempotency.js';
import { runUntilExit, type ServiceProcess, startService } from './service-process.js';

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

  it('finishes a request in flight at SIGTERM and exits 0 without waiting out keep-alive', async () => {
    service = await startService();
    const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
    let received = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => {
      received += chunk;
    });
    const body = '{}';
    // Expect: 100-continue tells us the server has the request before the body is sent.
    socket.write(
      'POST /v1/vault/credit-cards HTTP/1.1\r\nHost: 127.0.0.1\r\n' +
        `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n` +
        'Expect: 100-continue\r\n\r\n',
    );
    await waitFor(() => received.includes('100 Continue'), { what: '100 Continue' });
    const exited = service.stop();
    const current = service;
    await waitFor(() => current.output().includes('SIGTERM received'), { what: 'the shutdown' });
    socket.write(body);
    await waitFor(() => /\r\n\r\n\{/.test(received.split('100 Continue')[1] ?? ''), {
      what: 'the answer',
    });
    // The client keeps its connection open; the keep-alive timeout (65 s) outlasts the
    // shutdown's 10 s bound, so the service must close the connection once it is idle.
    expect(await exited).toBe(0);
    socket.destroy();
  }, 30_000);

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
    // A child process and three large requests: more than vitest's 5 s on a loaded machine.
  }, 30_000);

  it('says the cluster relay is off when no credentials are found', async () => {
    service = await startService();
    expect(service.output()).toContain('no cluster credentials found');
    await service.stop();
  });

  describe('a configuration it cannot run with', () => {
    it.each([
      ['PORT', 'abc'],
      ['PORT', '99999'],
      ['PUBLIC_BASE_URL', 'not-a-url'],
      ['PAGE_TOKEN_SECRETS', 'short'],
      ['REDIS_URL', 'http://127.0.0.1:6379'],
    ])(
      '%s=%s: exits 1 at start with one line naming the variable, no stack trace',
      async (name, value) => {
        const { code, output } = await runUntilExit({ PORT: '0', [name]: value });
        expect(code).toBe(1);
        expect(output).toMatch(new RegExp(`^${name}: .+$`, 'm'));
        expect(output).not.toMatch(/^\s+at /m);
        expect(output).not.toContain('listening');
      },
    );

    it('a PORT another process listens on: exits 1 with one line naming PORT, no stack trace', async () => {
      const taken = createServer();
      await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
      const { port } = taken.address() as AddressInfo;
      try {
        const { code, output } = await runUntilExit({ PORT: String(port) });
        expect(code).toBe(1);
        expect(output).toMatch(new RegExp(`^PORT: 127\\.0\\.0\\.1:${port} is in use.+$`, 'm'));
        expect(output).not.toMatch(/^\s+at /m);
      } finally {
        taken.close();
      }
    });
  });
});

describe('the variables read at start', () => {
  it.each([['127.0.0.1:5432/payments'], ['payments'], ['mysql://app@127.0.0.1:5432/payments']])(
    'DATABASE_URL=%s is refused with a message naming DATABASE_URL',
    (value) => {
      expect(() => databaseFromEnvironment({ DATABASE_URL: value })).toThrow(
        /^DATABASE_URL: must be a postgres:\/\/ or postgresql:\/\/ URL/,
      );
    },
  );

  it('never echoes the password of a DATABASE_URL it refuses', () => {
    expect(() => databaseFromEnvironment({ DATABASE_URL: 'mysql://app:hunter2@db/x' })).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('hunter2') }),
    );
  });

  it('names DATABASE_SCHEMA when the schema name is refused', () => {
    expect(() =>
      databaseFromEnvironment({
        DATABASE_URL: 'postgres://app@127.0.0.1:1/payments',
        DATABASE_SCHEMA: 'Bad-Schema',
      }),
    ).toThrow(/^DATABASE_SCHEMA: /);
  });

  it('warns when instances share a DATABASE_URL but each keeps its own Service-Request-Ids', () => {
    const warnings: string[] = [];
    const logger = { log() {}, warn: (line: string) => warnings.push(line), error() {} };
    idempotencyFromEnvironment({ DATABASE_URL: 'postgres://app@127.0.0.1:1/payments' }, logger);
    expect(warnings).toEqual([expect.stringMatching(/^idempotency store: memory, .*REDIS_URL/)]);
    warnings.length = 0;
    idempotencyFromEnvironment({}, logger);
    expect(warnings).toEqual([]);
  });

  it.each([['not a url'], ['http://127.0.0.1:6379'], ['rediss//127.0.0.1']])(
    'REDIS_URL=%s is refused with a message naming REDIS_URL, without the value',
    (value) => {
      const silent = { log() {}, warn() {}, error() {} };
      expect(() => idempotencyFromEnvironment({ REDIS_URL: value }, silent)).toThrow(
        /^REDIS_URL: must be a redis:\/\/ or rediss:\/\/ URL/,
      );
    },
  );
});
