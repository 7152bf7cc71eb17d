import { ApiError, errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope, waitFor } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  type ConditionalRequestsOptions,
  conditionalRequests,
  etagFor,
  formatETag,
  generateETag,
} from '../src/index.js';

const CARD = { id: 'CARD-1', number: 'xxxxxxxxxxxx1111', state: 'ok' };
const CARD_TAG = etagFor(CARD);

describeEachExpress('conditionalRequests', (express) => {
  function app(options?: ConditionalRequestsOptions) {
    const app = express();
    app.use(conditionalRequests(options));
    app.get('/cards/1', (_req, res) => {
      res.set('Cache-Control', 'private, max-age=0').vary('Accept').json(CARD);
    });
    app.get('/versioned', (_req, res) => {
      res.setHeader('ETag', formatETag(42));
      res.json(CARD);
    });
    app.get('/plain', (_req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.end('hello');
    });
    app.get('/missing', (_req, res) => {
      res.status(404).json({ error: { code: 'NOT_FOUND', message: 'none' } });
    });
    app.get('/thrown', () => {
      throw ApiError.notFound();
    });
    app.post('/cards', (_req, res) => {
      res.status(201).json(CARD);
    });
    app.post('/evaluations', (_req, res) => {
      // Written as resource-operations writes answers: through res.end, so Express adds no tag.
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.end(JSON.stringify({ status: 'VALID' }));
    });
    app.post('/cards/1/suspend', (_req, res) => {
      res.setHeader('ETag', formatETag(43));
      res.json(CARD);
    });
    app.post('/cards/search', (_req, res) => {
      res.json([CARD]);
    });
    app.put('/cards/1', (_req, res) => {
      res.status(204).end();
    });
    app.delete('/cards/1', (_req, res) => {
      res.status(200).json(CARD);
    });
    app.delete('/cards/2', (_req, res) => {
      res.status(412).json({ error: { code: 'PRECONDITION_FAILED', message: 'changed' } });
    });
    app.use(errorHandler());
    return app;
  }

  describe('ETag', () => {
    it('sends a strong tag of the JSON body on GET', async () => {
      const res = await request(app()).get('/cards/1');
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(CARD_TAG);
      expect(res.headers.etag).not.toMatch(/^W\//);
    });

    it('tags the answer of a method an earlier middleware set in lower case', async () => {
      const lowered = express();
      lowered.use((req, _res, next) => {
        req.method = req.method.toLowerCase();
        next();
      });
      lowered.use(conditionalRequests());
      lowered.use((req, res) => {
        res.json({ method: req.method });
      });
      const res = await request(lowered).get('/');
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(etagFor({ method: 'get' }));
      const again = await request(lowered)
        .get('/')
        .set('If-None-Match', res.headers.etag ?? '');
      expect(again.status).toBe(304);
    });

    it("leaves the response's own properties as Express made them", async () => {
      function ownKeys(withMiddleware: boolean) {
        const keys = express();
        // The same router layers either way: Express sets req.params per layer it matches.
        keys.use(withMiddleware ? conditionalRequests() : (_req, _res, next) => next());
        keys.get('/keys', (_req, res) => {
          res.json(Reflect.ownKeys(res).map(String));
        });
        return request(keys).get('/keys');
      }
      const [without, withIt] = await Promise.all([ownKeys(false), ownKeys(true)]);
      expect(withIt.body).toEqual(without.body);
    });

    it('sends the same tag on HEAD, without a body', async () => {
      const res = await request(app()).head('/cards/1');
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(CARD_TAG);
      expect(res.text).toBeUndefined();
    });

    it('tags a body written with res.end, without Express', async () => {
      const res = await request(app()).get('/plain');
      expect(res.headers.etag).toBe(generateETag('hello'));
    });

    it('keeps a tag the route set from a version', async () => {
      const res = await request(app()).get('/versioned');
      expect(res.headers.etag).toBe('"42"');
    });

    it('tags a 201 answer that carries the created resource', async () => {
      const res = await request(app()).post('/cards');
      expect(res.status).toBe(201);
      expect(res.headers.etag).toBe(CARD_TAG);
    });

    it('derives no tag for a POST 200: the result of an action names no representation', async () => {
      const res = await request(app()).post('/evaluations');
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBeUndefined();
    });

    it('keeps the tag the route of a POST 200 set', async () => {
      const res = await request(app()).post('/cards/1/suspend');
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe('"43"');
    });

    it('leaves a POST 200 sent with res.json to Express, as a DELETE', async () => {
      const res = await request(app()).post('/cards/search');
      expect(res.headers.etag).not.toBe(etagFor([CARD]));
      const untagged = app();
      untagged.set('etag', false);
      expect((await request(untagged).post('/cards/search')).headers.etag).toBeUndefined();
    });

    it('sends no tag on a 204', async () => {
      const res = await request(app()).put('/cards/1');
      expect(res.status).toBe(204);
      expect(res.headers.etag).toBeUndefined();
    });

    it('sends no tag on an error response written by the route', async () => {
      const res = await request(app()).get('/missing');
      expect(res.status).toBe(404);
      expect(res.headers.etag).toBeUndefined();
    });

    it('sends no tag on an error response of the error handler', async () => {
      const res = await request(app()).get('/thrown');
      expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
      expect(res.headers.etag).toBeUndefined();
    });

    it('leaves methods that carry no resource alone (DELETE keeps Express behaviour)', async () => {
      const res = await request(app()).delete('/cards/1');
      expect(res.headers.etag).not.toBe(CARD_TAG);
    });

    it('sends no tag on an error response to a method it does not tag', async () => {
      const res = await request(app()).delete('/cards/2');
      expect(res.status).toBe(412);
      expect(res.headers.etag).toBeUndefined();
    });

    it('sends weak tags with { weak: true }', async () => {
      const res = await request(app({ weak: true })).get('/cards/1');
      expect(res.headers.etag).toBe(`W/${CARD_TAG}`);
    });

    it('uses a custom tag function', async () => {
      const res = await request(app({ etag: () => '"custom"' })).get('/cards/1');
      expect(res.headers.etag).toBe('"custom"');
    });
  });

  describe('when "If-None-Match" matches on GET', () => {
    it.each([
      ['the current tag', CARD_TAG],
      ['the weak form of the current tag', `W/${CARD_TAG}`],
      ['a list holding the current tag', `"old", ${CARD_TAG}`],
      ['*', '*'],
    ])('answers 304 for %s', async (_name, header) => {
      const res = await request(app()).get('/cards/1').set('If-None-Match', header);
      expect(res.status).toBe(304);
      expect(res.text).toBe('');
    });

    it('answers 304 for the tag in a repeated header line', async () => {
      const res = await request(app())
        .get('/cards/1')
        // superagent sends an array as repeated header lines; its types only allow it for Cookie.
        .set('If-None-Match', ['"old"', CARD_TAG] as unknown as string);
      expect(res.status).toBe(304);
    });

    it('keeps ETag, Cache-Control, Vary and Date on the 304 and drops the content headers', async () => {
      const res = await request(app()).get('/cards/1').set('If-None-Match', CARD_TAG);
      expect(res.status).toBe(304);
      expect(res.headers.etag).toBe(CARD_TAG);
      expect(res.headers['cache-control']).toBe('private, max-age=0');
      expect(res.headers.vary).toBe('Accept');
      expect(res.headers.date).toBeTypeOf('string');
      expect(res.headers['content-type']).toBeUndefined();
      expect(res.headers['content-length']).toBeUndefined();
    });

    it('answers 304 on HEAD', async () => {
      const res = await request(app()).head('/cards/1').set('If-None-Match', CARD_TAG);
      expect(res.status).toBe(304);
    });

    it('answers 304 even when the client also sends Cache-Control: no-cache', async () => {
      const res = await request(app())
        .get('/cards/1')
        .set('Cache-Control', 'no-cache')
        .set('If-None-Match', CARD_TAG);
      expect(res.status).toBe(304);
    });

    it('answers 304 against a version tag the route set', async () => {
      const res = await request(app()).get('/versioned').set('If-None-Match', '"42"');
      expect(res.status).toBe(304);
    });
  });

  describe('when "If-None-Match" does not match', () => {
    it('answers 200 with the body', async () => {
      const res = await request(app()).get('/cards/1').set('If-None-Match', '"old"');
      expect(res.status).toBe(200);
      expect(res.body).toEqual(CARD);
    });

    it('does not turn a 404 into a 304', async () => {
      const res = await request(app()).get('/missing').set('If-None-Match', '*');
      expect(res.status).toBe(404);
    });
  });

  // RFC 9110 §13.1.2: "*" holds when the server has a current representation; an empty body is
  // one (of zero bytes, tagged as res.send('') is), and a 200 to HEAD says one exists.
  describe('when a GET or HEAD answers 200 without content', () => {
    const EMPTY_TAG = generateETag('');
    function emptyApp() {
      const app = express();
      app.use(conditionalRequests());
      app.get('/empty', (_req, res) => {
        res.status(200).end();
      });
      app.get('/sent-empty', (_req, res) => {
        res.send();
      });
      app.head('/head-only', (_req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.status(200).end();
      });
      app.use(errorHandler());
      return app;
    }

    it.each(['/empty', '/sent-empty'])('tags the empty representation of GET %s', async (path) => {
      const res = await request(emptyApp()).get(path);
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(EMPTY_TAG);
    });

    it.each([
      ['*', '*'],
      ['the tag of the empty representation', EMPTY_TAG],
    ])('answers 304 to If-None-Match with %s', async (_name, header) => {
      const res = await request(emptyApp()).get('/empty').set('If-None-Match', header);
      expect(res.status).toBe(304);
    });

    it('answers 200 to If-Match: * and 412 to another tag', async () => {
      const held = await request(emptyApp()).get('/empty').set('If-Match', '*');
      expect(held.status).toBe(200);
      const refused = await request(emptyApp()).get('/empty').set('If-Match', '"other"');
      expectErrorEnvelope(refused, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
    });

    it('derives no tag for a HEAD handler that sends no body, yet answers If-None-Match: * with 304', async () => {
      const plain = await request(emptyApp()).head('/head-only');
      expect(plain.status).toBe(200);
      expect(plain.headers.etag).toBeUndefined();
      const cached = await request(emptyApp()).head('/head-only').set('If-None-Match', '*');
      expect(cached.status).toBe(304);
      const other = await request(emptyApp()).head('/head-only').set('If-None-Match', '"other"');
      expect(other.status).toBe(200);
    });
  });

  describe('when "If-Match" is sent on GET', () => {
    it('answers 412 without an ETag when the tag does not match', async () => {
      const res = await request(app()).get('/cards/1').set('If-Match', '"old"');
      expectErrorEnvelope(res, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
      expect(res.headers.etag).toBeUndefined();
    });

    it('answers 200 when the tag matches', async () => {
      const res = await request(app()).get('/cards/1').set('If-Match', CARD_TAG);
      expect(res.status).toBe(200);
    });

    it('answers 412 for a weak tag, since If-Match compares strongly', async () => {
      const res = await request(app({ weak: true }))
        .get('/cards/1')
        .set('If-Match', `W/${CARD_TAG}`);
      expect(res.status).toBe(412);
    });
  });

  it('answers 400 naming the header for a malformed If-None-Match', async () => {
    const res = await request(app()).get('/cards/1').set('If-None-Match', 'not-quoted');
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'If-None-Match' });
  });

  it('answers 400 naming the header for a malformed If-Match', async () => {
    const res = await request(app()).get('/cards/1').set('If-Match', 'not-quoted');
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'If-Match' });
  });

  it.each(['If-Match', 'If-None-Match'])(
    'answers 400 for an empty %s: a header sent empty is not an absent one',
    async (name) => {
      const res = await request(app()).get('/cards/1').set(name, '');
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: name });
    },
  );

  it('answers 304 for the weak tag it generated with { weak: true }', async () => {
    const res = await request(app({ weak: true }))
      .get('/cards/1')
      .set('If-None-Match', `W/${CARD_TAG}`);
    expect(res.status).toBe(304);
    expect(res.headers.etag).toBe(`W/${CARD_TAG}`);
  });

  it('answers 200 with the tag and the body when no precondition is sent, on GET and HEAD', async () => {
    const got = await request(app()).get('/cards/1');
    expect(got.status).toBe(200);
    expect(got.headers.etag).toBe(CARD_TAG);
    expect(got.body).toEqual(CARD);
    const head = await request(app()).head('/cards/1');
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBe(CARD_TAG);
  });

  describe('mounted twice on one response (on the app and on a router)', () => {
    function twice(inner: ConditionalRequestsOptions = {}) {
      const app = express();
      app.use(conditionalRequests());
      const router = express.Router();
      router.use(conditionalRequests(inner));
      router.get('/cards/1', (_req, res) => {
        res.json(CARD);
      });
      router.get('/plain', (_req, res) => {
        res.setHeader('Content-Type', 'text/plain');
        res.end('hello');
      });
      app.use('/v1', router);
      return app;
    }

    it('sends the one tag of the body and answers 304 for it', async () => {
      const res = await request(twice()).get('/v1/cards/1');
      expect(res.status).toBe(200);
      expect(res.headers.etag).toBe(CARD_TAG);
      expect(res.body).toEqual(CARD);
      const cached = await request(twice()).get('/v1/cards/1').set('If-None-Match', CARD_TAG);
      expect(cached.status).toBe(304);
      expect(cached.text).toBe('');
    });

    it('keeps the tag of the inner one, which sees the body first', async () => {
      const res = await request(twice({ weak: true })).get('/v1/cards/1');
      expect(res.headers.etag).toBe(`W/${CARD_TAG}`);
    });

    it('tags a body written with res.end and answers 412 for another If-Match', async () => {
      const res = await request(twice()).get('/v1/plain');
      expect(res.headers.etag).toBe(generateETag('hello'));
      const refused = await request(twice()).get('/v1/plain').set('If-Match', '"old"');
      expectErrorEnvelope(refused, 412, { code: 'PRECONDITION_FAILED', target: 'If-Match' });
    });
  });

  it('refuses a malformed tag the route set, with or without a precondition', async () => {
    const app = express();
    app.use(conditionalRequests());
    app.get('/bad-tag', (_req, res) => {
      res.setHeader('ETag', 'not-quoted');
      res.json(CARD);
    });
    app.use(errorHandler());
    for (const headers of [{}, { 'If-None-Match': '"x"' }]) {
      const res = await request(app).get('/bad-tag').set(headers);
      expect(res.status).toBe(500);
    }
  });

  it('passes res.end its callback', async () => {
    const app = express();
    app.use(conditionalRequests());
    let called = false;
    app.get('/plain', (_req, res) => {
      res.setHeader('Content-Type', 'text/plain');
      res.end('hello', 'utf8', () => {
        called = true;
      });
    });
    const res = await request(app).get('/plain');
    expect(res.text).toBe('hello');
    await waitFor(() => called);
  });
});

describe('conditionalRequests options', () => {
  it.each([[undefined], [{}], [{ weak: undefined }]])('accepts the defaults %j', (options) => {
    expect(conditionalRequests(options).name).toBe('conditionalRequestsMiddleware');
  });

  it('refuses an unknown option and names the known ones', () => {
    expect(() => conditionalRequests({ waek: true } as ConditionalRequestsOptions)).toThrow(
      /unknown option "waek".*weak/,
    );
  });

  it('refuses a non-boolean weak and a non-function etag', () => {
    expect(() => conditionalRequests({ weak: 'yes' } as never)).toThrow(/weak/);
    expect(() => conditionalRequests({ etag: 'x' } as never)).toThrow(/etag/);
  });

  it('does not mutate the options object', () => {
    const options = Object.freeze({ weak: true });
    expect(() => conditionalRequests(options)).not.toThrow();
  });
});
