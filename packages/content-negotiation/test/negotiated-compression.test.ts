import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope } from '@resourceful/test-support';
import type { Express, RequestHandler } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { MAX_ACCEPT_HEADER_ELEMENTS, negotiatedCompression } from '../src/index.js';

const PAGE = `<!doctype html><title>Reference</title>${'<p>text</p>'.repeat(40)}`;

function fields(vary: string | undefined): string[] {
  return (vary ?? '').split(/\s*,\s*/).filter(Boolean);
}

describeEachExpress('negotiatedCompression()', (express) => {
  function build(compress: RequestHandler = negotiatedCompression() as RequestHandler): Express {
    const app = express();
    app.get('/page', compress, (_req, res) => {
      res.set('ETag', '"page"').type('html').send(PAGE);
    });
    app.get('/image', compress, (_req, res) => {
      res.type('png').send(Buffer.alloc(64, 1));
    });
    app.get('/range', compress, (_req, res) => {
      res.status(206).set('Content-Range', 'bytes 0-9/440').type('html').send(PAGE.slice(0, 10));
    });
    app.get('/no-transform', compress, (_req, res) => {
      res.set('Cache-Control', 'no-transform').type('html').send(PAGE);
    });
    app.get('/empty', compress, (_req, res) => {
      res.status(204).end();
    });
    app.use(errorHandler());
    return app;
  }
  const app = build();

  describe.each([
    ['gzip', 'gzip'],
    ['gzip, deflate, br', 'br'],
    ['gzip;q=0.5, deflate', 'deflate'],
    ['identity', undefined],
    ['identity;q=0', undefined],
    ['*;q=0', undefined],
    ['', undefined],
  ])('when "Accept-Encoding: %s"', (acceptEncoding, expected) => {
    it(`answers ${expected ?? 'identity'} with Vary: Accept-Encoding`, async () => {
      const res = await request(app).get('/page').set('Accept-Encoding', acceptEncoding);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(expected);
      expect(res.text).toBe(PAGE);
      expect(fields(res.headers.vary)).toEqual(['Accept-Encoding']);
    });
  });

  it('answers HEAD with the headers of the coded GET, without Content-Length', async () => {
    const get = await request(app).get('/page').set('Accept-Encoding', 'gzip');
    const head = await request(app).head('/page').set('Accept-Encoding', 'gzip');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('gzip');
    expect(head.headers['content-length']).toBeUndefined();
    expect(head.headers['transfer-encoding']).toBe('chunked');
    for (const name of ['content-type', 'vary', 'etag', 'transfer-encoding']) {
      expect(head.headers[name], name).toBe(get.headers[name]);
    }
  });

  it('answers an uncoded HEAD with the GET’s Content-Length', async () => {
    const head = await request(app).head('/page');
    expect(head.headers['content-encoding']).toBeUndefined();
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(PAGE)));
  });

  it('answers 304 with Vary: Accept-Encoding and no coding (RFC 9110 §15.4.5)', async () => {
    const res = await request(app)
      .get('/page')
      .set('Accept-Encoding', 'gzip')
      .set('If-None-Match', '"page"');
    expect(res.status).toBe(304);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(fields(res.headers.vary)).toEqual(['Accept-Encoding']);
  });

  it.each([
    ['a type not worth compressing', '/image'],
    ['a 206, whose Content-Range counts the identity form', '/range'],
    ['Cache-Control: no-transform', '/no-transform'],
    ['a 204', '/empty'],
  ])('leaves %s uncoded', async (_title, path) => {
    const res = await request(app).get(path).set('Accept-Encoding', 'gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('leaves bodies under its threshold uncoded', async () => {
    const thresholded = build(negotiatedCompression({ threshold: 100_000 }) as RequestHandler);
    const res = await request(thresholded).get('/page').set('Accept-Encoding', 'gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.text).toBe(PAGE);
  });

  it.each([
    ['beyond the bounds', 'gzip,'.repeat(MAX_ACCEPT_HEADER_ELEMENTS)],
    ['with a weight that is no number', 'gzip;q=high'],
  ])('answers 400 naming Accept-Encoding %s', async (_title, value) => {
    const res = await request(app).get('/page').set('Accept-Encoding', value);
    expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Accept-Encoding' });
  });
});

describe('negotiatedCompression() options', () => {
  it.each([[undefined], [{}], [{ threshold: undefined, level: undefined }]])(
    'takes the defaults from %j',
    (options) => {
      expect(typeof negotiatedCompression(options)).toBe('function');
    },
  );

  it.each([
    [{ threshhold: 0 }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION', 'threshhold'],
    [{ threshold: -1 }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'threshold'],
    [{ level: 10 }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'level'],
    ['fast', 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
    [null, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
  ])('refuses %j with %s', (options, code, option) => {
    expect(() => negotiatedCompression(options as never)).toThrow(
      expect.objectContaining({
        code,
        factory: 'negotiatedCompression',
        ...(option === undefined ? {} : { option }),
      }),
    );
  });

  it('does not change the options object', () => {
    const options = Object.freeze({ threshold: 10 });
    negotiatedCompression(options);
    expect(options).toEqual({ threshold: 10 });
  });
});
