import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { describeEachExpress } from '@resourceful/test-support';
import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { beforeHeaders } from '../src/index.js';

/** Every own property of `target`: key, in order, with its descriptor (values by identity). */
function ownProperties(target: object): [PropertyKey, PropertyDescriptor][] {
  return Reflect.ownKeys(target).map((key) => [
    key,
    Object.getOwnPropertyDescriptor(target, key) as PropertyDescriptor,
  ]);
}

/** Registers a hook and records the response's own properties just before and after. */
function recording(seen: { before?: unknown; after?: unknown; ran?: number }): RequestHandler {
  return function recordingMiddleware(_req, res, next) {
    seen.before = ownProperties(res);
    beforeHeaders(
      res,
      () => {
        seen.ran = (seen.ran ?? 0) + 1;
      },
      undefined,
    );
    seen.after = ownProperties(res);
    next();
  };
}

describeEachExpress('the response registering a hook', (express) => {
  function answered(app: Express, path: string) {
    return request(app).get(path);
  }

  it('keeps every own property, value, attribute and key order', async () => {
    const seen: { before?: unknown; after?: unknown; ran?: number } = {};
    const app = express();
    app.use(recording(seen));
    app.get('/', (_req, res) => {
      res.json({ ok: true });
    });
    for (let i = 0; i < 3; i++) {
      const res = await answered(app, '/');
      expect(res.status).toBe(200);
      expect(seen.after).toEqual(seen.before);
    }
    expect(seen.ran).toBe(3);
  });

  it('keeps them in an app mounted in another, and for a second hook', async () => {
    const seen: { before?: unknown; after?: unknown; ran?: number } = {};
    const again: { before?: unknown; after?: unknown; ran?: number } = {};
    const inner = express();
    inner.use(recording(seen), recording(again));
    inner.get('/x', (_req, res) => {
      res.json({ ok: true });
    });
    const outer = express();
    outer.use('/inner', inner);
    expect((await answered(outer, '/inner/x')).status).toBe(200);
    expect(seen.after).toEqual(seen.before);
    expect(again.after).toEqual(again.before);
    expect([seen.ran, again.ran]).toEqual([1, 1]);
  });
});

describe('a response outside Express registering a hook', () => {
  it('keeps every own property, value, attribute and key order', () => {
    const res = new ServerResponse(new IncomingMessage(new Socket()));
    const before = ownProperties(res);
    beforeHeaders(res, () => {}, undefined);
    // on-headers' own writeHead is the one property added.
    const after = ownProperties(res);
    expect(after.filter(([key]) => key !== 'writeHead')).toEqual(before);
    expect(after.length).toBe(before.length + 1);
  });
});
