import { describe, expect, it } from 'vitest';
import { MAX_TIMER_MS, millisecondsOption, stringOption } from '../src/index.js';

const invalid = (option: string) =>
  expect.objectContaining({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option, factory: 'f' });

describe('stringOption', () => {
  it('returns the string, or undefined when absent', () => {
    expect(stringOption('f', 'name', 'x')).toBe('x');
    expect(stringOption('f', 'name', '')).toBe('');
    expect(stringOption('f', 'name', undefined)).toBeUndefined();
  });

  it.each([[5], [null], [{}], [[]], [true]])('refuses %j, naming the option', (value) => {
    expect(() => stringOption('f', 'name', value)).toThrow(invalid('name'));
    expect(() => stringOption('f', 'name', value)).toThrow(/"name" must be a string/);
  });

  it('refuses the empty string when asked to', () => {
    expect(() => stringOption('f', 'name', '', { nonEmpty: true })).toThrow(
      /"name" must be a non-empty string, got the string ""/,
    );
  });
});

describe('millisecondsOption', () => {
  it('returns the value, or the default when absent', () => {
    expect(millisecondsOption('f', 'timeoutMs', 0, 5)).toBe(0);
    expect(millisecondsOption('f', 'timeoutMs', 1.5, 5)).toBe(1.5);
    expect(millisecondsOption('f', 'timeoutMs', MAX_TIMER_MS, 5)).toBe(MAX_TIMER_MS);
    expect(millisecondsOption('f', 'timeoutMs', undefined, 5)).toBe(5);
  });

  it.each([
    ['x'],
    [null],
    [-1],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [1e300],
    [MAX_TIMER_MS + 1],
  ])('refuses %j, which a timer cannot wait', (value) => {
    expect(() => millisecondsOption('f', 'timeoutMs', value, 5)).toThrow(invalid('timeoutMs'));
  });

  it('refuses 0 when the duration must be positive', () => {
    expect(() => millisecondsOption('f', 'refreshMs', 0, 5, { positive: true })).toThrow(
      /"refreshMs" must be a positive number of milliseconds up to 2147483647, got 0/,
    );
  });
});
