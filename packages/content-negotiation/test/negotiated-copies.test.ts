import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { Negotiated } from '../src/index.js';

const NEGOTIATED = Symbol.for('@resourceful/content-negotiation.negotiated');

type NegotiatedModule = typeof import('../src/negotiated.js');

/** Another copy of the module (as a second install of the package, or its CommonJS build). */
async function copy(name: string): Promise<NegotiatedModule> {
  return (await import(/* @vite-ignore */ `../src/negotiated.js?${name}`)) as NegotiatedModule;
}

const json: Negotiated = {
  format: 'json',
  mediaType: 'application/json',
  charset: 'utf-8',
  language: 'fr',
  encoding: undefined,
  callback: undefined,
};

describe('the negotiated state shared by copies of the package', () => {
  it('reads in one copy what another wrote, the request keeping its own keys', async () => {
    const first = await copy('first');
    const second = await copy('second');
    const req = new IncomingMessage(new Socket());
    const keys = Reflect.ownKeys(req);
    first.setNegotiated(req, json);
    expect(second.getNegotiated(req)).toBe(json);
    expect(second.getLanguage(req)).toBe('fr');
    expect(first.languageUsed(req)).toBe(true);
    expect(Reflect.ownKeys(req)).toEqual(keys);
  });

  it('uses the WeakMap another copy, loaded first, left on globalThis', async () => {
    const shared = globalThis as { [NEGOTIATED]?: unknown };
    const before = shared[NEGOTIATED];
    const earlier = new WeakMap<object, Negotiated>();
    shared[NEGOTIATED] = earlier;
    try {
      const later = await copy('after-an-earlier-version');
      const written = new IncomingMessage(new Socket());
      later.setNegotiated(written, json);
      expect(earlier.get(written)).toBe(json);
      const read = new IncomingMessage(new Socket());
      earlier.set(read, json);
      expect(later.getNegotiated(read)).toBe(json);
    } finally {
      shared[NEGOTIATED] = before;
    }
  });

  it('lets code holding the shared WeakMap read what a copy wrote', async () => {
    const shared = globalThis as { [NEGOTIATED]?: { get(req: object): unknown } };
    const later = await copy('later');
    const req = new IncomingMessage(new Socket());
    later.setNegotiated(req, json);
    // Every copy, of any version, calls `get` on whatever it found there.
    expect(shared[NEGOTIATED]?.get(req)).toBe(json);
  });
});
