import { describe, expect, it } from 'vitest';
import { ApiError, parseErrorBody, readErrorResponse } from '../src/index.js';

describe('parseErrorBody', () => {
  it('reads an envelope written by ApiError', () => {
    const error = ApiError.validation([{ code: 'VALIDATION_ERROR', message: 'm', target: 'a' }]);
    expect(parseErrorBody(JSON.stringify(error))).toEqual({
      code: 'VALIDATION_ERROR',
      message: 'The request failed validation (1 problem).',
      target: 'a',
      details: [{ code: 'VALIDATION_ERROR', message: 'm', target: 'a' }],
    });
  });

  it('ignores unknown fields and key order', () => {
    const body = {
      trace: 'abc',
      error: {
        severity: 'high',
        details: [{ target: 't', extra: 1, message: 'dm', code: 'DC' }, { bogus: true }],
        message: 'm',
        code: 'C',
      },
    };
    expect(parseErrorBody(body)).toEqual({
      code: 'C',
      message: 'm',
      details: [{ code: 'DC', message: 'dm', target: 't' }],
    });
  });

  it('returns undefined for anything that is not an envelope', () => {
    for (const input of [
      'not json',
      '[]',
      'null',
      '{"error":"text"}',
      '{"error":{"code":1,"message":"m"}}',
      { error: { code: 'C' } },
      42,
      undefined,
    ]) {
      expect(parseErrorBody(input)).toBeUndefined();
    }
  });

  it('keeps innererror as sent', () => {
    const parsed = parseErrorBody({
      error: { code: 'C', message: 'm', innererror: { code: 'X', innererror: { code: 'Y' } } },
    });
    expect(parsed?.innererror).toEqual({ code: 'X', innererror: { code: 'Y' } });
  });
});

describe('readErrorResponse', () => {
  it('reads a fetch Response with its status', async () => {
    const response = new Response(JSON.stringify(ApiError.notFound('gone')), { status: 404 });
    expect(await readErrorResponse(response)).toEqual({
      status: 404,
      code: 'NOT_FOUND',
      message: 'gone',
      details: [],
    });
  });

  it('returns undefined for a success', async () => {
    expect(await readErrorResponse(new Response('{}', { status: 200 }))).toBeUndefined();
  });
});
