/**
 * @module The error every factory throws when its options are wrong: a `TypeError` (as Node's
 * own argument checks throw) with a stable `code` to branch on and test against, and the name of
 * the option at fault. The message may be reworded; the codes are part of the public API.
 */

/**
 * Stable codes of construction errors, as express-rate-limit's `ERR_ERL_*` and Node's
 * `ERR_INVALID_ARG_*`: they never change meaning between versions.
 */
export const OPTION_ERROR_CODES = Object.freeze({
  /** The options argument is not a plain object (`null`, an array, a string …). */
  notAnObject: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
  /** An option name the factory does not know (a typo: the message says "Did you mean"). */
  unknownOption: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
  /** A required option is absent. */
  missingOption: 'ERR_RESOURCEFUL_MISSING_OPTION',
  /** An option has a value of the wrong type or out of range. */
  invalidOption: 'ERR_RESOURCEFUL_INVALID_OPTION',
  /** Two options, each valid alone, contradict each other (`defaultPageSize` over `maxPageSize`). */
  conflictingOptions: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
} as const);

export type OptionErrorCode = (typeof OPTION_ERROR_CODES)[keyof typeof OPTION_ERROR_CODES];

/** A construction error: `TypeError` with `code`, `factory` and, where one is at fault, `option`. */
export interface OptionError extends TypeError {
  readonly code: OptionErrorCode;
  /** The factory called, as named in the message: `paginate`, `jsonPatchUpdate`. */
  readonly factory: string;
  /** The option at fault (`maxPageSize`, `versions.v1.router`); absent for the whole object. */
  readonly option?: string;
}

/** Builds the construction error; the message reads `factory: message`. */
export function optionError(
  code: OptionErrorCode,
  factory: string,
  message: string,
  option?: string,
): OptionError {
  const error = new TypeError(`${factory}: ${message}`) as TypeError & {
    code: OptionErrorCode;
    factory: string;
    option?: string;
  };
  error.code = code;
  error.factory = factory;
  if (option !== undefined) error.option = option;
  return error;
}

/** Whether `error` is a construction error of any Resourceful factory. */
export function isOptionError(error: unknown): error is OptionError {
  return (
    error instanceof TypeError &&
    Object.values(OPTION_ERROR_CODES).includes(
      (error as { code?: unknown }).code as OptionErrorCode,
    )
  );
}
