import { expect, it } from 'vitest';

it('exports exactly the documented names', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'DEFAULT_LOCK_TTL_MS',
    'DEFAULT_MAX_BODY_BYTES',
    'DEFAULT_MAX_ID_LENGTH',
    'DEFAULT_OPTIONS',
    'DEFAULT_REDIS_PREFIX',
    'DEFAULT_REPLAY_HEADERS',
    'DEFAULT_TTL_MS',
    'IDEMPOTENCY_ERROR_CAUSES',
    'IDEMPOTENCY_KEY_HEADER',
    'ID_PATTERN',
    'LockLostError',
    'NEVER_REPLAYED_HEADERS',
    'REPLAYED_HEADER',
    'RedisStoreUnavailableError',
    'SERVICE_REQUEST_ID_HEADER',
    'authorizationPrincipal',
    'isRetryableStatus',
    'memoryStore',
    'parseRequestId',
    'readRequestId',
    'redisStore',
    'requestFingerprint',
    'scopedKey',
    'serviceRequestIdempotency',
  ]);
});
