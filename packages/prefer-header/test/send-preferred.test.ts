import { describeEachExpress } from '@resourceful/test-support';
import type { Request, Response } from 'express';
import request from 'supertest';
import vary from 'vary';
import { describe, expect, it } from 'vitest';
import { type PreferredOperation, sendPreferred } from '../src/index.js';

const card = { id: 'CARD-1', number: 'xxxxxxxxxxxx1111', links: [] };

describeEachExpress('sendPreferred', (express) => {
  function app() {
    const app = express();
    app.post('/cards', (req: Request, res: Response) => {
      res.location('/cards/CARD-1');
      sendPreferred(req, res, { operation: 'create', body: card });
    });
    app.put('/cards/:id', (req: Request, res: Response) => {
      sendPreferred(req, res, { operation: 'replace', body: card });
    });
    app.patch('/cards/:id', (req: Request, res: Response) => {
      res.setHeader('Vary', 'Accept-Encoding');
      res.setHeader('Preference-Applied', 'respond-async');
      sendPreferred(req, res, { operation: 'update', body: card });
    });
    app.post('/weird', (req: Request, res: Response) => {
      try {
        sendPreferred(req, res, { operation: 'upsert' as PreferredOperation, body: card });
      } catch (error) {
        res.status(500).json({ message: (error as Error).message });
      }
    });
    app.post('/vary', (req: Request, res: Response) => {
      const prior = JSON.parse(String(req.headers['x-prior-vary'])) as string | string[];
      res.setHeader('Vary', prior);
      sendPreferred(req, res, { operation: 'create', body: card });
    });
    app.post('/vary-star', (req: Request, res: Response) => {
      res.setHeader('Vary', '*');
      sendPreferred(req, res, { operation: 'create', body: card });
    });
    return app;
  }

  describe('create', () => {
    it('answers 201 with the resource by default, without Preference-Applied', async () => {
      const res = await request(app()).post('/cards');
      expect(res.status).toBe(201);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.body).toEqual(card);
      expect(res.headers.location).toBe('/cards/CARD-1');
      expect(res.headers['preference-applied']).toBeUndefined();
      expect(res.headers.vary).toBe('Prefer');
    });

    it('answers 201 with an empty body to "return=minimal"', async () => {
      const res = await request(app()).post('/cards').set('Prefer', 'return=minimal');
      expect(res.status).toBe(201);
      expect(res.text).toBe('');
      expect(res.headers['content-length']).toBe('0');
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers.location).toBe('/cards/CARD-1');
      expect(res.headers['preference-applied']).toBe('return=minimal');
      expect(res.headers.vary).toBe('Prefer');
    });

    it('answers 201 with the resource to "return=representation"', async () => {
      const res = await request(app()).post('/cards').set('Prefer', 'return=representation');
      expect(res.status).toBe(201);
      expect(res.body).toEqual(card);
      expect(res.headers['preference-applied']).toBe('return=representation');
    });

    it('honours the Prefer query parameter', async () => {
      const res = await request(app()).post('/cards?Prefer=return=minimal');
      expect(res.status).toBe(201);
      expect(res.text).toBe('');
      expect(res.headers['preference-applied']).toBe('return=minimal');
    });
  });

  describe.each(['put', 'patch'] as const)('%s (replace / update)', (method) => {
    it('answers 204 without body by default', async () => {
      const res = await request(app())[method]('/cards/CARD-1');
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers['preference-applied']).toBe(
        method === 'patch' ? 'respond-async' : undefined,
      );
    });

    it('answers 200 with the resource to "return=representation"', async () => {
      const res = await request(app())
        [method]('/cards/CARD-1')
        .set('Prefer', 'return=representation');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(card);
      expect(res.headers['content-length']).toBe(String(Buffer.byteLength(JSON.stringify(card))));
    });

    it('answers 204 to "return=minimal" and says the preference was applied', async () => {
      const res = await request(app())[method]('/cards/CARD-1').set('Prefer', 'return=minimal');
      expect(res.status).toBe(204);
      expect(res.headers['preference-applied']).toMatch(/(^|, )return=minimal$/);
    });

    it('ignores an unknown return value and other preferences', async () => {
      const res = await request(app())
        [method]('/cards/CARD-1')
        .set('Prefer', 'return=full, wait=3');
      expect(res.status).toBe(204);
      expect(res.headers.vary).toMatch(/Prefer/);
      // Nothing was applied: only what the route set before stays.
      expect(res.headers['preference-applied']).toBe(
        method === 'patch' ? 'respond-async' : undefined,
      );
    });
  });

  describe('action (a sub-resource action that changed its resource)', () => {
    function actionApp() {
      const app = express();
      app.post('/cards/:id/suspend', (req: Request, res: Response) => {
        res.setHeader('ETag', '"v2"');
        sendPreferred(req, res, { operation: 'action', body: card });
      });
      return app;
    }

    it('answers 200 with the resource by default, without Preference-Applied', async () => {
      const res = await request(actionApp()).post('/cards/CARD-1/suspend');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(card);
      expect(res.headers.vary).toBe('Prefer');
      expect(res.headers['preference-applied']).toBeUndefined();
    });

    it('answers 204 without body to "return=minimal", keeping the ETag set before', async () => {
      const res = await request(actionApp())
        .post('/cards/CARD-1/suspend')
        .set('Prefer', 'return=minimal');
      expect(res.status).toBe(204);
      expect(res.text).toBe('');
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers.etag).toBe('"v2"');
      expect(res.headers['preference-applied']).toBe('return=minimal');
    });

    it('answers 200 with the resource to "return=representation" and says so', async () => {
      const res = await request(actionApp())
        .post('/cards/CARD-1/suspend')
        .set('Prefer', 'return=representation');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(card);
      expect(res.headers['preference-applied']).toBe('return=representation');
    });
  });

  it('merges Vary and Preference-Applied with what was set before', async () => {
    const res = await request(app()).patch('/cards/CARD-1').set('Prefer', 'return=representation');
    expect(res.headers.vary).toBe('Accept-Encoding, Prefer');
    expect(res.headers['preference-applied']).toBe('respond-async, return=representation');
  });

  // The merge is `vary`'s, the one Express's res.vary() does: what other code wrote is kept as
  // written, and a field listed in any case is not repeated.
  it.each<[string | string[]]>([
    ['Accept,Origin'],
    ['Accept-Encoding,  prefer'],
    [['Accept', 'Origin']],
    ['Origin, *'],
    [''],
  ])('merges Prefer into a Vary of %j as vary does', async (prior) => {
    const res = await request(app()).post('/vary').set('X-Prior-Vary', JSON.stringify(prior));
    const joined = Array.isArray(prior) ? prior.join(', ') : prior;
    expect(res.headers.vary).toBe(vary.append(joined, 'Prefer'));
  });

  it('leaves "Vary: *" alone', async () => {
    const res = await request(app()).post('/vary-star');
    expect(res.headers.vary).toBe('*');
  });

  it('refuses an unknown operation', async () => {
    const res = await request(app()).post('/weird');
    expect(res.status).toBe(500);
    expect(res.body.message).toMatch(
      /"operation" must be "create" or "replace" or "update" or "action"/,
    );
  });

  it.each([
    [undefined, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT'],
    [null, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT'],
    [{ operation: 'craete', body: {} }, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [{ operation: undefined, body: {} }, 'ERR_RESOURCEFUL_INVALID_OPTION'],
  ])('throws for the options %j a TypeError with the code %s', (options, code) => {
    expect(() => sendPreferred({} as never, {} as never, options as never)).toThrow(
      expect.objectContaining({ name: 'TypeError', code, factory: 'sendPreferred' }),
    );
  });
});
