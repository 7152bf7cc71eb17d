/**
 * @module A value kept per object without an own key: what a `WeakMap` does, in the form that
 * costs least on the engine at hand.
 *
 * Before V8 13 (Node 20, 22), a property added to an Express request or response after Express
 * changed its prototype builds a hidden class for that one object (see shared-shape.ts), so the
 * value goes into a `WeakMap`. From V8 13 on (Node 24) the property follows a shared transition,
 * while every `WeakMap` entry for a short-lived key is an insertion into an ephemeron table that
 * the scavenger then clears and the next insertion rehashes in place, walking a table as large
 * as the requests between two scavenges needed
 * (bench/findings/http-conventions.md, sixth pass). There the value is a private class field
 * stamped on the object (a base constructor returning the object it is given), which no
 * reflection API sees either (no own key, no descriptor, not copied) and which dies with it.
 * Only speed depends on the engine, never behaviour. Measured to pay for http-conventions'
 * request values; for `beforeHeaders`' hooks and content negotiation's state it measured dearer
 * (same findings), and they keep their `WeakMap`s.
 */

/** Whether a private field is the cheaper home (V8 13 and later; see the module comment). */
const FIELDS_PAY = Number(process.versions.v8.split('.')[0]) >= 13;

/** Keeps a value per object: `get` gives `undefined` for an object never given one. */
export interface ObjectSlot<T> {
  get(target: object): T | undefined;
  set(target: object, value: T): void;
}

/**
 * A base class whose constructor returns the object it is given, so that a subclass's private
 * field is installed on that object ("return override").
 */
class OnTarget {
  constructor(target: object) {
    // biome-ignore lint/correctness/noConstructorReturn: the return override is the point
    return target;
  }
}

/** A new slot: a private name of its own (on V8 13 and later) or a `WeakMap`. */
export function objectSlot<T>(): ObjectSlot<T> {
  // An object that cannot take a field keeps its value here.
  const values = new WeakMap<object, T>();
  if (!FIELDS_PAY) return values;

  class Slot extends OnTarget {
    #value: T | undefined;

    static get(target: object): T | undefined {
      return #value in target ? (target as Slot).#value : values.get(target);
    }

    static set(target: object, value: T): void {
      if (#value in target) {
        (target as Slot).#value = value;
        return;
      }
      try {
        new Slot(target).#value = value;
      } catch {
        // An engine that refuses private fields on non-extensible objects (a TC39 proposal);
        // `Object.isExtensible` is not asked instead, as it would call a proxy's trap.
        values.set(target, value);
      }
    }
  }
  return { get: Slot.get, set: Slot.set };
}
