import { describe, expect, it } from 'vitest';
import { DateTimeScalar, isRfc3339, JsonObjectScalar } from '../src/index.js';

describe('DateTime', () => {
  it.each([
    ['2026-11-23T10:00:00Z', true],
    ['2026-11-23t10:00:00z', true],
    ['2026-11-23T10:00:00.123456Z', true],
    ['2026-11-23T10:00:00+05:30', true],
    ['2026-04-31T10:00:00Z', false],
    ['2026-02-29T10:00:00Z', false],
    ['2028-02-29T10:00:00Z', true],
    ['2026-11-23 10:00:00Z', false],
    ['2026-11-23T10:00:00', false],
    ['2026-13-01T10:00:00Z', false],
    ['yesterday', false],
  ])('reads %s as %s', (value, valid) => {
    expect(isRfc3339(value)).toBe(valid);
  });

  it('sends stored timestamps as they are and dates in UTC', () => {
    expect(DateTimeScalar.serialize('2026-11-23T10:00:00Z')).toBe('2026-11-23T10:00:00Z');
    expect(DateTimeScalar.serialize(new Date(Date.UTC(2026, 10, 23, 10)))).toBe(
      '2026-11-23T10:00:00.000Z',
    );
  });

  it('refuses to send a value that is not a timestamp, rather than sending it wrong', () => {
    expect(() => DateTimeScalar.serialize('soon')).toThrow(/RFC 3339/);
    expect(() => DateTimeScalar.serialize(new Date(Number.NaN))).toThrow(/RFC 3339/);
  });
});

describe('JSONObject', () => {
  it('takes objects and refuses other values', () => {
    expect(JsonObjectScalar.parseValue({ a: 1 })).toEqual({ a: 1 });
    expect(() => JsonObjectScalar.parseValue([1])).toThrow(/objects/);
    expect(() => JsonObjectScalar.serialize('x')).toThrow(/objects/);
  });
});
