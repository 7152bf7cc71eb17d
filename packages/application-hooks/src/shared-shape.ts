/**
 * @module One hidden class for every Express request and response, on the engines where that
 * pays.
 *
 * Express gives every request and response its app's prototype (`Object.setPrototypeOf`) and
 * then adds properties to them (`req.next`, `req.baseUrl`, `res.locals`, later `req.params`,
 * `req.route`, …). V8 before 13 records no transitions from the hidden class a prototype change
 * makes, so each property added after it builds a hidden class for that one object, and every
 * later property access on it (Express's router, `res.json` and `res.send`, Node's `setHeader`,
 * `writeHead`, `_storeHeader` and `end`) meets a class its inline cache has never seen and takes
 * the slowest lookup. Deleting a property of such an object turns its properties into a
 * dictionary, whose hidden class every such object shares, and the accesses hit the caches
 * again (bench/findings/: content negotiation's 20-card route counted 1 022k instructions per
 * request without this and 864k with it, bare Express 989k; `httpConventions()` on its 30-route
 * app 693k and 397k, bare 615k; the idempotency capture the same). Only objects whose prototype
 * is an app's are touched: on Node 22 a message of Node's server without Express would become a
 * dictionary too, where it had fast properties and a shared class. No property, value,
 * attribute or key order changes.
 */

/**
 * Whether the dictionary pays on this engine: V8 13 (Node 24) keeps the transitions this works
 * around, and there the dictionary's lookups cost more than the hidden classes they avoid
 * (`httpConventions()` counted 354k instructions per request with it against 319k without; the
 * idempotency create 8–18 % slower). Only speed depends on it, never behaviour.
 */
const DICTIONARY_PAYS = Number(process.versions.v8.split('.')[0]) < 13;

/** A key no other code uses: added and deleted at once. */
const SHAPE_PROBE = Symbol('resourceful.shapeProbe');

/**
 * Gives an Express request or response the hidden class every such object shares (see the
 * module comment); does nothing on V8 13 and later, or to an object whose prototype is not an
 * Express app's `request` / `response` (each has the app as an own `app` property).
 */
export function shareShape(target: object): void {
  if (!DICTIONARY_PAYS) return;
  const prototype = Object.getPrototypeOf(target) as object | null;
  if (prototype === null || !Object.hasOwn(prototype, 'app')) return;
  const own = target as Record<symbol, unknown>;
  own[SHAPE_PROBE] = undefined;
  delete own[SHAPE_PROBE];
}
