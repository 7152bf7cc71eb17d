/**
 * @module One hidden class for every Express response, on the engines where that pays.
 *
 * Express gives every response its app's prototype (`Object.setPrototypeOf(res, app.response)`)
 * and then adds `res.locals`. V8 before 13 records no transitions from the hidden class a
 * prototype change makes, so each response ends with a hidden class of its own, and every
 * property access on it afterwards (Express's `res.json` and `res.send`, Node's `writeHead`,
 * `_storeHeader` and `end`) meets a class its inline cache has never seen and takes the slowest
 * lookup. Deleting a property of such a response turns its properties into a dictionary, whose
 * hidden class every such response shares, and the accesses hit the caches again
 * (bench/findings/fifth-pass-content-negotiation.md: the 20-card route with content negotiation
 * counted 1 022k instructions per request without this, 864k with it, bare Express 989k; the
 * idempotency package's fourth pass found the same for its responses). Where the response was
 * made without a prototype change (Node's server alone, or an app whose responses are built on
 * its `app.response` already), V8 undoes the addition instead and the response keeps its fast
 * properties. Either way no property, value, attribute or key order changes.
 */

/**
 * Whether the dictionary pays on this engine: V8 13 (Node 24) keeps the transitions this works
 * around, and there the dictionary's lookups cost more than the hidden classes they avoid (the
 * idempotency package's measurement, bench/findings/service-request-idempotency.md). Only speed depends on it.
 */
const DICTIONARY_PAYS = Number(process.versions.v8.split('.')[0]) < 13;

/** A key no other code uses: added to a response and deleted at once. */
const SHAPE_PROBE = Symbol('resourceful.application-hooks.shapeProbe');

/** Gives `res` the hidden class every Express response shares (see the module comment). */
export function shareResponseShape(res: object): void {
  if (!DICTIONARY_PAYS) return;
  const own = res as Record<symbol, unknown>;
  own[SHAPE_PROBE] = undefined;
  delete own[SHAPE_PROBE];
}
