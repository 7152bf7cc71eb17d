import { describe, expect, it } from 'vitest';
import {
  acceptsConnections,
  hasRedisServer,
  type RedisClient,
  useRedisServer,
} from '../src/index.js';

describe.skipIf(!hasRedisServer())('useRedisServer', () => {
  /** What the suite below saw, checked once its afterAll has run. */
  const seen: { port?: number; clients: RedisClient[] } = { clients: [] };

  describe('a suite using it', () => {
    const redis = useRedisServer();
    let early: unknown;
    try {
      redis.server;
    } catch (error) {
      early = error;
    }

    it('has no server to read before its beforeAll', () => {
      expect(early).toBeInstanceOf(Error);
      expect((early as Error).message).toMatch(/starts in beforeAll/);
    });

    it('serves its tests a running redis-server and clients of it', async () => {
      const connected = await redis.clients.connect();
      const created = redis.clients.create();
      await created.connect();
      expect(await connected.ping()).toBe('PONG');
      expect(await created.ping()).toBe('PONG');
      expect(redis.server.url).toBe(`redis://127.0.0.1:${redis.server.port}`);
      seen.port = redis.server.port;
      seen.clients.push(...redis.clients.all());
    });
  });

  it("destroys the suite's clients and closes its server after the suite", async () => {
    expect(seen.clients).toHaveLength(2);
    for (const client of seen.clients) expect(client.isOpen).toBe(false);
    expect(await acceptsConnections(seen.port!)).toBe(false);
  });
});
