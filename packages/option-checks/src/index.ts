/**
 * @module Strict checks of a factory's options object, done once when the factory runs, with
 * errors that say how to fix the call ("did you mean").
 *
 * Every published package bundles this module into its build (see tsup.config.ts at the root),
 * so it is a dependency of none of them at run time.
 */

export { helpLinkOption } from './link-options.js';
export { closestName, describeValue, editDistance } from './names.js';
export { assertKnownOptions, assertOptionsObject } from './object-checks.js';
export {
  isOptionError,
  OPTION_ERROR_CODES,
  type OptionError,
  type OptionErrorCode,
  optionError,
} from './option-error.js';
export { MAX_TIMER_MS, millisecondsOption, stringOption } from './scalar-checks.js';
export {
  booleanOption,
  compareAndSetOption,
  functionOption,
  invalidOption,
  missingOption,
  oneOfOption,
  positiveIntegerOption,
  requiredFunctionOption,
} from './value-checks.js';
