import { createHash } from 'node:crypto';
import { ApiError } from '@resourceful/error-envelope';
import { describe, expect, it } from 'vitest';
import {
  etagFor,
  formatETag,
  generateETag,
  MAX_LIST_ENTRIES,
  parseETag,
  parseETagList,
  strongMatch,
  weakMatch,
} from '../src/index.js';

describe('formatETag', () => {
  it('quotes a version as a strong tag', () => {
    expect(formatETag(7)).toBe('"7"');
    expect(formatETag('v1.2')).toBe('"v1.2"');
  });

  it('prefixes W/ for a weak tag', () => {
    expect(formatETag('abc', { weak: true })).toBe('W/"abc"');
  });

  it.each(['a"b', 'a b', 'tab\t', 'line\n', '\u0000'])(
    'refuses %j, which no tag can carry',
    (value) => {
      expect(() => formatETag(value)).toThrow(TypeError);
    },
  );
});

describe('generateETag and etagFor', () => {
  it('gives identical bodies the same strong tag and different bodies different tags', () => {
    expect(generateETag('{"a":1}')).toBe(generateETag(Buffer.from('{"a":1}')));
    expect(generateETag('{"a":1}')).not.toBe(generateETag('{"a":2}'));
    expect(generateETag('x')).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
  });

  it.each([
    ['an ASCII string', '{"a":1}'],
    ['the same bytes as a Buffer', Buffer.from('{"a":1}')],
    ['an empty string', ''],
    ['an empty Buffer', Buffer.alloc(0)],
    ['a string of multi-byte characters', '{"name":"Zoë 😀 東京"}'],
    ['a Uint8Array', new Uint8Array([0, 255, 128, 10])],
  ])('is the SHA-256 of the UTF-8 bytes in base64url for %s', (_name, body) => {
    const digest = createHash('sha256').update(body).digest('base64url');
    expect(generateETag(body)).toBe(`"${digest}"`);
    expect(generateETag(body, { weak: true })).toBe(`W/"${digest}"`);
  });

  it('tags a value by its JSON text', () => {
    expect(etagFor({ a: 1 })).toBe(generateETag('{"a":1}'));
    expect(etagFor({ a: 1 }, { weak: true })).toBe(`W/${generateETag('{"a":1}')}`);
  });
});

describe('parseETag', () => {
  it('reads strong and weak tags', () => {
    expect(parseETag('"abc"')).toEqual({ weak: false, opaque: 'abc' });
    expect(parseETag('W/"abc"')).toEqual({ weak: true, opaque: 'abc' });
    expect(parseETag('""')).toEqual({ weak: false, opaque: '' });
  });

  it.each(['abc', '"abc', 'w/"abc"', '"a"b"', '"a" x', 'W/ "a"'])(
    'returns undefined for %j',
    (value) => {
      expect(parseETag(value)).toBeUndefined();
    },
  );
});

describe('parseETagList', () => {
  it('returns undefined when the header is absent', () => {
    expect(parseETagList(undefined)).toBeUndefined();
  });

  it('reads "*" alone', () => {
    expect(parseETagList(' * ')).toBe('*');
  });

  it('reads a list with whitespace, empty elements and commas inside tags', () => {
    expect(parseETagList(' "a" ,, W/"b",\t"c,d" ,')).toEqual([
      { weak: false, opaque: 'a' },
      { weak: true, opaque: 'b' },
      { weak: false, opaque: 'c,d' },
    ]);
  });

  it('joins repeated header lines into one list', () => {
    expect(parseETagList(['"a"', '"b"'])).toEqual([
      { weak: false, opaque: 'a' },
      { weak: false, opaque: 'b' },
    ]);
  });

  it.each(['abc', '"a" "b"', '*, "a"', '"a", *', '', ' , ', '"unterminated', 'W/abc', '"a"x'])(
    'throws 400 INVALID_REQUEST naming the header for %j',
    (value) => {
      let error: unknown;
      try {
        parseETagList(value, 'If-None-Match');
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).target).toBe('If-None-Match');
    },
  );

  it('refuses more than MAX_LIST_ENTRIES tags, saying so', () => {
    const many = Array.from({ length: MAX_LIST_ENTRIES + 1 }, (_, i) => `"${i}"`).join(',');
    expect(() => parseETagList(many, 'If-None-Match')).toThrow(
      expect.objectContaining({
        status: 400,
        target: 'If-None-Match',
        message: expect.stringContaining(`more than ${MAX_LIST_ENTRIES} entity tags`),
      }),
    );
    expect(() => parseETagList(many)).toThrow(ApiError);
    expect(parseETagList(many.slice(0, many.lastIndexOf(',')))).toHaveLength(MAX_LIST_ENTRIES);
  });
});

describe('comparison (RFC 9110 §8.8.3.2)', () => {
  // The table of RFC 9110 §8.8.3.2.
  it.each([
    ['W/"1"', 'W/"1"', false, true],
    ['W/"1"', 'W/"2"', false, false],
    ['W/"1"', '"1"', false, true],
    ['"1"', '"1"', true, true],
  ])('%s vs %s: strong %s, weak %s', (a, b, strong, weak) => {
    expect(strongMatch(a, b)).toBe(strong);
    expect(weakMatch(a, b)).toBe(weak);
  });

  it('never matches a malformed tag', () => {
    expect(strongMatch('1', '1')).toBe(false);
    expect(weakMatch('1', '"1"')).toBe(false);
  });
});
