/**
 * Responses whose bytes were encoded (`Content-Encoding`) before they reached the capture: an
 * encoder mounted after the middleware, or a handler sending an encoded body itself. The
 * header is never replayed, so such bytes are never replayed either.
 */
import { createGzip, gzipSync } from 'node:zlib';
import { errorHandler } from '@resourceful/error-envelope';
import { describeEachExpress, expectErrorEnvelope, listen } from '@resourceful/test-support';
import type { NextFunction, Request, Response } from 'express';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { serviceRequestIdempotency } from '../src/index.js';

type End = Response['end'];
type Write = Response['write'];

/** Gzips the whole body given to `end` (a handler's `res.json`), for clients accepting gzip. */
function gzipOnEnd(req: Request, res: Response, next: NextFunction) {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  res.end = ((chunk?: unknown, ...rest: unknown[]) => {
    if (chunk !== undefined && /gzip/.test(String(req.headers['accept-encoding']))) {
      res.setHeader('Content-Encoding', 'gzip');
      res.removeHeader('Content-Length');
      return end(gzipSync(chunk as string | Buffer), ...rest);
    }
    return end(chunk, ...rest);
  }) as End;
  next();
}

/**
 * As `compression` does: the coding is chosen when the head is written (below the middleware
 * when mounted before it), and every chunk then goes through one gzip stream.
 */
function gzipStream(_req: Request, res: Response, next: NextFunction) {
  const write = res.write.bind(res) as (chunk: unknown) => boolean;
  const end = res.end.bind(res) as () => Response;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
  const gzip = createGzip();
  gzip.on('data', (chunk: Buffer) => write(chunk));
  gzip.on('end', () => end());
  res.writeHead = ((...args: unknown[]) => {
    res.setHeader('Content-Encoding', 'gzip');
    res.removeHeader('Content-Length');
    return writeHead(...args);
  }) as Response['writeHead'];
  res.write = ((chunk: unknown) => {
    if (!res.headersSent) res.writeHead(res.statusCode);
    return gzip.write(chunk as Buffer);
  }) as Write;
  res.end = ((chunk?: unknown) => {
    if (!res.headersSent) res.writeHead(res.statusCode);
    gzip.end(chunk as Buffer | undefined);
    return res;
  }) as End;
  next();
}

describeEachExpress('encoded responses', (express) => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  async function start(build: (app: ReturnType<typeof express>, runs: { n: number }) => void) {
    const app = express();
    const runs = { n: 0 };
    build(app, runs);
    app.use(errorHandler({ onError: () => undefined }));
    const server = await listen(app);
    servers.push(server);
    return { url: server.url, runs };
  }

  describe('when an encoder is mounted after the middleware', () => {
    it('does not replay the encoded bytes: a repeat gets 409 RESPONSE_NOT_REPLAYABLE', async () => {
      const { url, runs } = await start((app, runs) => {
        app.use(serviceRequestIdempotency());
        app.use(gzipOnEnd);
        app.post('/v1/things', (_req, res) => {
          runs.n++;
          res.status(201).json({ id: 'T-1' });
        });
      });
      const first = await request(url)
        .post('/v1/things')
        .set('Accept-Encoding', 'gzip')
        .set('Service-Request-Id', 'enc-1');
      expect(first.status).toBe(201);
      expect(first.headers['content-encoding']).toBe('gzip');
      expect(first.body).toEqual({ id: 'T-1' });
      const again = await request(url)
        .post('/v1/things')
        .set('Accept-Encoding', 'identity')
        .set('Service-Request-Id', 'enc-1');
      expectErrorEnvelope(again, 409, { code: 'CONFLICT', target: 'Service-Request-Id' });
      expect(again.body.error.innererror).toEqual({ code: 'RESPONSE_NOT_REPLAYABLE', status: 201 });
      expect(runs.n).toBe(1);
    });
  });

  describe('when an encoder after the middleware labels a response without a body', () => {
    it('replays it: no encoded bytes were stored', async () => {
      const { url, runs } = await start((app, runs) => {
        app.use(serviceRequestIdempotency());
        app.use((_req, res, next) => {
          res.setHeader('Content-Encoding', 'gzip');
          next();
        });
        app.post('/v1/things', (_req, res) => {
          runs.n++;
          res.status(201).location('/v1/things/T-1').end();
        });
      });
      const first = await request(url).post('/v1/things').set('Service-Request-Id', 'enc-4');
      const again = await request(url).post('/v1/things').set('Service-Request-Id', 'enc-4');
      expect(first.status).toBe(201);
      expect(again.status).toBe(201);
      expect(again.headers.location).toBe('/v1/things/T-1');
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(runs.n).toBe(1);
    });
  });

  describe('when the handler sends an encoded body itself', () => {
    it('does not replay it without its Content-Encoding', async () => {
      const { url, runs } = await start((app, runs) => {
        app.use(serviceRequestIdempotency());
        app.post('/v1/things', (_req, res) => {
          runs.n++;
          res.status(201).set('Content-Type', 'application/json');
          res.set('Content-Encoding', 'gzip').end(gzipSync('{"id":"T-1"}'));
        });
      });
      const first = await request(url).post('/v1/things').set('Service-Request-Id', 'enc-2');
      expect(first.body).toEqual({ id: 'T-1' });
      const again = await request(url).post('/v1/things').set('Service-Request-Id', 'enc-2');
      expectErrorEnvelope(again, 409, { code: 'CONFLICT', target: 'Service-Request-Id' });
      expect(runs.n).toBe(1);
    });
  });

  describe('when an encoder is mounted before the middleware', () => {
    for (const [label, explicitHead] of [
      ['with res.json', false],
      ['with writeHead, write and end', true],
    ] as const) {
      it(`stores the body before it is encoded and replays it encoded again (${label})`, async () => {
        const { url, runs } = await start((app, runs) => {
          app.use(gzipStream);
          app.use(serviceRequestIdempotency());
          app.post('/v1/things', (_req, res) => {
            runs.n++;
            if (!explicitHead) {
              res.status(201).json({ id: 'T-1' });
              return;
            }
            res.writeHead(201, { 'Content-Type': 'application/json' });
            res.write('{"id":');
            res.end('"T-1"}');
          });
        });
        const first = await request(url).post('/v1/things').set('Service-Request-Id', 'enc-3');
        const again = await request(url).post('/v1/things').set('Service-Request-Id', 'enc-3');
        for (const res of [first, again]) {
          expect(res.status).toBe(201);
          expect(res.headers['content-encoding']).toBe('gzip');
          expect(res.body).toEqual({ id: 'T-1' });
        }
        expect(again.headers['idempotent-replayed']).toBe('true');
        expect(runs.n).toBe(1);
      });
    }
  });
});
