import {
  describeEachExpress,
  expectErrorEnvelope,
  listen,
  rawExchange,
  rawRequestOnce,
} from '@resourceful/test-support';
import type { Request, Response } from 'express';
import request from 'supertest';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import {
  ApiError,
  asyncHandler,
  type ErrorHandlerOptions,
  type ErrorReport,
  errorHandler,
  type NotFoundHandlerOptions,
  notFoundHandler,
  parseErrorBody,
  sendError,
  wasCutByErrorHandler,
} from '../src/index.js';

const cardSchema = z.object({
  number: z.string().min(12),
  expire_month: z.string(),
  billing_address: z.object({ city: z.string() }).optional(),
  tags: z.array(z.string()).optional(),
});

describeEachExpress('errorHandler', (express, version) => {
  let reports: ErrorReport[];

  function app(options: ErrorHandlerOptions = {}) {
    const app = express();
    app.use(express.json({ limit: '1kb' }));
    app.post('/cards', (req: Request, res: Response) => {
      res.status(201).json(cardSchema.parse(req.body));
    });
    app.get('/api-error', () => {
      throw ApiError.serviceUnavailable('Store down.', { retryAfter: 30 });
    });
    app.get('/boom', () => {
      throw new Error('secret connection string postgres://u:p@db');
    });
    app.get('/cards/:card_id', (req: Request, res: Response) => {
      res.json({ id: req.params.card_id });
    });
    const owners = express.Router();
    owners.get('/:owner_id/cards/:card_id', (req: Request, res: Response) => {
      res.json(req.params);
    });
    app.use('/owners', owners);
    app.get('/decodes-itself', () => {
      decodeURIComponent('%FF');
    });
    app.get('/throws-string', () => {
      throw 'a string';
    });
    app.get('/http-error', (_req, _res, next) => {
      next(Object.assign(new Error('Nope, teapot'), { status: 418, expose: true }));
    });
    app.get('/http-error-hidden', (_req, _res, next) => {
      next(Object.assign(new Error('internal detail'), { statusCode: 403 }));
    });
    app.get(
      '/async',
      asyncHandler(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        throw ApiError.conflict('async conflict');
      }),
    );
    app.get('/etag-then-fail', (_req, res) => {
      res.setHeader('ETag', '"v1"');
      res.setHeader('Location', '/x');
      res.setHeader('Vary', 'Prefer');
      throw ApiError.preconditionFailed();
    });
    app.get('/half-sent', (_req, res, next) => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.write('partial');
      next(new Error('failed mid-stream'));
    });
    app.get('/sent-then-fail', (_req, res, next) => {
      res.json({ ok: true });
      next(new Error('after the end'));
    });
    app.get('/http-error-headers', (_req, _res, next) => {
      next(
        Object.assign(new Error('Bearer token required'), {
          status: 401,
          expose: true,
          headers: { 'WWW-Authenticate': 'Bearer realm="api"', 'Bad Name': 'x', 'X-Bad': 'a\nb' },
        }),
      );
    });
    app.get('/http-error-5xx', (_req, _res, next) => {
      next(
        Object.assign(new Error('Response timeout after 5000ms to db-7'), {
          status: 503,
          expose: false,
          headers: { 'Retry-After': 5 },
        }),
      );
    });
    // An upstream failure that hands on the upstream response's headers (`createError(502,
    // { headers: upstream.headers })`): its framing and coding describe the upstream body.
    app.get('/http-error-upstream-headers', (_req, _res, next) => {
      next(
        Object.assign(new Error('Bad gateway'), {
          status: 502,
          headers: {
            'Content-Type': 'text/html',
            'Content-Length': '1234',
            'Transfer-Encoding': 'chunked',
            'Content-Encoding': 'gzip',
            Connection: 'keep-alive',
            'Keep-Alive': 'timeout=5',
            Trailer: 'Expires',
            'Retry-After': '7',
          },
        }),
      );
    });
    app.get('/unserialisable', () => {
      throw new ApiError({
        status: 409,
        code: 'CONFLICT',
        message: 'Version clash.',
        target: 'id',
        innererror: { code: 'CLASH', version: 10n },
      });
    });
    app.get('/bad-header', () => {
      throw ApiError.tooManyRequests(undefined, {
        retryAfter: 3,
        headers: { 'X-Trace': 'a\r\nSet-Cookie: session=evil' },
      });
    });
    app.get('/bad-code', () => {
      throw new ApiError({ status: 422, code: 'BAD\nCODE', message: 'Odd code.' });
    });
    app.get('/null-prototype', (_req, _res, next) => {
      next(Object.create(null));
    });
    app.get('/unreadable/:kind', (req, _res, next) => {
      const unreadable: Record<string, () => unknown> = {
        getter: () => {
          const error = new Error('x');
          Object.defineProperty(error, 'status', {
            get() {
              throw new Error('getter');
            },
          });
          return error;
        },
        proxy: () =>
          new Proxy(
            {},
            {
              get() {
                throw new Error('trap');
              },
              getPrototypeOf() {
                throw new Error('trap');
              },
            },
          ),
        'zod-shaped': () => ({ name: 'ZodError', issues: [null, 5] }),
        // The brand is a registered symbol, shared by every copy of the package: an ApiError of
        // a copy whose shape differs (another major) or an object that only carries the brand.
        'foreign ApiError without headers': () => ({
          [Symbol.for('@resourceful/error-envelope.ApiError')]: true,
          status: 409,
          code: 'CONFLICT',
          message: 'Clash.',
        }),
        'foreign ApiError with a bad status': () => ({
          [Symbol.for('@resourceful/error-envelope.ApiError')]: true,
          status: '409',
          code: 'CONFLICT',
          message: 'Clash.',
          headers: {},
          details: [],
          toJSON: () => ({ error: { code: 'CONFLICT', message: 'Clash.' } }),
        }),
        'ApiError with a throwing getter': () =>
          Object.defineProperty(ApiError.conflict('Clash.'), 'headers', {
            get() {
              throw new Error('getter');
            },
          }),
      };
      next(unreadable[String(req.params.kind)]?.());
    });
    app.post('/card-list', (req: Request, res: Response) => {
      res.json(z.array(cardSchema).parse(req.body));
    });
    app.use(notFoundHandler());
    app.use(errorHandler({ onError: (report) => reports.push(report), ...options }));
    return app;
  }

  beforeEach(() => {
    reports = [];
  });

  describe('when the JSON body is valid JSON but not an object or array', () => {
    it.each(['null', '42', '"card"', 'true'])(
      'answers 400 MALFORMED_REQUEST saying so for %s',
      async (body) => {
        const res = await request(app())
          .post('/cards')
          .set('Content-Type', 'application/json')
          .send(body);
        expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
        expect(res.body.error.message).toBe('The request body must be a JSON object or array.');
      },
    );
  });

  describe('when the JSON body is malformed', () => {
    it('answers 400 MALFORMED_REQUEST', async () => {
      const res = await request(app())
        .post('/cards')
        .set('Content-Type', 'application/json')
        .send('{"number": ');
      expectErrorEnvelope(res, 400, { code: 'MALFORMED_REQUEST' });
      expect(res.headers['error-code']).toBe('MALFORMED_REQUEST');
      expect(res.body.error.message).toBe('The request body is not valid JSON.');
    });

    it('does not echo the body back', async () => {
      const res = await request(app())
        .post('/cards')
        .set('Content-Type', 'application/json')
        .send('{"<script>alert(1)</script>"');
      expect(res.status).toBe(400);
      expect(res.text).not.toContain('script');
    });
  });

  it('answers 413 PAYLOAD_TOO_LARGE naming the limit when the body exceeds the parser limit', async () => {
    const res = await request(app())
      .post('/cards')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ number: 'x'.repeat(4096) }));
    expectErrorEnvelope(res, 413, { code: 'PAYLOAD_TOO_LARGE' });
    expect(res.body.error.message).toBe('The request body is larger than 1024 bytes.');
    expect(res.body.error.innererror).toEqual({ code: 'BODY_TOO_LARGE', max_bytes: 1024 });
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for an unsupported charset', async () => {
    const res = await request(app())
      .post('/cards')
      .set('Content-Type', 'application/json; charset=klingon')
      .send('{}');
    expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
  });

  it('answers 415 UNSUPPORTED_MEDIA_TYPE for an unsupported content encoding', async () => {
    const res = await request(app())
      .post('/cards')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'compress-9000')
      .send('{}');
    expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Encoding' });
  });

  describe('when a zod schema rejects the body', () => {
    it('answers 400 with one detail per issue, targets as field paths', async () => {
      const res = await request(app())
        .post('/cards')
        .send({ number: 'short', billing_address: { city: 7 }, tags: ['a', 3] });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
      const targets = res.body.error.details.map((d: { target: string }) => d.target).sort();
      expect(targets).toEqual(['billing_address.city', 'expire_month', 'number', 'tags[1]']);
      for (const detail of res.body.error.details) {
        expect(detail.code).toBe('VALIDATION_ERROR');
        expect(detail.message).toBeTypeOf('string');
      }
    });

    it('names the field as the top-level target when there is one issue', async () => {
      const res = await request(app()).post('/cards').send({ number: '4111111111111111' });
      expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR', target: 'expire_month' });
    });
  });

  describe('when the error is unknown', () => {
    it('answers 500 with a generic message and no internals', async () => {
      const res = await request(app()).get('/boom');
      expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
      expect(res.text).not.toContain('postgres');
      expect(res.text).not.toContain('at ');
      expect(res.body.error.innererror).toBeUndefined();
    });

    it.each([
      'getter',
      'proxy',
      'zod-shaped',
      'foreign ApiError without headers',
      'foreign ApiError with a bad status',
      'ApiError with a throwing getter',
    ])(
      'answers the 500 envelope when the error cannot be read (%s), and reports the cause',
      async (kind) => {
        const res = await request(app()).get(`/unreadable/${kind}`);
        expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
        expect(reports).toHaveLength(1);
        expect(reports[0]?.fault).toBe(true);
      },
    );

    it('handles a thrown non-Error', async () => {
      const res = await request(app()).get('/throws-string');
      expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
    });

    it('shows message and stack in innererror with exposeInternals', async () => {
      const res = await request(app({ exposeInternals: true })).get('/boom');
      expectErrorEnvelope(res, 500);
      expect(res.body.error.innererror.message).toContain('postgres');
      expect(res.body.error.innererror.stack).toContain('Error');
    });
  });

  it('sends an ApiError with its status, headers and Retry-After', async () => {
    const res = await request(app()).get('/api-error');
    expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
    expect(res.headers['retry-after']).toBe('30');
    expect(res.body.error.message).toBe('Store down.');
  });

  it('maps an exposed http-errors style 4xx to the catalogue with its message', async () => {
    const res = await request(app()).get('/http-error');
    expectErrorEnvelope(res, 418, { code: 'INVALID_REQUEST' });
    expect(res.body.error.message).toBe('Nope, teapot');
  });

  it('hides the message of an unexposed 4xx', async () => {
    const res = await request(app()).get('/http-error-hidden');
    expectErrorEnvelope(res, 403);
    expect(res.text).not.toContain('internal detail');
  });

  it("says what an unexposed 4xx is, with its catalogue code's meaning", async () => {
    const res = await request(app()).get('/http-error-hidden');
    expectErrorEnvelope(res, 403, { code: 'FORBIDDEN' });
    expect(res.body.error.message).toBe('The caller may not do this to this resource.');
  });

  it(`routes async rejections to the handler under ${version.name}`, async () => {
    const res = await request(app()).get('/async');
    expectErrorEnvelope(res, 409, { code: 'CONFLICT' });
    expect(reports).toHaveLength(1);
  });

  it('removes representation headers set before the failure, keeps Vary', async () => {
    const res = await request(app()).get('/etag-then-fail');
    expectErrorEnvelope(res, 412);
    expect(res.headers.etag).toBeUndefined();
    expect(res.headers.location).toBeUndefined();
    expect(res.headers.vary).toBe('Prefer');
  });

  it('answers HEAD with the status and headers but no body', async () => {
    const res = await request(app()).head('/api-error');
    expect(res.status).toBe(503);
    expect(res.headers['error-code']).toBe('SERVICE_UNAVAILABLE');
    expect(res.text ?? '').toBe('');
  });

  describe('when a path parameter is not valid percent-encoded UTF-8', () => {
    const rawGet = (path: string) =>
      rawRequestOnce(app(), `GET ${path} HTTP/1.1\r\nHost: x`, parseErrorBody);

    it.each([
      ['a byte that is not UTF-8', '/cards/%FF'],
      ['a "%" without two hex digits', '/cards/%zz'],
      ['a "%" at the end', '/cards/12%'],
      ['a truncated UTF-8 sequence', '/cards/%E2%82'],
      ['an encoded surrogate', '/cards/%ED%A0%80'],
      ['a parameter of a mounted router', '/owners/ok/cards/%FF'],
    ])('answers 400 MALFORMED_PATH_PARAMETER with target path for %s', async (_, path) => {
      const { status, body } = await rawGet(path);
      expect(status).toBe(400);
      expect(body).toMatchObject({
        code: 'INVALID_REQUEST',
        target: 'path',
        innererror: { code: 'MALFORMED_PATH_PARAMETER' },
      });
      expect(body?.message).toMatch(/percent-encoded UTF-8/);
      // The raw bytes are not echoed back.
      expect(JSON.stringify(body)).not.toMatch(/%FF|%zz|%E2/);
      expect(reports).toMatchObject([{ status: 400, kind: 'client-error' }]);
    });

    it('decodes a well-formed parameter as usual', async () => {
      const { status, body } = await rawRequestOnce(
        app(),
        'GET /cards/%41%20b%2F HTTP/1.1\r\nHost: x',
      );
      expect(status).toBe(200);
      expect(body).toEqual({ id: 'A b/' });
    });

    it("keeps a URIError thrown by a handler a 500 fault: only the router's is the client's", async () => {
      const res = await request(app()).get('/decodes-itself');
      expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
      expect(reports[0]).toMatchObject({ status: 500, kind: 'fault' });
    });
  });

  describe('when an http-errors style error carries headers', () => {
    it('sends its valid headers, as Express does (WWW-Authenticate on a 401)', async () => {
      const res = await request(app()).get('/http-error-headers');
      expectErrorEnvelope(res, 401, { code: 'UNAUTHENTICATED' });
      expect(res.headers['www-authenticate']).toBe('Bearer realm="api"');
      expect(res.headers['x-bad']).toBeUndefined();
    });

    it('leaves out the headers that frame or encode a body, so the envelope stays readable', async () => {
      const server = await listen(app());
      const { text: res } = await rawExchange(
        server.port,
        'GET /http-error-upstream-headers HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ).finally(() => server.close());
      expect(res).toMatch(/^HTTP\/1\.1 502 /);
      const head = res.slice(0, res.indexOf('\r\n\r\n')).toLowerCase();
      expect(head).not.toContain('transfer-encoding');
      expect(head).not.toContain('content-encoding');
      expect(head).not.toContain('keep-alive');
      expect(head).not.toContain('trailer');
      expect(head).toContain('content-type: application/json; charset=utf-8');
      expect(head).toContain('retry-after: 7');
      const body = res.slice(res.indexOf('\r\n\r\n') + 4);
      expect(head).toContain(`content-length: ${Buffer.byteLength(body)}`);
      expect(JSON.parse(body).error.code).toBe('UPSTREAM_ERROR');
    });

    it('keeps a 5xx status with its headers, hiding the message', async () => {
      const res = await request(app()).get('/http-error-5xx');
      expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(res.headers['retry-after']).toBe('5');
      expect(res.text).not.toContain('db-7');
      expect(reports[0]).toMatchObject({ status: 503, kind: 'fault' });
    });
  });

  it('leaves out an ApiError header node:http would refuse, and sends the envelope', async () => {
    const res = await request(app()).get('/bad-header');
    expectErrorEnvelope(res, 429, { code: 'TOO_MANY_REQUESTS' });
    expect(res.headers['retry-after']).toBe('3');
    expect(res.headers['set-cookie']).toBeUndefined();
    expect(res.headers['x-trace']).toBeUndefined();
  });

  it('sends the envelope without the code header when the code cannot be a header value', async () => {
    const res = await request(app()).get('/bad-code');
    expectErrorEnvelope(res, 422, { code: 'BAD\nCODE' });
    expect(res.headers['error-code']).toBeUndefined();
  });

  it('still sends an envelope when innererror cannot be serialised', async () => {
    const res = await request(app()).get('/unserialisable');
    expectErrorEnvelope(res, 409, { code: 'CONFLICT', target: 'id' });
    expect(res.body.error.message).toBe('Version clash.');
    expect(res.body.error.innererror).toBeUndefined();
  });

  it('describes a value without prototype in innererror with exposeInternals', async () => {
    const res = await request(app({ exposeInternals: true })).get('/null-prototype');
    expectErrorEnvelope(res, 500, { code: 'INTERNAL_SERVER_ERROR' });
    expect(res.body.error.innererror).toEqual({ code: 'NonError', message: '[object Object]' });
  });

  it('lists at most 100 validation details, however many the body has', async () => {
    const res = await request(app({}))
      .post('/card-list')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify(Array.from({ length: 150 }, () => ({}))));
    expectErrorEnvelope(res, 400, { code: 'VALIDATION_ERROR' });
    expect(res.body.error.details).toHaveLength(100);
    expect(res.body.error.message).toBe(
      'The request failed validation (300 problems; the first 100 are listed).',
    );
  });

  it('uses a custom code header, or none', async () => {
    const custom = await request(app({ codeHeader: 'x-ms-error-code' })).get('/api-error');
    expect(custom.headers['x-ms-error-code']).toBe('SERVICE_UNAVAILABLE');
    expect(custom.headers['error-code']).toBeUndefined();
    const none = await request(app({ codeHeader: false })).get('/api-error');
    expect(none.headers['error-code']).toBeUndefined();
  });

  describe('when headers were already sent', () => {
    it('cuts the connection instead of crashing', async () => {
      const server = await listen(app());
      try {
        await expect(fetch(`${server.url}/half-sent`).then((r) => r.text())).rejects.toThrow();
        expect(reports[0]?.headersSent).toBe(true);
        // Marked, so that a middleware holding state for the response (an idempotency lock)
        // can tell a cut from a client that went away.
        const cut = reports[0]?.req as (Request & { res: Response }) | undefined;
        expect(cut && wasCutByErrorHandler(cut.res)).toBe(true);
        // The server keeps serving.
        const next = await fetch(`${server.url}/api-error`);
        expect(next.status).toBe(503);
      } finally {
        await server.close();
      }
    });

    it('keeps a finished response as it was', async () => {
      const res = await request(app()).get('/sent-then-fail');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ok: true });
      expect(reports[0]).toMatchObject({ headersSent: true, status: 500 });
      const sent = reports[0]?.req as (Request & { res: Response }) | undefined;
      expect(sent && wasCutByErrorHandler(sent.res)).toBe(false);
    });
  });

  describe('onError', () => {
    it('reports a 5xx as a fault', async () => {
      await request(app()).get('/boom');
      expect(reports).toHaveLength(1);
      expect(reports[0]).toMatchObject({ status: 500, kind: 'fault', fault: true });
      expect((reports[0]!.cause as Error).message).toContain('postgres');
    });

    it('reports a 4xx as a client error', async () => {
      await request(app()).get('/nowhere');
      expect(reports[0]).toMatchObject({ status: 404, kind: 'client-error', fault: false });
    });

    it('still answers, and passes nothing on, when onError throws', async () => {
      const passedOn: unknown[] = [];
      const failing = express();
      failing.get('/', () => {
        throw ApiError.notFound();
      });
      failing.use(
        errorHandler({
          onError: () => {
            throw new Error('metrics backend down');
          },
        }),
      );
      failing.use((err: unknown, _req: Request, _res: Response, next: (err?: unknown) => void) => {
        passedOn.push(err);
        next();
      });
      const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
      try {
        const res = await request(failing).get('/');
        expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
        expect(passedOn).toEqual([]);
        expect(logged).toHaveBeenCalledTimes(1);
      } finally {
        logged.mockRestore();
      }
    });

    it('reports a throttling 503 as throttled, not a fault', async () => {
      const throttled = express();
      throttled.get('/', () => {
        throw ApiError.serviceUnavailable('busy', { throttling: true, retryAfter: 1 });
      });
      throttled.use(errorHandler({ onError: (report) => reports.push(report) }));
      await request(throttled).get('/');
      expect(reports[0]).toMatchObject({ status: 503, kind: 'throttled', fault: false });
    });
  });
});

describeEachExpress('notFoundHandler', (express) => {
  it('answers 404 NOT_FOUND for an unmatched route without echoing the path', async () => {
    const app = express();
    app.get('/known', (_req, res) => {
      res.json({});
    });
    app.use(notFoundHandler());
    app.use(errorHandler());
    const res = await request(app).get('/unknown-%3Cb%3E');
    expectErrorEnvelope(res, 404, { code: 'NOT_FOUND' });
    expect(res.text).not.toContain('unknown');
  });

  it('takes a custom message', async () => {
    const app = express();
    app.use(notFoundHandler({ message: 'Nothing here.' }));
    app.use(errorHandler());
    const res = await request(app).post('/x');
    expect(res.body.error.message).toBe('Nothing here.');
  });
});

describe('errorHandler and notFoundHandler options', () => {
  it('accept (), {} and undefined values', () => {
    expect(errorHandler().name).toBe('errorEnvelopeHandler');
    expect(() =>
      errorHandler({ exposeInternals: undefined, codeHeader: undefined, onError: undefined }),
    ).not.toThrow();
    expect(() => errorHandler({ codeHeader: false })).not.toThrow();
    expect(notFoundHandler({}).name).toBe('notFoundEnvelopeHandler');
  });

  it.each([
    [{ exposeInternal: true }, /unknown option "exposeInternal"/, 'ERR_RESOURCEFUL_UNKNOWN_OPTION'],
    [
      { exposeInternals: 'yes' },
      /"exposeInternals" must be a boolean/,
      'ERR_RESOURCEFUL_INVALID_OPTION',
    ],
    [
      { codeHeader: 'Error Code' },
      /"codeHeader" must be a header name/,
      'ERR_RESOURCEFUL_INVALID_OPTION',
    ],
    [{ codeHeader: '' }, /"codeHeader" must be a header name/, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [{ codeHeader: true }, /"codeHeader" must be a header name/, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [{ onError: 'log' }, /"onError" must be a function/, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [{ retryAfter: -1 }, /"retryAfter" must be a whole number/, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [null, /options must be an object/, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT'],
  ])('errorHandler refuses %j', (options, message, code) => {
    expect(() => errorHandler(options as ErrorHandlerOptions)).toThrow(message);
    expect(thrownBy(() => errorHandler(options as ErrorHandlerOptions))).toMatchObject({
      name: 'TypeError',
      code,
      factory: 'errorHandler',
    });
  });

  it.each([
    [{ mesage: 'x' }, /unknown option "mesage"/, 'ERR_RESOURCEFUL_UNKNOWN_OPTION'],
    [{ message: 42 }, /"message" must be a non-empty string/, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [{ message: '' }, /"message" must be a non-empty string/, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [{ message: '  ' }, /"message" must be a non-empty string/, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [{ message: null }, /"message" must be a non-empty string/, 'ERR_RESOURCEFUL_INVALID_OPTION'],
    [[], /options must be an object/, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT'],
  ])('notFoundHandler refuses %j', (options, message, code) => {
    expect(() => notFoundHandler(options as NotFoundHandlerOptions)).toThrow(message);
    expect(thrownBy(() => notFoundHandler(options as NotFoundHandlerOptions))).toMatchObject({
      code,
      factory: 'notFoundHandler',
    });
  });

  it('names the option at fault, with a stable code, for sendError', () => {
    expect(
      thrownBy(() => sendError({ req: undefined } as never, new Error('x'), { retryAfter: 1.5 })),
    ).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'retryAfter',
      factory: 'sendError',
    });
  });
});

function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}
