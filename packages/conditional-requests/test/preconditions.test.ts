import type { IncomingMessage } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import { describe, expect, it } from 'vitest';
import { evaluatePreconditions, isSafeMethod } from '../src/index.js';

function req(method: string, headers: Record<string, string> = {}): IncomingMessage {
  return { method, headers } as IncomingMessage;
}

function failure(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

const CURRENT = '"v2"';

describe('evaluatePreconditions', () => {
  describe('If-Match (strong comparison)', () => {
    it.each(['"v2"', '"v1", "v2"', '*'])('proceeds when %s holds', (header) => {
      expect(evaluatePreconditions(req('PUT', { 'if-match': header }), CURRENT)).toBe('proceed');
    });

    it.each(['"v1"', 'W/"v2"'])('fails with 412 for %s', (header) => {
      const error = failure(() =>
        evaluatePreconditions(req('PUT', { 'if-match': header }), CURRENT),
      );
      expect([error.status, error.code, error.target]).toEqual([
        412,
        'PRECONDITION_FAILED',
        'If-Match',
      ]);
    });

    it('fails with 412 for "*" when the resource does not exist', () => {
      const error = failure(() =>
        evaluatePreconditions(req('PATCH', { 'if-match': '*' }), undefined),
      );
      expect(error.status).toBe(412);
    });

    it('is evaluated before If-None-Match', () => {
      const error = failure(() =>
        evaluatePreconditions(req('GET', { 'if-match': '"v1"', 'if-none-match': '"v2"' }), CURRENT),
      );
      expect(error.status).toBe(412);
    });

    it('never matches a weak current tag', () => {
      const error = failure(() =>
        evaluatePreconditions(req('PUT', { 'if-match': 'W/"v2"' }), 'W/"v2"'),
      );
      expect(error.status).toBe(412);
    });
  });

  describe('If-None-Match (weak comparison)', () => {
    it.each(['"v2"', 'W/"v2"', '"v1", W/"v2"', '*'])(
      'answers not-modified on GET for %s',
      (header) => {
        expect(evaluatePreconditions(req('GET', { 'if-none-match': header }), CURRENT)).toBe(
          'not-modified',
        );
        expect(evaluatePreconditions(req('HEAD', { 'if-none-match': header }), CURRENT)).toBe(
          'not-modified',
        );
      },
    );

    it('fails with 412 on an unsafe method when a tag matches', () => {
      const error = failure(() =>
        evaluatePreconditions(req('PATCH', { 'if-none-match': 'W/"v2"' }), CURRENT),
      );
      expect([error.status, error.target]).toEqual([412, 'If-None-Match']);
    });

    it('fails with 412 for "*" on an unsafe method when the resource exists', () => {
      expect(
        failure(() => evaluatePreconditions(req('PUT', { 'if-none-match': '*' }), CURRENT)).status,
      ).toBe(412);
    });

    it('proceeds for "*" when the resource does not exist', () => {
      expect(evaluatePreconditions(req('PUT', { 'if-none-match': '*' }), undefined)).toBe(
        'proceed',
      );
    });

    it('proceeds when no tag matches', () => {
      expect(evaluatePreconditions(req('GET', { 'if-none-match': '"v1"' }), CURRENT)).toBe(
        'proceed',
      );
    });
  });

  describe('requireIfMatch', () => {
    it('answers 428 for an unsafe request to an existing resource without If-Match', () => {
      const error = failure(() =>
        evaluatePreconditions(req('PATCH'), CURRENT, { requireIfMatch: true }),
      );
      expect([error.status, error.code]).toEqual([428, 'PRECONDITION_REQUIRED']);
    });

    it('lets a create (no current resource) through without If-Match', () => {
      expect(evaluatePreconditions(req('PUT'), undefined, { requireIfMatch: true })).toBe(
        'proceed',
      );
    });

    it('lets reads through without If-Match', () => {
      expect(evaluatePreconditions(req('GET'), CURRENT, { requireIfMatch: true })).toBe('proceed');
    });

    it('answers 412 rather than 428 when If-None-Match fails', () => {
      const error = failure(() =>
        evaluatePreconditions(req('PUT', { 'if-none-match': '*' }), CURRENT, {
          requireIfMatch: true,
        }),
      );
      expect(error.status).toBe(412);
    });
  });

  it('answers 400 for a malformed header', () => {
    const error = failure(() => evaluatePreconditions(req('PUT', { 'if-match': 'v2' }), CURRENT));
    expect([error.status, error.target]).toEqual([400, 'If-Match']);
  });

  it('proceeds without preconditions', () => {
    expect(evaluatePreconditions(req('DELETE'), CURRENT)).toBe('proceed');
    expect(evaluatePreconditions(req('DELETE'), undefined)).toBe('proceed');
  });

  it('refuses a current tag that is not an entity tag (a programming error)', () => {
    expect(() => evaluatePreconditions(req('GET'), 'v2')).toThrow(TypeError);
  });
});

describe('isSafeMethod', () => {
  it('knows the safe methods of RFC 9110 §9.2.1', () => {
    expect(['GET', 'head', 'OPTIONS', 'TRACE'].map(isSafeMethod)).toEqual([true, true, true, true]);
    expect(['POST', 'PUT', 'PATCH', 'DELETE'].map(isSafeMethod)).toEqual([
      false,
      false,
      false,
      false,
    ]);
  });
});
