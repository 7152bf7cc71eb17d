import { conditionalRequests, conditionalWrite, etagFor } from '@resourceful/conditional-requests';
import { asyncHandler, errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, parseXmlMirror } from '@resourceful/test-support';
import type { Request, Response } from 'express';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { contentNegotiation } from '../src/index.js';
import { buildApp, CARD } from './app.js';

describeEachExpress('compression', (express) => {
  const app = buildApp(express);

  describe.each([
    ['gzip', 'gzip'],
    ['deflate', 'deflate'],
    ['br', 'br'],
    ['gzip, deflate, br', 'br'],
    ['gzip;q=0.5, deflate', 'deflate'],
    ['*', 'br'],
    ['identity', undefined],
    ['gzip;q=0', undefined],
    ['compress', undefined],
    ['', undefined],
  ])('when "Accept-Encoding: %s"', (acceptEncoding, expected) => {
    it(`answers ${expected ?? 'identity'}, with a tag naming the coding`, async () => {
      const res = await request(app).get('/card').set('Accept-Encoding', acceptEncoding);
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBe(expected);
      expect(res.body).toEqual(CARD);
      expect(res.headers.vary).toMatch(/Accept-Encoding/);
      expect(res.headers.etag).toBe(
        expected === undefined ? etagFor(CARD) : `"${etagFor(CARD).slice(1, -1)}~${expected}"`,
      );
    });
  });

  // RFC 9110 §12.5.3: with identity refused and no coding acceptable, the origin server SHOULD
  // respond without any content coding; RFC 7231 moved away from 406 on purpose.
  describe.each([
    'identity;q=0',
    '*;q=0',
    'identity;q=0, *;q=0',
    'br;q=0, gzip;q=0, deflate;q=0, identity;q=0',
    'compress, identity;q=0',
  ])(
    'when "Accept-Encoding: %s" refuses identity and accepts no coding served',
    (acceptEncoding) => {
      it('answers 200 without a content coding, on GET and HEAD', async () => {
        const res = await request(app).get('/card').set('Accept-Encoding', acceptEncoding);
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.body).toEqual(CARD);
        expect(res.headers.vary).toMatch(/Accept-Encoding/);
        expect(res.headers.etag).toBe(etagFor(CARD));
        const head = await request(app).head('/card').set('Accept-Encoding', acceptEncoding);
        expect(head.status).toBe(200);
        expect(head.headers['content-encoding']).toBeUndefined();
        expect(head.headers['content-length']).toBe(res.headers['content-length']);
      });
    },
  );

  it('codes with what is left when identity alone is refused ("identity;q=0, gzip")', async () => {
    const res = await request(app).get('/card').set('Accept-Encoding', 'identity;q=0, gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(res.body).toEqual(CARD);
  });

  it('compresses the smallest body (threshold 0 by default)', async () => {
    const res = await request(app).get('/greeting').set('Accept-Encoding', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
  });

  it('leaves bodies under the threshold alone, and their tag names no coding', async () => {
    const thresholded = buildApp(express, { compression: { threshold: 100_000 } });
    const res = await request(thresholded).get('/card').set('Accept-Encoding', 'gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.etag).toBe(etagFor(CARD));
  });

  it('leaves a 206 uncoded: its Content-Range counts the identity form (RFC 9110 §14.4)', async () => {
    const ranged = buildApp(express, {}, (a) => {
      a.get('/range', contentNegotiation(), (_req, res) => {
        res.status(206).set('Content-Range', 'bytes 0-9/100').type('text/plain').send('0123456789');
      });
    });
    const res = await request(ranged).get('/range').set('Accept-Encoding', 'gzip');
    expect(res.status).toBe(206);
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.text).toBe('0123456789');
  });

  it('respects Cache-Control: no-transform', async () => {
    const res = await request(app).get('/no-transform').set('Accept-Encoding', 'gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(res.headers.etag).toBe(etagFor(CARD));
  });

  it('sends 204 without Content-Encoding', async () => {
    const res = await request(app).get('/empty').set('Accept-Encoding', 'gzip');
    expect(res.status).toBe(204);
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('answers HEAD with exactly the headers of the GET', async () => {
    const get = await request(app).get('/card').set('Accept-Encoding', 'gzip');
    const head = await request(app).head('/card').set('Accept-Encoding', 'gzip');
    for (const name of ['content-type', 'content-encoding', 'content-length', 'etag', 'vary']) {
      expect(head.headers[name], name).toBe(get.headers[name]);
    }
  });

  it('does not compress with { compression: false }', async () => {
    const off = buildApp(express, { compression: false });
    const res = await request(off).get('/card').set('Accept-Encoding', 'gzip');
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  describe('validators (RFC 9110 §8.8.3)', () => {
    it('answers 304 to If-None-Match with the compressed tag, without Content-Encoding', async () => {
      const first = await request(app).get('/card').set('Accept-Encoding', 'gzip');
      const again = await request(app)
        .get('/card')
        .set('Accept-Encoding', 'gzip')
        .set('If-None-Match', String(first.headers.etag));
      expect(again.status).toBe(304);
      expect(again.headers.etag).toBe(first.headers.etag);
      expect(again.headers['content-encoding']).toBeUndefined();
    });

    it.each([
      ['gzip', 'gzip'],
      ['no Accept-Encoding', undefined],
    ])('answers 304 with the Vary of the 200 (RFC 9110 §15.4.5), %s', async (_title, coding) => {
      const get = () => {
        const req = request(app).get('/card');
        return coding === undefined ? req : req.set('Accept-Encoding', coding);
      };
      const first = await get();
      const again = await get().set('If-None-Match', String(first.headers.etag));
      expect(again.status).toBe(304);
      // The same fields; their order carries no meaning (RFC 9110 §12.5.5).
      const fields = (vary: string | undefined) => (vary ?? '').split(/\s*,\s*/).sort();
      expect(fields(again.headers.vary)).toEqual(fields(first.headers.vary));
      expect(fields(again.headers.vary)).toContain('Accept-Encoding');
    });

    it('answers 200 to a client holding the identity form that now accepts gzip', async () => {
      const res = await request(app)
        .get('/card')
        .set('Accept-Encoding', 'gzip')
        .set('If-None-Match', etagFor(CARD));
      expect(res.status).toBe(200);
    });
  });
});

describeEachExpress('read, then a conditional write, in every representation', (express) => {
  function app() {
    let card = { ...CARD };
    const server = express();
    server.use(contentNegotiation());
    server.use(conditionalRequests());
    server.use(express.json());
    server.get('/card', (_req, res) => {
      res.json(card);
    });
    server.put(
      '/card',
      asyncHandler(async (req: Request, res: Response) => {
        await conditionalWrite(req, {
          identity: 'card',
          load: () => card,
          etag: (current) => etagFor(current),
          write: () => {
            card = { ...card, ...(req.body as object) };
          },
        });
        res.status(204).end();
      }),
    );
    server.use(errorHandler());
    return server;
  }

  it.each([
    ['gzip', 'application/json'],
    ['br', 'application/xml'],
    ['identity', 'text/xml'],
    ['deflate', 'application/json'],
  ])('Accept-Encoding: %s, Accept: %s', async (encoding, accept) => {
    const server = app();
    const read = await request(server)
      .get('/card')
      .set('Accept-Encoding', encoding)
      .set('Accept', accept);
    const tag = String(read.headers.etag);
    expect(tag).not.toBe(
      encoding === 'identity' && accept === 'application/json' ? '' : etagFor(CARD),
    );
    if (accept !== 'application/json') expect(parseXmlMirror(read.text)).toEqual(CARD);

    const fresh = await request(server)
      .get('/card')
      .set('Accept-Encoding', encoding)
      .set('Accept', accept)
      .set('If-None-Match', tag);
    expect(fresh.status).toBe(304);

    const write = await request(server)
      .put('/card')
      .set('Accept', accept)
      .set('If-Match', tag)
      .send({ name: 'Ada' });
    expect(write.status).toBe(204);

    const stale = await request(server)
      .put('/card')
      .set('Accept', accept)
      .set('If-Match', tag)
      .send({ name: 'Grace' });
    expect(stale.status).toBe(412);
  });
});
