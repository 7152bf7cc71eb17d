import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AmountInput, CURRENCY_DIGITS, fromMinor, toMinor } from '../src/money.js';

const currencies = Object.keys(CURRENCY_DIGITS);
const minorUnits = fc.bigInt({ min: -(10n ** 15n), max: 10n ** 15n });

describe('decimal money', () => {
  it('reads and writes each currency with its own decimal places', () => {
    expect(toMinor('10.50', 'USD')).toBe(1050n);
    expect(fromMinor(1050n, 'USD')).toBe('10.50');
    expect(fromMinor(5n, 'USD')).toBe('0.05');
    expect(fromMinor(-5n, 'USD')).toBe('-0.05');
    expect(toMinor('1500', 'JPY')).toBe(1500n);
    expect(fromMinor(1500n, 'JPY')).toBe('1500');
    expect(toMinor('1.250', 'KWD')).toBe(1250n);
    expect(fromMinor(1n, 'KWD')).toBe('0.001');
  });

  it('refuses more decimals than the currency has', () => {
    expect(toMinor('1.5', 'JPY')).toBeUndefined();
    expect(toMinor('1.001', 'USD')).toBeUndefined();
    expect(toMinor('1e3', 'USD')).toBeUndefined();
  });

  it('adds 0.10 and 0.20 to exactly 0.30', () => {
    expect(
      fromMinor((toMinor('0.10', 'USD') as bigint) + (toMinor('0.20', 'USD') as bigint), 'USD'),
    ).toBe('0.30');
    expect(0.1 + 0.2).not.toBe(0.3); // what binary floating point would have done
  });

  it('round-trips every amount of every currency (seeded, 500 runs)', () => {
    fc.assert(
      fc.property(minorUnits, fc.constantFrom(...currencies), (minor, currency) => {
        expect(toMinor(fromMinor(minor, currency), currency)).toBe(minor);
      }),
      { seed: 14, numRuns: 500 },
    );
  });

  it('sums decimal texts exactly (seeded, 200 runs)', () => {
    fc.assert(
      fc.property(
        fc.array(minorUnits, { maxLength: 20 }),
        fc.constantFrom(...currencies),
        (parts, currency) => {
          const total = parts
            .map((minor) => toMinor(fromMinor(minor, currency), currency) as bigint)
            .reduce((sum, minor) => sum + minor, 0n);
          expect(total).toBe(parts.reduce((sum, minor) => sum + minor, 0n));
        },
      ),
      { seed: 14, numRuns: 200 },
    );
  });

  it('normalises a request amount and names the field of a bad one', () => {
    expect(AmountInput.parse({ total: '5.5', currency: 'USD' })).toEqual({
      total: '5.50',
      currency: 'USD',
      minor: 550n,
    });
    const tooPrecise = AmountInput.safeParse({ total: '1.5', currency: 'JPY' });
    expect(tooPrecise.error?.issues.map((issue) => issue.path)).toEqual([['total']]);
    const unknown = AmountInput.safeParse({ total: '1.00', currency: 'XAU' });
    expect(unknown.error?.issues.map((issue) => issue.path)).toEqual([['currency']]);
  });
});
