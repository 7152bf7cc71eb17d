/**
 * @module Per-request values kept off the request object. Express sets each request's and
 * response's prototype to its application's (`app.request`, `app.response`) on every request,
 * and V8 keeps no shape transitions from an object whose prototype was changed: every property
 * then added to it makes a new hidden class for that one object (a microsecond or more each on
 * Node 20). So a value is kept in an `objectSlot` (a `WeakMap`, or on Node 24 a private field:
 * nothing any reflection API sees) and read through an accessor defined once on the
 * application's prototype (the outermost one: Express chains a mounted sub-app's prototypes to
 * its parent's, so every app mounted with `app.use` sees it).
 */
import {
  type ApplicationPrototypeKind,
  objectSlot,
  outermostApplicationPrototype,
} from '@resourceful/application-hooks';

/**
 * A value per request (or response) under `key`: `store(target, value)` keeps it in a slot
 * read through the accessor, or, outside Express, where the object already has its
 * own `key`, or where another copy of this package owns the accessor, as an own property with
 * `descriptor`'s attributes (what the package always did). Reading `target[key]` gives the
 * value either way; assigning it makes an own property, as on any object.
 */
export function keptValue<T>(
  kind: ApplicationPrototypeKind,
  key: PropertyKey,
  descriptor: { enumerable: boolean; writable: boolean },
) {
  const values = objectSlot<T>();
  const exposedOn = new WeakMap<object, boolean>();

  function read(this: object): T | undefined {
    return values.get(this);
  }
  function write(this: object, value: unknown): void {
    Object.defineProperty(this, key, { value, configurable: true, ...descriptor });
  }

  function exposed(target: object): boolean {
    const proto = Object.getPrototypeOf(target) as object | null;
    if (proto === null) return false;
    let known = exposedOn.get(proto);
    if (known === undefined) {
      const root = outermostApplicationPrototype(target, kind);
      if (root === undefined) {
        known = false;
      } else {
        const existing = Object.getOwnPropertyDescriptor(root, key);
        if (existing === undefined) {
          Object.defineProperty(root, key, {
            get: read,
            set: write,
            enumerable: false,
            configurable: true,
          });
        }
        known = existing === undefined || existing.get === read;
      }
      exposedOn.set(proto, known);
    }
    return known;
  }

  return function store(target: object, value: T): void {
    if (!Object.hasOwn(target, key) && exposed(target)) values.set(target, value);
    else write.call(target, value);
  };
}
