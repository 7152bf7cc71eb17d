import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import {
  type QueryHeadersOptions,
  queryHeaders,
  queryHeadersOf,
  takeQueryHeaders,
} from '../src/index.js';

describeEachExpress('queryHeaders', (express) => {
  function app(options?: QueryHeadersOptions) {
    const app = express();
    app.use(queryHeaders(options));
    const router = express.Router();
    router.get('/echo', (req, res) => {
      res.json({
        prefer: req.headers.prefer ?? null,
        ifMatch: req.headers['if-match'] ?? null,
        authorization: req.headers.authorization ?? null,
        acceptLanguage: req.headers['accept-language'] ?? null,
        acceptCharset: req.headers['accept-charset'] ?? null,
        query: req.query,
        url: req.url,
        originalUrl: req.originalUrl,
      });
    });
    app.use('/v1', router);
    app.use(errorHandler());
    return app;
  }

  it('keeps its records readable in a sub-app and after a sub-app passes the request on', async () => {
    const echo = (req: import('express').Request, res: import('express').Response) => {
      res.json([...queryHeadersOf(req).values()]);
    };
    const outer = express();
    outer.use(queryHeaders({ headers: ['Prefer'] }));
    const inner = express();
    inner.get('/below', echo);
    inner.use(queryHeaders({ headers: ['If-Match'] }));
    outer.use('/v1', inner);
    outer.get('/v1/after', echo);
    expect((await request(outer).get('/v1/below?Prefer=wait=1')).body).toEqual([
      { header: 'prefer', parameter: 'Prefer', values: ['wait=1'], copied: true },
    ]);
    expect((await request(outer).get('/v1/after?If-Match=e')).body).toEqual([
      { header: 'if-match', parameter: 'If-Match', values: ['e'], copied: true },
    ]);
  });

  it('copies an allowed parameter into the absent header, whatever its case', async () => {
    const res = await request(app()).get('/v1/echo?PREFER=return%3Dminimal&page=2');
    expect(res.body.prefer).toBe('return=minimal');
  });

  it('removes the copied parameters from url, originalUrl and req.query, keeping the others as spelled', async () => {
    const res = await request(app()).get(
      '/v1/echo?a=x%20y&Prefer=return=minimal&b=c+d&If-Match=%22e1%22',
    );
    expect(res.body.ifMatch).toBe('"e1"');
    expect(res.body.query).toEqual({ a: 'x y', b: 'c d' });
    expect(res.body.url).toBe('/echo?a=x%20y&b=c+d');
    expect(res.body.originalUrl).toBe('/v1/echo?a=x%20y&b=c+d');
  });

  it('lets the header win over the parameter, and still removes the parameter', async () => {
    const res = await request(app())
      .get('/v1/echo?Prefer=return=minimal')
      .set('Prefer', 'return=representation');
    expect(res.body.prefer).toBe('return=representation');
    expect(res.body.query).toEqual({});
  });

  it('lets an If-Match header win over its parameter too', async () => {
    const res = await request(app()).get('/v1/echo?If-Match=%22b%22').set('If-Match', '"a"');
    expect(res.body.ifMatch).toBe('"a"');
  });

  // A browser sends its user's Accept-Language on every request: the parameter is the explicit
  // choice, as content negotiation's ?accept= is.
  it('lets the Accept-Language and Accept-Charset parameters win over the headers', async () => {
    const res = await request(app())
      .get('/v1/echo?Accept-Language=fr&accept-charset=iso-8859-1')
      .set('Accept-Language', 'en-US,en;q=0.9')
      .set('Accept-Charset', 'utf-8');
    expect(res.body.acceptLanguage).toBe('fr');
    expect(res.body.acceptCharset).toBe('iso-8859-1');
    expect(res.body.query).toEqual({});
  });

  it('records the Accept-Language parameter as copied over the header', async () => {
    const server = express();
    server.use(queryHeaders());
    server.get('/x', (req, res) => {
      res.json(queryHeadersOf(req).get('accept-language'));
    });
    const res = await request(server).get('/x?Accept-Language=fr').set('Accept-Language', 'en');
    expect(res.body).toEqual({
      header: 'accept-language',
      parameter: 'Accept-Language',
      values: ['fr'],
      copied: true,
    });
  });

  it('joins a repeated parameter as repeated field lines are joined', async () => {
    const res = await request(app()).get('/v1/echo?prefer=return=minimal&Prefer=wait=5');
    expect(res.body.prefer).toBe('return=minimal, wait=5');
  });

  it('leaves parameters that are not allowed in the query', async () => {
    const res = await request(app()).get('/v1/echo?Authorization=Bearer%20x&X-Other=1');
    expect(res.body.authorization).toBeNull();
    expect(res.body.query).toEqual({ Authorization: 'Bearer x', 'X-Other': '1' });
  });

  it('takes credentials only when enabled', async () => {
    const res = await request(app({ headers: ['Authorization'], allowCredentials: true })).get(
      '/v1/echo?authorization=Bearer%20x',
    );
    expect(res.body.authorization).toBe('Bearer x');
  });

  it('answers 400 naming the parameter for a value with a line break', async () => {
    const res = await request(app()).get('/v1/echo?Prefer=a%0D%0AX-Injected:%201');
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Prefer' });
  });

  // RFC 9110 §5.5: a field value is bytes (VCHAR, obs-text); Node's parser gives them as
  // Latin-1 characters, and its setHeader and http.request refuse any other (ERR_INVALID_CHAR),
  // so a copied `€` would make a route relaying or echoing the header fail with a 500.
  it('answers 400 naming the parameter for a value with a character beyond Latin-1', async () => {
    const res = await request(app()).get('/v1/echo?Prefer=x%E2%82%AC&If-Match=%22%F0%9F%98%80%22');
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Prefer' });
    expect(res.body.error.innererror.code).toBe('INVALID_QUERY_HEADER');
  });

  it('copies a Latin-1 character beyond ASCII, as a header field holds it', async () => {
    const res = await request(app()).get('/v1/echo?Prefer=caf%C3%A9');
    expect(res.body.prefer).toBe('café');
  });

  it('answers 400 naming the parameter for a value over maxLength', async () => {
    const res = await request(app({ maxLength: 10 })).get(`/v1/echo?If-Match=${'a'.repeat(11)}`);
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'If-Match' });
  });

  it('ignores __proto__, constructor and a malformed escape in a name it does not take', async () => {
    const res = await request(app()).get('/v1/echo?__proto__=1&%E0%A4%A=2&Prefer=x&constructor=2');
    expect(res.status).toBe(200);
    expect(res.body.prefer).toBe('x');
    expect(res.body.url).toBe('/echo?__proto__=1&%E0%A4%A=2&constructor=2');
  });

  it.each(['%E0%A4%A', '%FF', '%zz', 'a%'])(
    'answers 400 naming the parameter for a value %s that is not percent-encoded UTF-8',
    async (value) => {
      const res = await request(app()).get(`/v1/echo?If-Match=${value}&Prefer=wait=1`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'If-Match' });
      expect(res.body.error.innererror.code).toBe('INVALID_QUERY_HEADER');
    },
  );
});

describe('takeQueryHeaders', () => {
  it('records what it found once per header, with its source', () => {
    const req = { headers: { 'if-match': '"a"' }, url: '/x?if-match=%22b%22&Prefer=wait=1' };
    const first = takeQueryHeaders(req, ['If-Match', 'Prefer']);
    expect(first).toEqual([
      { header: 'if-match', parameter: 'if-match', values: ['"b"'], copied: false },
      { header: 'prefer', parameter: 'Prefer', values: ['wait=1'], copied: true },
    ]);
    expect(req.url).toBe('/x');
    expect(req.headers).toEqual({ 'if-match': '"a"', prefer: 'wait=1' });
    expect(takeQueryHeaders(req, ['prefer'])).toEqual([first[1]]);
    expect([...queryHeadersOf(req).keys()]).toEqual(['if-match', 'prefer']);
  });

  it('reads a header from a parameter of another name', () => {
    const req = { headers: {}, url: '/x?preference=return%3Dminimal' };
    takeQueryHeaders(req, [{ header: 'Prefer', parameter: 'preference' }]);
    expect(req.headers).toEqual({ prefer: 'return=minimal' });
    expect(req.url).toBe('/x');
  });

  it('changes nothing when a value is refused', () => {
    const req = { headers: {}, url: '/x?Prefer=ok&If-Match=%00' };
    expect(() => takeQueryHeaders(req, ['Prefer', 'If-Match'])).toThrow(/If-Match/);
    expect(req).toEqual({ headers: {}, url: '/x?Prefer=ok&If-Match=%00' });
  });

  it.each([['8192'], [null], [0], [Number.NaN]])(
    'refuses a maxLength of %j, which would bound nothing, naming takeQueryHeaders',
    (maxLength) => {
      const req = { headers: {}, url: '/x?Prefer=wait=1' };
      expect(() => takeQueryHeaders(req, ['Prefer'], { maxLength } as never)).toThrow(
        expect.objectContaining({
          code: 'ERR_RESOURCEFUL_INVALID_OPTION',
          factory: 'takeQueryHeaders',
          option: 'maxLength',
        }),
      );
      expect(req.url).toBe('/x?Prefer=wait=1');
    },
  );

  it('changes nothing when a value is not percent-encoded UTF-8', () => {
    const req = { headers: {}, url: '/x?Prefer=ok&If-Match=%FF' };
    expect(() => takeQueryHeaders(req, ['Prefer', 'If-Match'])).toThrow(/percent-encoded UTF-8/);
    expect(req).toEqual({ headers: {}, url: '/x?Prefer=ok&If-Match=%FF' });
  });
});

describe('queryHeaders options', () => {
  it('accepts (), {} and undefined values', () => {
    expect(() => queryHeaders()).not.toThrow();
    expect(() => queryHeaders({})).not.toThrow();
    expect(() => queryHeaders({ headers: undefined, maxLength: undefined })).not.toThrow();
  });

  it.each([
    [{ headers: ['Cookie'] }, /Cookie carries credentials.*allowCredentials: true/],
    [{ headers: ['Prefer', 'Authorization'] }, /Authorization carries credentials/],
    [{ headers: ['Host'] }, /Host cannot be taken from the query/],
    [{ headers: ['Accept'] }, /Accept cannot be taken from the query/],
    [{ headers: ['proxy-connection'] }, /proxy-connection cannot be taken from the query/],
    // What a proxy tells the service (client address, host, scheme: req.ip, req.hostname and
    // pagination links behind `trust proxy`): from the query, any client could say it.
    [{ headers: ['X-Forwarded-Host'] }, /X-Forwarded-Host cannot be taken from the query/],
    [{ headers: ['x-forwarded-for'] }, /x-forwarded-for cannot be taken from the query/],
    [{ headers: ['Forwarded'] }, /Forwarded cannot be taken from the query/],
    [{ headers: ['bad name'] }, /"headers" must be an array of header names/],
    [{ allowCredentials: 'yes' }, /"allowCredentials" must be true or false/],
    [{ maxLength: -1 }, /"maxLength" must be a positive integer/],
    [{ header: ['Prefer'] }, /Did you mean "headers"/],
    [{ headers: null }, /"headers" must be an array of header names, got null/],
    [{ allowCredentials: null }, /"allowCredentials" must be true or false, got null/],
  ])('refuses %o', (options, message) => {
    expect(() => queryHeaders(options as QueryHeadersOptions)).toThrow(message);
  });
});
