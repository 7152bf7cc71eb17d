/**
 * @module One hidden class for every Express request and response, on the V8 versions where that
 * pays.
 *
 * Express gives every request and response its app's prototype on every request
 * (`Object.setPrototypeOf`) and then adds properties to them (`req.next`, `req.baseUrl`,
 * `res.locals`, later `req.params`, `req.route`, …). V8 records no transitions from the hidden
 * class a prototype change makes, so each property added after it builds a hidden class for that
 * one object, and every later property access on it, in Express's router and `res.json`, in
 * Node's `setHeader`, `writeHead` and `end`, meets a class its inline cache has never seen and
 * takes the slowest lookup (about 2 000 instructions a miss, well over a hundred misses per
 * request on Node 20: bench/README.md, "http-conventions: hot path, fourth pass"). Deleting a
 * property of such an object turns its properties into a dictionary, whose hidden class every
 * such object shares: the properties added later need no new class, and the accesses hit the
 * inline caches again. Only objects whose prototype is an app's are touched (a message of
 * Node's server without Express keeps its fast properties and shared class; an app served with
 * its own message classes, as examples/payments-api is, already has dictionary properties by
 * then). No property, value, attribute or key order changes (test/shared-shape.test.ts).
 */

/**
 * Whether the dictionary pays on this engine: V8 13 (Node 24) keeps the transitions that the
 * probe works around, and there the dictionary's lookups cost more than the classes they avoid
 * (service-request-idempotency's response; here, `httpConventions()` on Node 24 counted 354k
 * instructions per request with the probe against 319k without: bench/findings/
 * http-conventions.md, the fifth pass). Only speed depends on it, never behaviour.
 */
export const DICTIONARY_PAYS = Number(process.versions.v8.split('.')[0]) < 13;

/** A key no other code uses: added and deleted at once. */
const SHAPE_PROBE = Symbol('@resourceful/http-conventions.shape-probe');

/**
 * Gives `target` the hidden class every Express request (or response) then shares; leaves alone
 * an object whose prototype is not an Express app's `app.request`/`app.response` (each has its
 * own `app`): a message of Node's server without Express keeps its fast properties (V8 11 rolls
 * the probe back, V8 12 would turn them into a dictionary).
 */
export function shareShape(target: object): void {
  if (!DICTIONARY_PAYS) return;
  const proto = Object.getPrototypeOf(target) as object | null;
  if (proto === null || !Object.hasOwn(proto, 'app')) return;
  const own = target as Record<symbol, unknown>;
  own[SHAPE_PROBE] = undefined;
  delete own[SHAPE_PROBE];
}

/** `shareShape` of the request and the response a middleware of this package is given. */
export function shareShapes(req: object, res: object): void {
  if (!DICTIONARY_PAYS) return;
  shareShape(req);
  shareShape(res);
}
