import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OPTIONS,
  memoryStore,
  redisStore,
  type ServiceRequestIdempotencyOptions,
  serviceRequestIdempotency,
} from '../src/index.js';

describe('serviceRequestIdempotency options', () => {
  it.each([
    ['no options', undefined],
    ['an empty object', {}],
    ['options set to undefined', { header: undefined, ttlMs: undefined, store: undefined }],
  ])('accepts %s and returns a named middleware', (_title, options) => {
    const middleware = serviceRequestIdempotency(options);
    expect(middleware.name).toBe('serviceRequestIdempotencyMiddleware');
    expect(middleware).toHaveLength(3);
  });

  it('documents its defaults as data', () => {
    expect(DEFAULT_OPTIONS).toMatchObject({
      header: 'Service-Request-Id',
      aliases: ['Idempotency-Key'],
      query: true,
      required: false,
      methods: ['POST'],
      ttlMs: 86_400_000,
      lockTtlMs: 60_000,
      maxBodyBytes: 1_048_576,
      replayedHeader: 'Idempotent-Replayed',
      failOpen: false,
    });
  });

  it('does not mutate the options object', () => {
    const options = Object.freeze({ methods: Object.freeze(['post']), aliases: Object.freeze([]) });
    expect(() => serviceRequestIdempotency(options)).not.toThrow();
    expect(options.methods).toEqual(['post']);
  });

  it('suggests the closest name for a misspelt option', () => {
    expect(() =>
      serviceRequestIdempotency({ ttl: 5 } as unknown as ServiceRequestIdempotencyOptions),
    ).toThrow(/unknown option "ttl"\. Did you mean "ttlMs"\?/);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['an unknown option', { __self: 'x' }, /unknown option/],
    [
      'a header name with a space',
      { header: 'Service Request Id' },
      /"header" must be a header name/,
    ],
    ['a number as header', { header: 5 }, /"header"/],
    ['aliases that are not an array', { aliases: 'Idempotency-Key' }, /"aliases" must be an array/],
    ['a zero ttl', { ttlMs: 0 }, /"ttlMs" must be an integer of at least 1/],
    ['a fractional lock ttl', { lockTtlMs: 1.5 }, /"lockTtlMs"/],
    ['a string max body', { maxBodyBytes: '1mb' }, /"maxBodyBytes"/],
    ['a non-boolean required', { required: 'yes' }, /"required" must be true or false/],
    ['empty methods', { methods: [] }, /"methods" must be a non-empty array/],
    ['a bad method', { methods: ['PO ST'] }, /"methods" must hold method names/],
    ['a store without methods', { store: {} }, /"store" must implement/],
    ['a non-function principal', { principal: 'user' }, /"principal" must be a function/],
    ['fingerprint true', { fingerprint: true }, /"fingerprint" must be a function/],
    ['Set-Cookie in replayHeaders', { replayHeaders: ['Set-Cookie'] }, /may not include/],
    ['Date in replayHeaders', { replayHeaders: ['date'] }, /may not include/],
    ['a negative Retry-After', { retryAfterSeconds: -1 }, /"retryAfterSeconds"/],
    ['a non-function onStoreError', { onStoreError: 1 }, /"onStoreError"/],
  ])('refuses %s at construction', (_title, options, message) => {
    expect(() =>
      serviceRequestIdempotency(options as unknown as ServiceRequestIdempotencyOptions),
    ).toThrow(message);
  });

  it('refuses an array as the options', () => {
    expect(() =>
      serviceRequestIdempotency([] as unknown as ServiceRequestIdempotencyOptions),
    ).toThrow(/serviceRequestIdempotency: options must be an object, got an array/);
  });
});

/** Never connected: construction checks only look at the shape. */
const redisLike = { sendCommand: async () => null, isReady: false };
const clusterLike = { sendCommand: async () => null, isOpen: false };

describe('construction errors', () => {
  function thrown(build: () => unknown): { code?: string; option?: string; name?: string } {
    try {
      build();
    } catch (error) {
      return error as { code?: string; option?: string; name?: string };
    }
    throw new Error('did not throw');
  }

  it.each([
    [
      'an array as the options',
      () => serviceRequestIdempotency([] as never),
      'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
      undefined,
    ],
    [
      'an unknown option',
      () => serviceRequestIdempotency({ ttl: 1 } as never),
      'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      'ttl',
    ],
    [
      'a bad ttlMs',
      () => serviceRequestIdempotency({ ttlMs: 0 }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'ttlMs',
    ],
    [
      'a bad query flag',
      () => serviceRequestIdempotency({ query: 'yes' as never }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'query',
    ],
    [
      'a bad header',
      () => serviceRequestIdempotency({ header: 'a b' }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'header',
    ],
    [
      'a bad store',
      () => serviceRequestIdempotency({ store: {} as never }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'store',
    ],
    [
      'a bad memoryStore size',
      () => memoryStore({ maxEntries: 0 }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'maxEntries',
    ],
    [
      'a memoryStore clock that is not a function',
      () => memoryStore({ now: 1 as never }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'now',
    ],
    [
      'redisStore without a client',
      () => redisStore({}),
      'ERR_RESOURCEFUL_MISSING_OPTION',
      'client',
    ],
    [
      'redisStore with a client and a cluster',
      () => redisStore({ client: redisLike, cluster: clusterLike }),
      'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
      'client',
    ],
    [
      'a redisStore prefix with a brace',
      () => redisStore({ client: redisLike, prefix: 'a{b}' }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'prefix',
    ],
    [
      'a WAIT timeout over the command timeout',
      () => redisStore({ client: redisLike, replicas: 1, replicasTimeoutMs: 2000 }),
      'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
      'replicasTimeoutMs',
    ],
    [
      'a header refused in replayHeaders',
      () => serviceRequestIdempotency({ replayHeaders: ['Location', 'Set-Cookie'] }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'replayHeaders',
    ],
    [
      // A longer timer fires after 1 ms (TimeoutOverflowWarning): the store would re-arm its
      // deadline timer every millisecond while any command is in flight.
      'a command timeout longer than a Node timer can wait',
      () => redisStore({ client: redisLike, commandTimeoutMs: 2 ** 31 }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'commandTimeoutMs',
    ],
    [
      'a negative replica count',
      () => redisStore({ client: redisLike, replicas: -1 }),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'replicas',
    ],
  ])('gives %s a TypeError with a stable code naming the option', (_title, build, code, option) => {
    const error = thrown(build);
    expect(error).toBeInstanceOf(TypeError);
    expect(error.code).toBe(code);
    expect(error.option).toBe(option);
  });
});
