import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { objectSlot } from '../src/index.js';

/** Every own key of `target` with its descriptor, and whether it can still be extended. */
function reflected(target: object) {
  return {
    keys: Reflect.ownKeys(target),
    descriptors: Object.getOwnPropertyDescriptors(target),
    extensible: Object.isExtensible(target),
    json: JSON.stringify(target),
  };
}

// Node 20 and 22 run these against the WeakMap, Node 24 against the private field (the CI runs
// the suite on all three): the behaviour asserted is the same.
describe('objectSlot', () => {
  it('gives undefined for an object never given a value, and the value last set otherwise', () => {
    const slot = objectSlot<string>();
    const target = {};
    expect(slot.get(target)).toBeUndefined();
    slot.set(target, 'first');
    expect(slot.get(target)).toBe('first');
    slot.set(target, 'second');
    expect(slot.get(target)).toBe('second');
    expect(slot.get({})).toBeUndefined();
  });

  it('keeps each slot apart on the same object', () => {
    const one = objectSlot<number>();
    const other = objectSlot<number>();
    const target = {};
    one.set(target, 1);
    expect(other.get(target)).toBeUndefined();
    other.set(target, 2);
    expect([one.get(target), other.get(target)]).toEqual([1, 2]);
  });

  it('leaves every key, descriptor, extensibility and serialisation of the object as it was', () => {
    const slot = objectSlot<object>();
    const target = { a: 1, [Symbol('s')]: 2 };
    Object.defineProperty(target, 'hidden', { value: 3, enumerable: false });
    const before = reflected(target);
    slot.set(target, { kept: true });
    expect(reflected(target)).toEqual(before);
    expect(Reflect.ownKeys(target)).toEqual(before.keys);
    const copy = { ...target };
    // A copy gets the enumerable own keys, not the slot.
    expect(Reflect.ownKeys(copy)).toEqual(['a', ...Object.getOwnPropertySymbols(target)]);
    expect(slot.get(copy)).toBeUndefined();
  });

  it('keeps a value on frozen, sealed and non-extensible objects, set before or after', () => {
    for (const lock of [Object.freeze, Object.seal, Object.preventExtensions]) {
      const slot = objectSlot<string>();
      const lockedFirst = lock({ a: 1 });
      slot.set(lockedFirst, 'locked first');
      expect(slot.get(lockedFirst)).toBe('locked first');
      slot.set(lockedFirst, 'again');
      expect(slot.get(lockedFirst)).toBe('again');
      expect(Object.isExtensible(lockedFirst)).toBe(false);

      const lockedAfter = { a: 1 };
      slot.set(lockedAfter, 'before the lock');
      lock(lockedAfter);
      expect(slot.get(lockedAfter)).toBe('before the lock');
      slot.set(lockedAfter, 'after the lock');
      expect(slot.get(lockedAfter)).toBe('after the lock');
      expect(Reflect.ownKeys(lockedAfter)).toEqual(['a']);
    }
  });

  it('keeps the value on a proxy itself, calling none of its traps', () => {
    const slot = objectSlot<string>();
    const trapped: string[] = [];
    const proxy = new Proxy(
      {},
      new Proxy(
        {},
        {
          get(_handler, trap) {
            trapped.push(String(trap));
            return undefined;
          },
        },
      ),
    );
    slot.set(proxy, 'on the proxy');
    expect(slot.get(proxy)).toBe('on the proxy');
    expect(trapped).toEqual([]);
  });

  it("does not see another object's value through its prototype", () => {
    const slot = objectSlot<string>();
    const parent = {};
    slot.set(parent, 'parent');
    const child = Object.create(parent) as object;
    expect(slot.get(child)).toBeUndefined();
    slot.set(child, 'child');
    expect([slot.get(parent), slot.get(child)]).toEqual(['parent', 'child']);
  });

  it("keeps a value on Node's own request and response, their keys unchanged", () => {
    const slot = objectSlot<string>();
    const req = new IncomingMessage(new Socket());
    const res = new ServerResponse(req);
    const before = [Reflect.ownKeys(req), Reflect.ownKeys(res)];
    slot.set(req, 'request');
    slot.set(res, 'response');
    expect([slot.get(req), slot.get(res)]).toEqual(['request', 'response']);
    expect([Reflect.ownKeys(req), Reflect.ownKeys(res)]).toEqual(before);
  });
});

describeEachExpress('objectSlot on Express messages', (express) => {
  it('keeps a value per request and response across the app, their own keys unchanged', async () => {
    const slot = objectSlot<string>();
    const app = express();
    const seen: unknown[] = [];
    app.use(function keep(req, res, next) {
      const keys = [Reflect.ownKeys(req), Reflect.ownKeys(res)];
      slot.set(req, `request ${req.path}`);
      slot.set(res, `response ${req.path}`);
      seen.push([Reflect.ownKeys(req), Reflect.ownKeys(res)], keys);
      next();
    });
    app.get('/:name', (req, res) => {
      res.json([slot.get(req), slot.get(res)]);
    });
    const first = await request(app).get('/one');
    const second = await request(app).get('/two');
    expect(first.body).toEqual(['request /one', 'response /one']);
    expect(second.body).toEqual(['request /two', 'response /two']);
    expect(seen[0]).toEqual(seen[1]);
    expect(seen[2]).toEqual(seen[3]);
  });
});
