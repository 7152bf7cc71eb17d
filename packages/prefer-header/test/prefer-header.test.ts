import { createServer, type IncomingMessage } from 'node:http';
import { queryHeaders } from '@resourceful/http-conventions';
import { describeEachExpress } from '@resourceful/test-support';
import type { Request, Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { getPreferences, type PreferHeaderOptions, preferHeader } from '../src/index.js';

/** Several field lines of one header (Node sends an array as separate lines). */
function lines(...values: string[]): string {
  return values as unknown as string;
}

describeEachExpress('preferHeader', (express) => {
  function app(options?: PreferHeaderOptions) {
    const app = express();
    app.use(preferHeader(options));
    app.use((req: Request, res: Response) => {
      const preferences = req.preferences;
      res.json({
        return: preferences?.return ?? null,
        respondAsync: preferences?.respondAsync,
        wait: preferences?.wait ?? null,
        handling: preferences?.handling ?? null,
        names: [...(preferences?.all.keys() ?? [])],
        same: preferences === getPreferences(req),
      });
    });
    return app;
  }

  it('puts the parsed header on req.preferences', async () => {
    const res = await request(app())
      .post('/v1/things')
      .set('Prefer', 'return=minimal, respond-async, wait=10, handling=strict, foo; bar');
    expect(res.body).toEqual({
      return: 'minimal',
      respondAsync: true,
      wait: 10,
      handling: 'strict',
      names: ['return', 'respond-async', 'wait', 'handling', 'foo'],
      same: true,
    });
  });

  it('combines several Prefer header fields, the first occurrence winning', async () => {
    const res = await request(app())
      .get('/x')
      .set('Prefer', lines('return=representation', 'wait=5, return=minimal'));
    expect(res.body).toMatchObject({ return: 'representation', wait: 5 });
  });

  it('keeps a later field line when an earlier one has an unbalanced quote', async () => {
    const res = await request(app()).get('/x').set('Prefer', lines('foo="open', 'return=minimal'));
    expect(res.body).toMatchObject({ return: 'minimal', names: ['return'] });
  });

  it('answers normally when Prefer is malformed', async () => {
    const res = await request(app()).get('/x').set('Prefer', '"";;;==,,"\\');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ return: null, names: [] });
  });

  it('reads a 15 KiB header up to the bound without failing', async () => {
    const res = await request(app())
      .get('/x')
      .set('Prefer', `return=minimal, x=${'a'.repeat(15 * 1024)}, wait=1`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ return: 'minimal', wait: null, names: ['return'] });
  });

  it("leaves the request's own properties as Express made them", async () => {
    function ownKeys(withMiddleware: boolean) {
      const keys = express();
      // The same router layers either way: Express sets req.params per layer it matches.
      keys.use(withMiddleware ? preferHeader() : (_req, _res, next) => next());
      keys.get('/keys', (req: Request, res: Response) => {
        res.json({ keys: Reflect.ownKeys(req).map(String), return: req.preferences?.return });
      });
      return request(keys).get('/keys').set('Prefer', 'return=minimal');
    }
    const [without, withIt] = await Promise.all([ownKeys(false), ownKeys(true)]);
    expect(withIt.body.keys).toEqual(without.body.keys);
    expect(withIt.body.return).toBe('minimal');
  });

  describe('the Prefer query parameter', () => {
    it('is read when the header is absent', async () => {
      const res = await request(app()).get('/x?Prefer=return%3Dminimal%2C%20wait%3D3');
      expect(res.body).toMatchObject({ return: 'minimal', wait: 3 });
    });

    it('is matched case-insensitively and repeated parameters combine like field lines', async () => {
      const res = await request(app()).get('/x?prefer=wait=3&PREFER=return=representation');
      expect(res.body).toMatchObject({ return: 'representation', wait: 3 });
    });

    it('is ignored when the header is present', async () => {
      const res = await request(app()).get('/x?Prefer=return=minimal').set('Prefer', 'wait=1');
      expect(res.body).toMatchObject({ return: null, wait: 1 });
    });

    it('is read inside a mounted router', async () => {
      const outer = express();
      const router = express.Router();
      router.use(preferHeader());
      router.get('/cards', (req: Request, res: Response) => {
        res.json({ return: req.preferences?.return });
      });
      outer.use('/v1', router);
      const res = await request(outer).get('/v1/cards?Prefer=return=minimal');
      expect(res.body).toEqual({ return: 'minimal' });
    });

    it('is taken out of the query the routes see', async () => {
      const outer = express();
      outer.use(preferHeader());
      outer.get('/cards', (req: Request, res: Response) => {
        res.json({ query: req.query, url: req.originalUrl, return: req.preferences?.return });
      });
      const res = await request(outer).get('/cards?page=2&Prefer=return=minimal');
      expect(res.body).toEqual({ query: { page: '2' }, url: '/cards?page=2', return: 'minimal' });
    });

    it('can be renamed or turned off', async () => {
      const renamed = await request(app({ queryParameter: 'preference' })).get(
        '/x?Prefer=wait=1&preference=return=minimal',
      );
      expect(renamed.body).toMatchObject({ return: 'minimal', wait: null });
      const off = await request(app({ queryParameter: false })).get('/x?Prefer=return=minimal');
      expect(off.body).toMatchObject({ return: null });
    });

    it('is read when its name is percent-encoded', async () => {
      const res = await request(app()).get('/x?page=1&%50reFer=return=minimal');
      expect(res.body).toMatchObject({ return: 'minimal' });
    });

    it('reads each parameter as a line after queryHeaders() copied them into the header', async () => {
      const outer = express();
      outer.use(queryHeaders());
      outer.use(preferHeader());
      outer.get('/cards', (req: Request, res: Response) => {
        res.json({ return: req.preferences?.return ?? null, url: req.originalUrl });
      });
      // Joined into one line, the unbalanced quote would swallow `return=minimal`.
      const res = await request(outer).get(
        '/cards?Prefer=foo%3D%22open&page=2&Prefer=return=minimal',
      );
      expect(res.body).toEqual({ return: 'minimal', url: '/cards?page=2' });
    });

    it.each(['%E0%A4%A', '%0D%0A'])(
      'goes on without the query preferences when a value (%s) is not one a header can have',
      async (value) => {
        const res = await request(app()).get(`/x?Prefer=${value}&Prefer=return=minimal`);
        expect(res.status).toBe(200);
        expect(res.body).toMatchObject({ return: null });
      },
    );
  });

  describe('req.preferences across apps and assignments', () => {
    function reader(req: Request, res: Response) {
      res.json({
        return: req.preferences?.return ?? null,
        defined: req.preferences !== undefined,
        same: req.preferences === undefined || req.preferences === getPreferences(req),
      });
    }

    it('is read in a sub-app mounted below the app that parsed it', async () => {
      const outer = express();
      outer.use(preferHeader());
      const inner = express();
      inner.get('/cards', reader);
      outer.use('/v1', inner);
      const res = await request(outer).get('/v1/cards').set('Prefer', 'return=minimal');
      expect(res.body).toEqual({ return: 'minimal', defined: true, same: true });
    });

    it('stays readable after the sub-app that parsed it passes the request on', async () => {
      const outer = express();
      const inner = express();
      inner.use(preferHeader());
      outer.use('/v1', inner);
      outer.get('/v1/cards', reader);
      const res = await request(outer).get('/v1/cards').set('Prefer', 'return=minimal');
      expect(res.body).toEqual({ return: 'minimal', defined: true, same: true });
    });

    it('is undefined for a request the middleware did not see, in the same app', async () => {
      const outer = express();
      outer.use('/v1', preferHeader());
      outer.get('/v2/cards', reader);
      const res = await request(outer).get('/v2/cards').set('Prefer', 'return=minimal');
      expect(res.body).toEqual({ return: null, defined: false, same: true });
    });

    it('is undefined where only getPreferences() read the request', async () => {
      const outer = express();
      outer.get('/cards', (req: Request, res: Response) => {
        getPreferences(req);
        res.json({ defined: req.preferences !== undefined });
      });
      const res = await request(outer).get('/cards').set('Prefer', 'return=minimal');
      expect(res.body).toEqual({ defined: false });
    });

    it('can be assigned by a later middleware, and is overwritten by the middleware', async () => {
      const outer = express();
      outer.use((req: Request, _res: Response, next: () => void) => {
        req.preferences = { note: 'before' } as unknown as Request['preferences'];
        next();
      });
      outer.use(preferHeader());
      outer.get('/parsed', reader);
      outer.get('/assigned', (req: Request, _res: Response, next: () => void) => {
        req.preferences = { note: 'after' } as unknown as Request['preferences'];
        next();
      });
      outer.get('/assigned', (req: Request, res: Response) => {
        res.json({ preferences: req.preferences, own: Object.hasOwn(req, 'preferences') });
      });
      const parsed = await request(outer).get('/parsed').set('Prefer', 'return=minimal');
      expect(parsed.body).toEqual({ return: 'minimal', defined: true, same: true });
      const assigned = await request(outer).get('/assigned').set('Prefer', 'return=minimal');
      expect(assigned.body).toEqual({ preferences: { note: 'after' }, own: true });
    });

    it('keeps what was sent when a later middleware rewrites the Prefer header', async () => {
      const outer = express();
      outer.use(preferHeader());
      outer.use((req: Request, _res: Response, next: () => void) => {
        req.headers.prefer = 'return=representation';
        next();
      });
      outer.get('/cards', reader);
      const res = await request(outer).get('/cards').set('Prefer', 'return=minimal');
      expect(res.body).toEqual({ return: 'minimal', defined: true, same: true });
    });

    it('keeps the first reading when mounted twice with other options', async () => {
      const outer = express();
      outer.use(preferHeader({ maxLength: 10 }));
      outer.use(preferHeader());
      outer.get('/cards', reader);
      const res = await request(outer).get('/cards').set('Prefer', 'wait=1, return=minimal');
      expect(res.body).toEqual({ return: null, defined: true, same: true });
    });

    it('is set on the request without Express', async () => {
      const middleware = preferHeader();
      const server = createServer((req, res) => {
        middleware(req, res, () => {
          const own = Object.hasOwn(req, 'preferences');
          res.end(JSON.stringify({ own, return: (req as Request).preferences?.return }));
        });
      });
      const res = await request(server).get('/cards').set('Prefer', 'return=minimal');
      expect(JSON.parse(res.text)).toEqual({ own: true, return: 'minimal' });
    });
  });

  it('honours maxLength', async () => {
    const res = await request(app({ maxLength: 10 }))
      .get('/x')
      .set('Prefer', 'wait=1, return=minimal');
    expect(res.body).toMatchObject({ wait: 1, return: null });
  });
});

describe('getPreferences', () => {
  function fakeRequest(headers: Record<string, string>, url = '/'): IncomingMessage {
    return { headers, url } as unknown as IncomingMessage;
  }

  it('caches the result on the request', () => {
    const req = fakeRequest({ prefer: 'return=minimal' });
    const first = getPreferences(req);
    req.headers.prefer = 'return=representation';
    expect(getPreferences(req)).toBe(first);
  });

  it('reads the joined header when headersDistinct is not available', () => {
    expect(getPreferences(fakeRequest({ prefer: 'wait=1, return=minimal' })).return).toBe(
      'minimal',
    );
  });

  it('reads the query when there is no header, ignoring a fragment', () => {
    expect(getPreferences(fakeRequest({}, '/a?x=1&Prefer=wait=7#Prefer=wait=8')).wait).toBe(7);
    expect(getPreferences(fakeRequest({}, '/a')).all.size).toBe(0);
  });

  it.each([
    [null, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
    [5, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
    [{ maxLenght: 10 }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION', 'maxLenght'],
    [{ maxLength: null }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'maxLength'],
    [{ maxLength: 'x' }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'maxLength'],
    [{ queryParameter: 5 }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'queryParameter'],
  ])('refuses the options %j with %s, naming getPreferences', (options, code, option) => {
    const req = fakeRequest({ prefer: 'return=minimal' });
    expect(() => getPreferences(req, options as never)).toThrow(
      expect.objectContaining({ code, factory: 'getPreferences', ...(option && { option }) }),
    );
  });
});

describe('preferHeader options', () => {
  it('accepts (), {} and undefined values', () => {
    expect(preferHeader().name).toBe('preferHeaderMiddleware');
    expect(() => preferHeader({})).not.toThrow();
    expect(() => preferHeader({ maxLength: undefined, queryParameter: undefined })).not.toThrow();
  });

  it('does not mutate the options object', () => {
    const options = Object.freeze({ maxLength: 100, queryParameter: 'p' });
    expect(() => preferHeader(options)).not.toThrow();
  });

  it.each([
    [{ maxLenght: 10 }, /unknown option "maxLenght". Did you mean "maxLength"\?/],
    [{ maxLength: 0 }, /"maxLength" must be a positive integer/],
    [{ maxLength: '10' }, /"maxLength" must be a positive integer/],
    [{ queryParameter: true }, /"queryParameter" must be/],
    [{ queryParameter: 'a b' }, /"queryParameter" must be/],
    [{ maxLength: null }, /"maxLength" must be a positive integer \(characters\), got null/],
    [{ queryParameter: null }, /"queryParameter" must be .*got null/],
    [null, /options must be an object/],
    [[], /options must be an object/],
  ])('refuses %j', (options, message) => {
    expect(() => preferHeader(options as PreferHeaderOptions)).toThrow(message);
  });

  it.each([
    [null, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT'],
    [{ maxLenght: 10 }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION'],
    [{ maxLength: 0 }, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [{ queryParameter: 'a b' }, 'ERR_RESOURCEFUL_INVALID_OPTION'],
  ])('gives %j a stable code', (options, code) => {
    expect(() => preferHeader(options as PreferHeaderOptions)).toThrow(
      expect.objectContaining({ code, factory: 'preferHeader' }),
    );
  });
});
