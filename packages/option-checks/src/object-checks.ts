/**
 * @module Checks of the options object as a whole: that it is one, and that it names only known
 * options.
 */
import { closestName, describeValue } from './names.js';
import { OPTION_ERROR_CODES, optionError } from './option-error.js';

/** Throws (`ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT`) unless `options` is a plain options object. */
export function assertOptionsObject(factory: string, options: unknown): asserts options is object {
  // A Map, a Date, a RegExp, a Promise (an `await` forgotten), a boxed string: objects whose
  // properties are not options, which `Object.keys` would read as "none given".
  if (
    options === null ||
    typeof options !== 'object' ||
    Array.isArray(options) ||
    Object.prototype.toString.call(options) !== '[object Object]'
  ) {
    throw optionError(
      OPTION_ERROR_CODES.notAnObject,
      factory,
      `options must be an object, got ${describeValue(options)}.`,
    );
  }
}

/**
 * Throws (`ERR_RESOURCEFUL_UNKNOWN_OPTION`) naming an unknown option, and the known one it was
 * probably meant as.
 * @param parent where a nested options object sits (`versions.v1.deprecation`); its keys are
 *   then named `versions.v1.deprecation.dat`
 */
export function assertKnownOptions(
  factory: string,
  options: object,
  known: readonly string[],
  parent?: string,
): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const guess = closestName(key, known);
    const name = parent === undefined ? key : `${parent}.${key}`;
    const hint =
      guess === undefined
        ? ''
        : ` Did you mean "${parent === undefined ? guess : `${parent}.${guess}`}"?`;
    throw optionError(
      OPTION_ERROR_CODES.unknownOption,
      factory,
      `unknown option "${name}".${hint} Known options: ${known.join(', ')}.`,
      name,
    );
  }
}
