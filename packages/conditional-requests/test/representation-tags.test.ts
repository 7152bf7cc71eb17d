import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { ApiError, errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, waitFor } from '@resourceful/test-support';
import express5 from 'express';
import request from 'supertest';
import { describe, expect, it, vi } from 'vitest';
import {
  conditionalRequests,
  conditionalWrite,
  etagFor,
  evaluatePreconditions,
  formatETag,
  hasConditionalRequests,
  KeyedLock,
  representationETag,
  representationVariantOf,
  resourceETag,
  setRepresentationVariant,
} from '../src/index.js';

const CARD = { id: 'CARD-1', state: 'ok', amounts: [1, 2] };
const TAG = etagFor(CARD);

function req(method: string, headers: Record<string, string> = {}): IncomingMessage {
  return { method, headers } as IncomingMessage;
}

describe('representation tags (RFC 9110 §8.8.3)', () => {
  it.each([
    ['"abc"', ['xml'], '"abc~xml"'],
    ['"abc"', ['xml', 'gzip'], '"abc~xml~gzip"'],
    ['W/"abc"', ['gzip'], 'W/"abc~gzip"'],
    ['"abc"', [], '"abc"'],
    ['"abc~xml"', ['gzip'], '"abc~xml"'],
  ])('representationETag(%s, %j) is %s', (tag, variants, expected) => {
    expect(representationETag(tag, variants)).toBe(expected);
  });

  it.each([
    ['"abc~xml~gzip"', '"abc"'],
    ['W/"abc~gzip"', 'W/"abc"'],
    ['"abc"', '"abc"'],
  ])('resourceETag(%s) is %s', (tag, expected) => {
    expect(resourceETag(tag)).toBe(expected);
  });

  it('refuses a variant name that is not a token, and a value that is not a tag', () => {
    expect(() => representationETag('"abc"', ['x"y'])).toThrow(TypeError);
    expect(() => representationETag('abc', ['xml'])).toThrow(/not an entity tag/);
  });

  it('formatETag refuses the variant separator', () => {
    expect(() => formatETag('1~2')).toThrow(/~/);
  });

  describe('on a write, a representation tag names the resource version', () => {
    it.each(['"v2~xml"', '"v2~gzip"', '"v2~xml~br"', '"v1", "v2~latin1"'])(
      'If-Match %s holds against "v2"',
      (header) => {
        expect(evaluatePreconditions(req('PATCH', { 'if-match': header }), '"v2"')).toBe('proceed');
      },
    );

    it.each(['"v1~xml"', 'W/"v2~gzip"'])('If-Match %s fails against "v2"', (header) => {
      expect(() => evaluatePreconditions(req('PATCH', { 'if-match': header }), '"v2"')).toThrow(
        ApiError,
      );
    });

    // A tag the application made (conditionalWrite's `etag`, a route's version) may hold "~":
    // it is not a representation of some shorter tag, or every version would match every other.
    describe('against a current tag the application made with "~" in it', () => {
      it('If-Match of another version fails with 412', () => {
        expect(() =>
          evaluatePreconditions(req('PUT', { 'if-match': '"rev~6"' }), '"rev~7"'),
        ).toThrow(/has changed/);
      });

      it.each(['"rev~7"', '"rev~6", "rev~7"', '"rev~7~gzip"'])('If-Match %s holds', (header) => {
        expect(evaluatePreconditions(req('PUT', { 'if-match': header }), '"rev~7"')).toBe(
          'proceed',
        );
      });

      it('If-None-Match of another version lets the write proceed', () => {
        expect(evaluatePreconditions(req('PUT', { 'if-none-match': '"rev~6"' }), '"rev~7"')).toBe(
          'proceed',
        );
      });
    });

    it('If-None-Match of a representation tag refuses the write with 412', () => {
      expect(() =>
        evaluatePreconditions(req('PUT', { 'if-none-match': '"v2~gzip"' }), '"v2"'),
      ).toThrow(/still has that version/);
    });
  });

  describe('on a read, the tag must name the representation selected', () => {
    it.each([
      ['"v2~xml"', '"v2~xml"', 'not-modified'],
      ['"v2"', '"v2~xml"', 'proceed'],
      ['"v2~gzip"', '"v2"', 'proceed'],
    ])('If-None-Match %s against %s: %s', (header, current, outcome) => {
      expect(evaluatePreconditions(req('GET', { 'if-none-match': header }), current)).toBe(outcome);
    });
  });
});

describeEachExpress('tags computed from the value', (express) => {
  function app(settings: (app: ReturnType<typeof express>) => void = () => {}) {
    const app = express();
    settings(app);
    app.use(conditionalRequests());
    app.get('/card', (_req, res) => {
      res.json(CARD);
    });
    app.get('/xml-card', (_req, res) => {
      setRepresentationVariant(res, () => ['xml']);
      res.json(CARD);
    });
    app.use(errorHandler());
    return app;
  }

  it.each([
    ['json spaces 2', (a: ReturnType<typeof express>) => a.set('json spaces', 2)],
    ['json spaces "\\t"', (a: ReturnType<typeof express>) => a.set('json spaces', '\t')],
    [
      'a json replacer',
      (a: ReturnType<typeof express>) =>
        a.set('json replacer', (_k: string, v: unknown) => (typeof v === 'number' ? v * 10 : v)),
    ],
    ['json escape', (a: ReturnType<typeof express>) => a.set('json escape', true)],
  ])('sends etagFor(value) with %s', async (_title, settings) => {
    const res = await request(app(settings)).get('/card');
    expect(res.headers.etag).toBe(TAG);
    const again = await request(app(settings)).get('/card').set('If-None-Match', TAG);
    expect(again.status).toBe(304);
  });

  it('names the variant a later middleware registered', async () => {
    const res = await request(app()).get('/xml-card');
    expect(res.headers.etag).toBe(representationETag(TAG, ['xml']));
    const fresh = await request(app()).get('/xml-card').set('If-None-Match', TAG);
    expect(fresh.status).toBe(200);
    const cached = await request(app())
      .get('/xml-card')
      .set('If-None-Match', String(res.headers.etag));
    expect(cached.status).toBe(304);
  });
});

describe('conditionalWrite: the lock key', () => {
  it('serialises writes of one identity reached through different paths', async () => {
    const lock = new KeyedLock();
    const order: string[] = [];
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = conditionalWrite(req('PUT', {}), {
      identity: 'hook:1',
      lock,
      load: () => ({ v: 1 }),
      etag: () => '"1"',
      write: async () => {
        order.push('first started');
        await gate;
        order.push('first done');
      },
    });
    const second = conditionalWrite(
      { method: 'PUT', headers: {}, url: '/v2/other/path/1' } as IncomingMessage,
      {
        identity: 'hook:1',
        lock,
        load: () => ({ v: 1 }),
        etag: () => '"1"',
        write: () => {
          order.push('second');
        },
      },
    );
    expect(lock.size).toBe(1);
    release();
    await Promise.all([first, second]);
    expect(order).toEqual(['first started', 'first done', 'second']);
  });

  it.each([
    [{ identity: '' }, /"identity" must be a non-empty string/],
    [{ identity: 7 }, /"identity"/],
    [{ idenity: 'x' }, /unknown option "idenity".*Did you mean "identity"/],
    [{ lock: {} }, /"lock" must be a KeyedLock/],
    [{ requireIfMatch: 'yes' }, /"requireIfMatch" must be true or false/],
    [{ ifMissing: 'create' }, /"ifMissing"/],
  ])('refuses %j with a coded TypeError', async (extra, message) => {
    const options = { load: () => undefined, etag: () => '"1"', write: () => {}, ...extra };
    await expect(conditionalWrite(req('PUT'), options as never)).rejects.toThrow(message);
    await expect(conditionalWrite(req('PUT'), options as never)).rejects.toMatchObject({
      name: 'TypeError',
      code: expect.stringMatching(/^ERR_RESOURCEFUL_/),
    });
  });

  it('refuses options without load, etag or write', async () => {
    await expect(conditionalWrite(req('PUT'), { load: () => 1 } as never)).rejects.toThrow(
      /"etag" is required/,
    );
  });
});

describe('hasConditionalRequests', () => {
  it('is true only for a response conditionalRequests() ran for', async () => {
    const app = express5();
    const seen: boolean[] = [];
    app.get('/before', (_req, res) => {
      seen.push(hasConditionalRequests(res));
      res.end();
    });
    app.use(conditionalRequests());
    app.get('/after', (_req, res) => {
      seen.push(hasConditionalRequests(res));
      res.end();
    });
    await request(app).get('/before');
    await request(app).get('/after');
    expect(seen).toEqual([false, true]);
  });

  it('sees the mark of another copy of the package loaded in the process', async () => {
    vi.resetModules();
    const other = await import('../src/representation-variant.js');
    expect(other.hasConditionalRequests).not.toBe(hasConditionalRequests);
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    other.markConditionalRequests(res);
    expect(hasConditionalRequests(res)).toBe(true);
  });

  it('is true for a response whose own methods it replaced (no Express app)', async () => {
    const middleware = conditionalRequests();
    const req = new IncomingMessage(new Socket());
    req.method = 'GET';
    const res = new ServerResponse(req);
    expect(hasConditionalRequests(res)).toBe(false);
    middleware(req, res, () => {});
    expect(Object.hasOwn(res, 'end')).toBe(true);
    expect(hasConditionalRequests(res)).toBe(true);
  });

  it('sees a response another copy of the package attached to in an Express app', async () => {
    vi.resetModules();
    const other = await import('../src/index.js');
    expect(other.conditionalRequests).not.toBe(conditionalRequests);
    const app = express5();
    const seen: boolean[] = [];
    app.use(other.conditionalRequests());
    app.get('/after', (_req, res) => {
      seen.push(hasConditionalRequests(res), other.hasConditionalRequests(res));
      seen.push(Object.hasOwn(res, 'end'));
      res.json({ ok: true });
    });
    const answer = await request(app).get('/after');
    expect(answer.headers.etag).toBe(etagFor({ ok: true }));
    expect(seen).toEqual([true, true, false]);
  });

  it('keeps one state map per live copy: a copy loaded again adds one, gone it leaves', async () => {
    setFlagsFromString('--expose-gc');
    const collect = runInNewContext('gc') as () => void;
    const list = (globalThis as Record<symbol, unknown>)[
      Symbol.for('@resourceful/conditional-requests.attached-states')
    ] as unknown[];
    const before = list.length;
    vi.resetModules();
    await import('../src/response-hooks.js');
    expect(list.length).toBe(before + 1);
    // The map itself does not keep its copy alive: only the copy's shared `end` does.
    const added = list.at(-1);
    vi.resetModules();
    await waitFor(
      () => {
        collect();
        return !list.includes(added);
      },
      { what: "the unreachable copy's state map to leave the list" },
    );
    expect(list.length).toBeLessThanOrEqual(before);
  });

  it('reads the variant another copy of the package registered', async () => {
    vi.resetModules();
    const other = await import('../src/representation-variant.js');
    expect(other.representationVariantOf).not.toBe(representationVariantOf);
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    expect(representationVariantOf(res, 10)).toEqual([]);
    other.setRepresentationVariant(res, (_res, length) => (length === 10 ? ['xml'] : []));
    expect(representationVariantOf(res, 10)).toEqual(['xml']);
    expect(other.representationVariantOf(res, 10)).toEqual(['xml']);
    expect(Object.getOwnPropertySymbols(res).map(String)).not.toContain(
      'Symbol(@resourceful/conditional-requests.representation-variant)',
    );
  });
});
