/**
 * @module The middleware: puts the parsed preferences on `req.preferences`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { outermostApplicationPrototype, shareShape } from '@resourceful/application-hooks';
import {
  type GetPreferencesOptions,
  getPreferences,
  preferHeaderSaw,
  type ResolvedPreferencesOptions,
  resolvePreferencesOptions,
  seenByPreferHeader,
} from './get-preferences.js';
import type { Preferences } from './parse-prefer.js';

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

/** Checks the options and resolves the defaults; throws a TypeError that says how to fix them. */
export function resolvePreferHeaderOptions(options: unknown): ResolvedPreferencesOptions {
  return resolvePreferencesOptions('preferHeader', options);
}

type RequestWithPreferences = IncomingMessage & { preferences?: Preferences };

/** `req.preferences` where the middleware ran: its preferences, parsed on first read. */
function readPreferences(this: IncomingMessage): Preferences | undefined {
  return seenByPreferHeader(this) ? getPreferences(this) : undefined;
}

/** An assignment makes the request's own property, as on any other request object. */
function writePreferences(this: IncomingMessage, value: unknown): void {
  Object.defineProperty(this, 'preferences', {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  });
}

/** Per request prototype: whether `req.preferences` is this package's accessor there. */
const exposedOn = new WeakMap<object, boolean>();

/**
 * Express gives each request its application's prototype, so V8 gives every request object a
 * shape of its own, and a property added to one costs a new shape (about a microsecond per
 * request, more than the parse). `req.preferences` is therefore an accessor defined once on the
 * application's request prototype, which every app mounted in it inherits; it returns the
 * preferences of the requests the middleware saw, and an assignment still makes an own property.
 * Outside Express, or where another copy of this package already owns the accessor, the
 * middleware sets an own property as before.
 */
function exposedThroughPrototype(req: IncomingMessage): boolean {
  const proto = Object.getPrototypeOf(req) as object | null;
  if (proto === null) return false;
  let exposed = exposedOn.get(proto);
  if (exposed === undefined) {
    const root = outermostApplicationPrototype(req, 'request');
    if (root === undefined) {
      exposed = false;
    } else {
      const existing = Object.getOwnPropertyDescriptor(root, 'preferences');
      if (existing === undefined) {
        Object.defineProperty(root, 'preferences', {
          get: readPreferences,
          set: writePreferences,
          enumerable: false,
          configurable: true,
        });
      }
      exposed = existing === undefined || existing.get === readPreferences;
    }
    exposedOn.set(proto, exposed);
  }
  return exposed;
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
    // Express re-prototypes every request, which leaves it a hidden class of its own on V8
    // before 13: each read below (and every later one, Express's router's included) would miss
    // V8's caches. The probe gives it the shape every such request shares (application-hooks).
    shareShape(req);
    preferHeaderSaw(req, resolved);
    // An own property (set before, or outside Express) is overwritten, as it always was.
    if (Object.hasOwn(req, 'preferences') || !exposedThroughPrototype(req)) {
      (req as RequestWithPreferences).preferences = getPreferences(req, resolved);
    }
    next();
  };
}
