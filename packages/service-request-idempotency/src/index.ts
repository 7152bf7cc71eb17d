export {
  DEFAULT_LOCK_TTL_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_MAX_ID_LENGTH,
  DEFAULT_REPLAY_HEADERS,
  DEFAULT_TTL_MS,
  ID_PATTERN,
  IDEMPOTENCY_KEY_HEADER,
  NEVER_REPLAYED_HEADERS,
  REPLAYED_HEADER,
  SERVICE_REQUEST_ID_HEADER,
} from './constants.js';
export { IDEMPOTENCY_ERROR_CAUSES } from './errors.js';
export { type FingerprintRequest, requestFingerprint } from './fingerprint.js';
export { LockLostError } from './lock-renewal.js';
export { type MemoryStore, type MemoryStoreOptions, memoryStore } from './memory-store.js';
export { isRetryableStatus, serviceRequestIdempotency } from './middleware.js';
export {
  DEFAULT_OPTIONS,
  type IdempotentRequest,
  type ServiceRequestIdempotencyOptions,
} from './options.js';
export {
  DEFAULT_REDIS_PREFIX,
  type RedisClientLike,
  type RedisClusterLike,
  type RedisStoreOptions,
  RedisStoreUnavailableError,
  redisStore,
} from './redis-store.js';
export { parseRequestId, type RequestIdResult, readRequestId } from './request-id.js';
export { authorizationPrincipal, scopedKey } from './scope.js';
export type {
  AcquireResult,
  Completion,
  IdempotencyStore,
  LockRequest,
  StoredResponse,
  StoreEntry,
} from './types.js';
