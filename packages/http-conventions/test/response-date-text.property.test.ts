/**
 * The `Date` text `responseDate()` writes, made from a text kept per second (and per
 * millisecond), against `Date`'s own formatting of every time: sequences of times that repeat a
 * millisecond, stay within a second, cross a second, go back in time, and reach the ends of
 * `Date`'s range (negative times, years before 1000 and after 9999, which `toISOString` writes
 * with six digits and a sign).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatImfFixdate, formatRfc3339 } from '../src/index.js';
import { dateTextCache } from '../src/response-date.js';

const SEED = 19;
const RUNS = Number(process.env.PROPERTY_RUNS ?? 400);
/** The range of a `Date` (ECMA-262 §21.4.1.22 TimeClip). */
const MAX_TIME = 8.64e15;

const anyTime = fc.integer({ min: -MAX_TIME, max: MAX_TIME });
/** A time and times near it: the same millisecond, the same second, the next ones, earlier. */
const times = fc
  .tuple(
    fc.oneof(
      anyTime,
      fc.integer({ min: Date.UTC(1969, 11, 31), max: Date.UTC(1970, 0, 2) }),
      fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
      fc.constantFrom(-MAX_TIME, MAX_TIME, 0, -1, 999, 1000, -1000, -1001),
    ),
    fc.array(fc.integer({ min: -2500, max: 2500 }), { maxLength: 12 }),
  )
  .map(([start, steps]) => {
    const list = [start];
    for (const step of steps) {
      const next = list.at(-1)! + step;
      if (next >= -MAX_TIME && next <= MAX_TIME) list.push(next);
    }
    return list;
  });

describe('the Date text', () => {
  for (const [format, reference] of [
    ['rfc3339', formatRfc3339],
    ['imf-fixdate', formatImfFixdate],
  ] as const) {
    it(`is ${reference.name}'s text of the time, for any sequence of times (${format})`, () => {
      fc.assert(
        fc.property(times, (list) => {
          const dateText = dateTextCache(format);
          for (const time of list) expect(dateText(time)).toBe(reference(new Date(time)));
        }),
        { seed: SEED, numRuns: RUNS },
      );
    });
  }

  it('gives each millisecond of a second its own text, and the next second its own', () => {
    const dateText = dateTextCache('rfc3339');
    const start = Date.UTC(2026, 10, 24, 10, 41, 59);
    for (let time = start; time < start + 2000; time++) {
      expect(dateText(time)).toBe(new Date(time).toISOString());
    }
    expect(dateText(start)).toBe('2026-11-24T10:41:59.000Z');
    expect(dateText(start + 1999)).toBe('2026-11-24T10:42:00.999Z');
  });
});
