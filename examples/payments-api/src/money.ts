/**
 * @module Money as decimal strings in the currency's minor unit (ISO 4217): `"10.00"` USD,
 * `"1500"` JPY, `"1.250"` KWD. Arithmetic runs on integer counts of minor units (BigInt), never on
 * binary floating point, where `0.10 + 0.20` is `0.30000000000000004`.
 */
import { z } from 'zod';

/**
 * Minor-unit digits of the currencies the example accepts (ISO 4217). Others are refused
 * explicitly (400 naming `amount.currency`) rather than guessed at.
 */
export const CURRENCY_DIGITS: Readonly<Record<string, number>> = Object.freeze({
  USD: 2,
  EUR: 2,
  GBP: 2,
  CAD: 2,
  AUD: 2,
  CHF: 2,
  JPY: 0,
  KRW: 0,
  BHD: 3,
  JOD: 3,
  KWD: 3,
  OMR: 3,
  TND: 3,
});

export interface Money {
  /** Decimal string with exactly the currency's digits: `"10.00"`. */
  total: string;
  currency: string;
}

/** Well-formed decimal text: optional minus, at most 15 integer digits, at most 3 decimals. */
const DECIMAL = /^(-)?(\d{1,15})(?:\.(\d{1,3}))?$/;

export function currencyDigits(currency: string): number {
  const digits = CURRENCY_DIGITS[currency];
  if (digits === undefined) throw new RangeError(`Unsupported currency ${currency}.`);
  return digits;
}

/** The amount in minor units; `undefined` when the text has more decimals than the currency. */
export function toMinor(total: string, currency: string): bigint | undefined {
  const match = DECIMAL.exec(total);
  if (match === null) return undefined;
  const [, sign, whole, fraction = ''] = match;
  const digits = currencyDigits(currency);
  if (fraction.length > digits) return undefined;
  const minor = BigInt((whole as string) + fraction.padEnd(digits, '0'));
  return sign === '-' ? -minor : minor;
}

/** Minor units back to the currency's decimal text: `1050n` USD → `"10.50"`. */
export function fromMinor(minor: bigint, currency: string): string {
  const digits = currencyDigits(currency);
  const negative = minor < 0n;
  const text = (negative ? -minor : minor).toString().padStart(digits + 1, '0');
  const whole = digits === 0 ? text : text.slice(0, -digits);
  const fraction = digits === 0 ? '' : `.${text.slice(-digits)}`;
  return `${negative ? '-' : ''}${whole}${fraction}`;
}

export function money(minor: bigint, currency: string): Money {
  return { total: fromMinor(minor, currency), currency };
}

/**
 * An amount in a request: well-formed decimal text (a sign is allowed, so that a negative amount
 * is refused as a business rule, 422, not as malformed input) with no more decimals than its
 * currency has. The output is normalised: `"5.5"` USD becomes `"5.50"`.
 */
export const AmountInput = z
  .object({
    total: z
      .string()
      .max(20)
      .regex(DECIMAL, 'must be a decimal amount like "10.00" (at most 3 decimal places)'),
    currency: z.string().refine((code) => Object.hasOwn(CURRENCY_DIGITS, code), {
      message: `must be a supported ISO 4217 currency code (${Object.keys(CURRENCY_DIGITS).join(', ')})`,
    }),
  })
  .strict()
  .superRefine((amount, context) => {
    if (!Object.hasOwn(CURRENCY_DIGITS, amount.currency) || !DECIMAL.test(amount.total)) return;
    if (toMinor(amount.total, amount.currency) === undefined) {
      const digits = currencyDigits(amount.currency);
      context.addIssue({
        code: 'custom',
        path: ['total'],
        message: `${amount.currency} amounts have ${digits === 0 ? 'no' : `at most ${digits}`} decimal places`,
      });
    }
  })
  .transform((amount): Money & { minor: bigint } => {
    const minor = toMinor(amount.total, amount.currency) as bigint;
    return { total: fromMinor(minor, amount.currency), currency: amount.currency, minor };
  });
