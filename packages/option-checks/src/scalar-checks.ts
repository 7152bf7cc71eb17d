/**
 * @module Checks of string and duration options, each returning the value (or its default).
 * Every failure is an `OptionError` naming the option.
 */
import { invalidOption } from './value-checks.js';

/**
 * The longest delay Node's timers keep: a longer one fires after 1 ms (with a
 * `TimeoutOverflowWarning`), so a huge timeout would mean almost none.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/** A string option; `undefined` when absent. `nonEmpty` refuses `''`. */
export function stringOption(
  factory: string,
  option: string,
  value: unknown,
  { nonEmpty = false, expected }: { nonEmpty?: boolean; expected?: string } = {},
): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || (nonEmpty && value === '')) {
    invalidOption(
      factory,
      option,
      expected ?? (nonEmpty ? 'a non-empty string' : 'a string'),
      value,
    );
  }
  return value;
}

/**
 * A duration in milliseconds, or its default: a finite number from 0 (or above 0 with
 * `positive`) up to `MAX_TIMER_MS`.
 */
export function millisecondsOption(
  factory: string,
  option: string,
  value: unknown,
  fallback: number,
  { positive = false }: { positive?: boolean } = {},
): number {
  if (value === undefined) return fallback;
  if (
    typeof value !== 'number' ||
    Number.isNaN(value) ||
    value > MAX_TIMER_MS ||
    (positive ? value <= 0 : value < 0)
  ) {
    invalidOption(
      factory,
      option,
      `${positive ? 'a positive number' : '0 or a positive number'} of milliseconds up to ${MAX_TIMER_MS}`,
      value,
    );
  }
  return value;
}
