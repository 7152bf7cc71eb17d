/**
 * @module JSONP bodies: the callback a client names, checked strictly, and the script that
 * calls it with the JSON, guarded as Express's `res.jsonp` guards it.
 */
import { ApiError } from '@resourceful/error-envelope';

/** The query parameter naming the callback. */
export const JSONP_CALLBACK_PARAMETER = 'callback';
/** The longest callback name accepted. */
export const MAX_CALLBACK_LENGTH = 128;

/**
 * A JavaScript identifier path (`cb`, `jQuery3_1`, `app.handlers.onCard`): ASCII identifiers
 * joined by dots. No brackets, quotes or spaces, so the name can only ever be a function
 * reference, never code.
 */
const CALLBACK = /^[A-Za-z_$][A-Za-z0-9_$]*(?:\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

/**
 * The callback of a JSONP request.
 * @throws ApiError 400 `INVALID_REQUEST`, target `callback`, when it is missing, repeated, longer
 *   than 128 characters or not an identifier path
 */
export function parseCallback(values: readonly string[]): string {
  const [name] = values;
  if (
    values.length !== 1 ||
    name === undefined ||
    name.length > MAX_CALLBACK_LENGTH ||
    !CALLBACK.test(name)
  ) {
    throw ApiError.invalidRequest(
      `A JSONP answer needs one "${JSONP_CALLBACK_PARAMETER}" query parameter: a JavaScript identifier or dotted path of at most ${MAX_CALLBACK_LENGTH} characters.`,
      { target: JSONP_CALLBACK_PARAMETER },
    );
  }
  return name;
}

/**
 * The script calling `callback` with the JSON text. The leading empty comment stops a body
 * being read as something else when the callback is attacker-chosen (the Rosetta Flash attack);
 * `typeof … === 'function'` keeps a missing handler from throwing; U+2028 and U+2029, valid in
 * JSON strings but line terminators in older JavaScript, are escaped.
 */
export function jsonpBody(callback: string, json: string): string {
  const safe = json.replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
  return `/**/ typeof ${callback} === 'function' && ${callback}(${safe});`;
}
