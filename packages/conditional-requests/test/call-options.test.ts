import { describe, expect, it } from 'vitest';
import { etagFor, evaluatePreconditions, formatETag, generateETag } from '../src/index.js';

// The tag functions and evaluatePreconditions check their options on every call, as the
// factories do: `weak: 'no'` must not give a weak tag (which never satisfies If-Match), and
// `requireIfMatch: 'yes'` must not silently mean false.
const put = { method: 'PUT', headers: {} } as never;

describe('options of the tag functions', () => {
  describe.each([
    ['etagFor', (options: never) => etagFor({ a: 1 }, options)],
    ['generateETag', (options: never) => generateETag('body', options)],
    ['formatETag', (options: never) => formatETag(7, options)],
  ])('%s', (name, call) => {
    it.each(['no', 1, null])('refuses weak: %j, naming it', (weak) => {
      expect(() => call({ weak } as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_RESOURCEFUL_INVALID_OPTION',
          option: 'weak',
          message: expect.stringMatching(new RegExp(`^${name}: `)),
        }),
      );
    });

    it('refuses options that are not an object, and unknown members', () => {
      expect(() => call(null as never)).toThrow(
        expect.objectContaining({ code: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT' }),
      );
      expect(() => call({ waek: true } as never)).toThrow(
        expect.objectContaining({ code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION', option: 'waek' }),
      );
    });

    it('gives a strong tag without options and a weak one with weak: true', () => {
      expect(call(undefined as never)).toMatch(/^"/);
      expect(call({ weak: false } as never)).toMatch(/^"/);
      expect(call({ weak: true } as never)).toMatch(/^W\/"/);
    });
  });
});

describe('options of evaluatePreconditions', () => {
  it.each(['yes', 1, null])('refuses requireIfMatch: %j, naming it', (requireIfMatch) => {
    expect(() => evaluatePreconditions(put, '"a"', { requireIfMatch } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'requireIfMatch' }),
    );
  });

  it('refuses an unknown member', () => {
    expect(() => evaluatePreconditions(put, '"a"', { requireIfmatch: true } as never)).toThrow(
      expect.objectContaining({ code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION' }),
    );
  });

  it('answers 428 with requireIfMatch: true and proceeds without it', () => {
    expect(() => evaluatePreconditions(put, '"a"', { requireIfMatch: true })).toThrow(
      expect.objectContaining({ status: 428 }),
    );
    expect(evaluatePreconditions(put, '"a"')).toBe('proceed');
  });
});
