import { describe, expect, it } from 'vitest';
import {
  DEFAULT_OPTIONS,
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
