/**
 * @module The middleware: puts the parsed preferences on `req.preferences`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { assertKnownOptions, assertOptionsObject, invalidOption } from '@resourceful/option-checks';
import { type GetPreferencesOptions, getPreferences } from './get-preferences.js';
import { isValidMaxLength, type Preferences } from './parse-prefer.js';

declare global {
  // Express's request type lives in this global namespace (@types/express-serve-static-core).
  namespace Express {
    interface Request {
      /** The request's `Prefer` preferences, set by `preferHeader()`. */
      preferences?: Preferences;
    }
  }
}

export type PreferHeaderOptions = Readonly<GetPreferencesOptions>;

const KNOWN_OPTIONS = ['maxLength', 'queryParameter'] as const;

/** Checks the options and resolves the defaults; throws a TypeError that says how to fix them. */
export function resolvePreferHeaderOptions(options: unknown): GetPreferencesOptions {
  assertOptionsObject('preferHeader', options);
  assertKnownOptions('preferHeader', options, KNOWN_OPTIONS);
  const { maxLength, queryParameter } = options as GetPreferencesOptions;
  if (maxLength !== undefined && !isValidMaxLength(maxLength)) {
    invalidOption('preferHeader', 'maxLength', 'a positive integer (characters)', maxLength);
  }
  if (
    queryParameter !== undefined &&
    queryParameter !== false &&
    (typeof queryParameter !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(queryParameter))
  ) {
    invalidOption(
      'preferHeader',
      'queryParameter',
      'a parameter name such as "Prefer", or false',
      queryParameter,
    );
  }
  return { maxLength, queryParameter };
}

/**
 * Parses `Prefer` (or the `Prefer` query parameter when the header is absent) and sets
 * `req.preferences`. Never fails a request: malformed preferences are skipped.
 *
 * @example
 * app.use(preferHeader());
 * app.post('/v1/vault/credit-cards', (req, res) => { req.preferences?.return; });
 */
export function preferHeader(options: PreferHeaderOptions = {}) {
  const resolved = resolvePreferHeaderOptions(options);
  return function preferHeaderMiddleware(
    req: IncomingMessage,
    _res: ServerResponse,
    next: (err?: unknown) => void,
  ): void {
    (req as IncomingMessage & { preferences?: Preferences }).preferences = getPreferences(
      req,
      resolved,
    );
    next();
  };
}
