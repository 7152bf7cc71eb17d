import { isOptionError } from '@resourceful/option-checks';
import { thrownBy } from '@resourceful/test-support';
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  type ApiErrorInit,
  ERROR_CATALOGUE,
  isApiError,
  toApiError,
} from '../src/index.js';

describe('ApiError', () => {
  it('serialises to exactly one "error" key with code and message', () => {
    const error = new ApiError({ status: 400, code: 'INVALID_REQUEST', message: 'bad' });
    expect(JSON.parse(JSON.stringify(error))).toEqual({
      error: { code: 'INVALID_REQUEST', message: 'bad' },
    });
  });

  it('carries target, details and innererror into the envelope', () => {
    const error = new ApiError({
      status: 400,
      code: 'VALIDATION_ERROR',
      message: 'invalid',
      target: 'number',
      details: [{ code: 'VALIDATION_ERROR', message: 'too short', target: 'number' }],
      innererror: { code: 'CARD_NUMBER_TOO_SHORT', innererror: { code: 'LUHN' } },
    });
    expect(error.toJSON()).toEqual({
      error: {
        code: 'VALIDATION_ERROR',
        message: 'invalid',
        target: 'number',
        details: [{ code: 'VALIDATION_ERROR', message: 'too short', target: 'number' }],
        innererror: { code: 'CARD_NUMBER_TOO_SHORT', innererror: { code: 'LUHN' } },
      },
    });
  });

  it('never serialises the cause or the stack', () => {
    const error = ApiError.internal(undefined, { cause: new Error('db password is hunter2') });
    const text = JSON.stringify(error);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('stack');
  });

  it('refuses a status outside 400-599 with the coded error naming "status"', () => {
    for (const status of [200, 600, 404.5, Number.NaN]) {
      const error = thrownBy(() => new ApiError({ status, code: 'X', message: 'x' }));
      expect(error).toBeInstanceOf(TypeError);
      expect(error).toMatchObject({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        factory: 'ApiError',
        option: 'status',
      });
      expect(error.message).toBe(
        `ApiError: "status" must be an integer from 400 to 599, got ${status}.`,
      );
    }
  });

  it.each([
    [
      'a number code',
      { code: 400 },
      'code',
      'ApiError: "code" must be a non-empty string, got 400.',
    ],
    [
      'an empty code',
      { code: '' },
      'code',
      'ApiError: "code" must be a non-empty string, got the string "".',
    ],
    [
      'a missing code',
      { code: undefined },
      'code',
      'ApiError: "code" must be a non-empty string, got undefined.',
    ],
    [
      'a missing message',
      { message: undefined },
      'message',
      'ApiError: "message" must be a string, got undefined.',
    ],
    [
      'an object message',
      { message: { text: 'x' } },
      'message',
      'ApiError: "message" must be a string, got an object.',
    ],
    ['a number target', { target: 3 }, 'target', 'ApiError: "target" must be a string, got 3.'],
  ])('refuses %s with the coded error naming it', (_name, change, option, message) => {
    const init = { status: 400, code: 'INVALID_REQUEST', message: 'x', ...change } as ApiErrorInit;
    const error = thrownBy(() => new ApiError(init));
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option, message });
    expect(isOptionError(error)).toBe(true);
  });

  it('is an Error and is recognised by isApiError', () => {
    const error = ApiError.notFound();
    expect(error).toBeInstanceOf(Error);
    expect(isApiError(error)).toBe(true);
    expect(isApiError(new Error('x'))).toBe(false);
    expect(error.name).toBe('ApiError');
  });
});

describe('ApiError constructors', () => {
  const cases: [string, ApiError, number, string][] = [
    ['invalidRequest', ApiError.invalidRequest('x', { target: 'page' }), 400, 'INVALID_REQUEST'],
    ['malformedRequest', ApiError.malformedRequest(), 400, 'MALFORMED_REQUEST'],
    ['validation', ApiError.validation([]), 400, 'VALIDATION_ERROR'],
    ['readOnlyField', ApiError.readOnlyField('id'), 400, 'READ_ONLY_FIELD'],
    ['unauthenticated', ApiError.unauthenticated(), 401, 'UNAUTHENTICATED'],
    ['notFound', ApiError.notFound(), 404, 'NOT_FOUND'],
    ['methodNotAllowed', ApiError.methodNotAllowed(['GET']), 405, 'METHOD_NOT_ALLOWED'],
    ['conflict', ApiError.conflict('x'), 409, 'CONFLICT'],
    ['preconditionFailed', ApiError.preconditionFailed(), 412, 'PRECONDITION_FAILED'],
    ['payloadTooLarge', ApiError.payloadTooLarge(), 413, 'PAYLOAD_TOO_LARGE'],
    ['uriTooLong', ApiError.uriTooLong(), 414, 'URI_TOO_LONG'],
    ['unsupportedMediaType', ApiError.unsupportedMediaType(), 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['unprocessable', ApiError.unprocessable('x'), 422, 'UNPROCESSABLE_ENTITY'],
    ['preconditionRequired', ApiError.preconditionRequired(), 428, 'PRECONDITION_REQUIRED'],
    ['tooManyRequests', ApiError.tooManyRequests(), 429, 'TOO_MANY_REQUESTS'],
    ['internal', ApiError.internal(), 500, 'INTERNAL_SERVER_ERROR'],
    ['upstream', ApiError.upstream('x'), 502, 'UPSTREAM_ERROR'],
    ['upstream timeout', ApiError.upstream('x', { timeout: true }), 504, 'UPSTREAM_ERROR'],
    ['serviceUnavailable', ApiError.serviceUnavailable(), 503, 'SERVICE_UNAVAILABLE'],
  ];

  it.each(cases)('%s answers %i with its catalogue code', (_name, error, status, code) => {
    expect(error.status).toBe(status);
    expect(error.code).toBe(code);
    expect(Object.keys(ERROR_CATALOGUE)).toContain(code);
  });

  it('puts retryAfter seconds into the Retry-After header, rounded up', () => {
    expect(ApiError.serviceUnavailable('down', { retryAfter: 1.2 }).headers).toEqual({
      'Retry-After': '2',
    });
  });

  it('puts a retryAfter date into Retry-After as an HTTP date', () => {
    const when = new Date('2030-01-02T03:04:05Z');
    expect(ApiError.tooManyRequests(undefined, { retryAfter: when }).headers['Retry-After']).toBe(
      'Wed, 02 Jan 2030 03:04:05 GMT',
    );
  });

  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['an invalid date', new Date('soon')],
  ])('leaves Retry-After out for %s, which has no valid header form', (_what, retryAfter) => {
    const error = ApiError.serviceUnavailable('down', { retryAfter, headers: { Link: '</s>' } });
    expect(error.headers).toEqual({ Link: '</s>' });
  });

  it('writes a huge retryAfter as digits and a negative one as 0', () => {
    expect(ApiError.tooManyRequests(undefined, { retryAfter: 1e22 }).headers['Retry-After']).toBe(
      String(Number.MAX_SAFE_INTEGER),
    );
    expect(ApiError.tooManyRequests(undefined, { retryAfter: -5 }).headers['Retry-After']).toBe(
      '0',
    );
  });

  it('sends Allow with methodNotAllowed', () => {
    expect(ApiError.methodNotAllowed(['GET', 'HEAD']).headers).toEqual({ Allow: 'GET, HEAD' });
  });

  it('uses the target of a single validation detail as the top-level target', () => {
    const error = ApiError.validation([{ code: 'VALIDATION_ERROR', message: 'm', target: 'a' }]);
    expect(error.target).toBe('a');
    expect(error.message).toBe('The request failed validation (1 problem).');
  });

  it('marks 429 and throttling 503s as throttling, other errors not', () => {
    expect(ApiError.tooManyRequests().throttling).toBe(true);
    expect(ApiError.serviceUnavailable('busy', { throttling: true }).throttling).toBe(true);
    expect(ApiError.serviceUnavailable().throttling).toBe(false);
    expect(ApiError.internal().throttling).toBe(false);
  });
});

describe('isApiError across copies of the package', () => {
  it('recognises an ApiError built by another copy (dual-package hazard)', () => {
    const foreign = Object.assign(new Error('from the other build'), {
      [Symbol.for('@resourceful/error-envelope.ApiError')]: true,
      status: 409,
      code: 'CONFLICT',
    });
    expect(isApiError(foreign)).toBe(true);
    expect(isApiError({ status: 409, code: 'CONFLICT' })).toBe(false);
  });
});

describe('toApiError of a body over the reader limit (entity.too.large)', () => {
  const tooLarge = (fields: Record<string, unknown>) =>
    toApiError(
      Object.assign(new Error('request entity too large'), {
        status: 413,
        type: 'entity.too.large',
        ...fields,
      }),
    );

  it('names the limit raw-body reports, whether the length was declared or streamed', () => {
    for (const fields of [
      { limit: 102400, length: 200000, expected: 200000 },
      { limit: 102400, received: 102401 },
    ]) {
      expect(tooLarge(fields).toJSON()).toEqual({
        error: {
          code: 'PAYLOAD_TOO_LARGE',
          message: 'The request body is larger than 102400 bytes.',
          innererror: { code: 'BODY_TOO_LARGE', max_bytes: 102400 },
        },
      });
    }
  });

  it('keeps the catalogue message when the error carries no usable limit', () => {
    for (const limit of [undefined, '100kb', Number.NaN, -1, 1.5]) {
      const error = tooLarge({ limit });
      expect(error.status).toBe(413);
      expect(error.message).toBe('The request body is too large.');
      expect(error.innererror).toBeUndefined();
    }
  });
});
