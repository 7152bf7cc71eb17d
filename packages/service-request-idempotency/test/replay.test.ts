import { describeEachExpress, expectErrorEnvelope, listen } from '@resourceful/test-support';
import request from 'supertest';
import { afterEach, describe, expect, it } from 'vitest';
import { memoryStore, serviceRequestIdempotency } from '../src/index.js';
import { slowCompletingStore, startApp } from './helpers.js';

describeEachExpress('replaying the first response', (express) => {
  describe('when a POST with Service-Request-Id is repeated', () => {
    it('runs the handler once and replays status, body and allow-listed headers', async () => {
      const app = await startApp(express);
      const first = await request(app.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'req-1')
        .send({ name: 'a' });
      const second = await request(app.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'req-1')
        .send({ name: 'a' });

      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.body).toEqual({ id: 'T-1', name: 'a' });
      expect(second.headers.location).toBe('/v1/things/T-1');
      expect(second.headers.etag).toBe('"T-1"');
      expect(second.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(app.runs.things).toBe(1);
    });

    it('replays a repeat sent right after the response, even from a slow store', async () => {
      const app = await startApp(express, { store: slowCompletingStore(memoryStore(), 50) });
      const first = await request(app.url).post('/v1/things').set('Service-Request-Id', 's-1');
      const repeat = await request(app.url).post('/v1/things').set('Service-Request-Id', 's-1');
      expect(first.status).toBe(201);
      expect(repeat.status).toBe(201);
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(app.runs.things).toBe(1);
    });

    it.each([
      ['the memory store', () => memoryStore()],
      ['a slow store', () => slowCompletingStore(memoryStore(), 30)],
    ])(
      'stores the bytes as written, whatever the app does to its Buffer afterwards (%s)',
      async (_name, store) => {
        const app = await startApp(express, { store: store() });
        for (const [route, sent] of [
          ['/v1/reused-buffer-end', 'first 1'],
          ['/v1/reused-buffer-write', 'part 1;xxxxxxx'],
        ] as const) {
          const first = await request(app.url).post(route).set('Service-Request-Id', route);
          const repeat = await request(app.url).post(route).set('Service-Request-Id', route);
          expect(first.status).toBe(201);
          expect(repeat.headers['idempotent-replayed']).toBe('true');
          expect(repeat.text).toBe(sent);
        }
        expect(app.runs['reused-buffer-end']).toBe(1);
        expect(app.runs['reused-buffer-write']).toBe(1);
      },
    );

    it('marks only the replay with Idempotent-Replayed: true', async () => {
      const app = await startApp(express);
      const first = await request(app.url).post('/v1/things').set('Service-Request-Id', 'm-1');
      const second = await request(app.url).post('/v1/things').set('Service-Request-Id', 'm-1');
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      expect(second.headers['idempotent-replayed']).toBe('true');
    });

    it('never replays Set-Cookie, rate-limit or other headers outside the allow-list', async () => {
      const app = await startApp(express);
      const first = await request(app.url).post('/v1/things').set('Service-Request-Id', 'h-1');
      const second = await request(app.url).post('/v1/things').set('Service-Request-Id', 'h-1');
      expect(first.headers['set-cookie']).toBeDefined();
      expect(second.headers['set-cookie']).toBeUndefined();
      expect(second.headers['x-ratelimit-remaining']).toBeUndefined();
      expect(second.headers['cache-control']).toBeUndefined();
      expect(second.headers.date).toBeDefined();
      expect(second.headers['content-length']).toBe(String(Buffer.byteLength(second.text)));
    });

    it('replays a response written with writeHead, write and end', async () => {
      const app = await startApp(express);
      const first = await request(app.url).post('/v1/write-head').set('Service-Request-Id', 'w');
      const second = await request(app.url).post('/v1/write-head').set('Service-Request-Id', 'w');
      expect(first.status).toBe(201);
      expect(first.text).toBe('part-1 part-2 run 1');
      expect(second.status).toBe(201);
      expect(second.text).toBe('part-1 part-2 run 1');
      expect(second.headers.location).toBe('/w/1');
      expect(second.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(app.runs['write-head']).toBe(1);
    });

    it('replays headers given to writeHead as a flat array, with a reason phrase', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/write-head-array').set('Service-Request-Id', 'wa');
      const second = await request(app.url)
        .post('/v1/write-head-array')
        .set('Service-Request-Id', 'wa');
      expect(second.status).toBe(202);
      expect(second.text).toBe('job 1');
      expect(second.headers.link).toBe('</jobs/1>; rel=self');
      expect(app.runs['write-head-array']).toBe(1);
    });

    it('replays a response written with res.send', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/send').set('Service-Request-Id', 's');
      const second = await request(app.url).post('/v1/send').set('Service-Request-Id', 's');
      expect(second.status).toBe(200);
      expect(second.text).toBe('sent 1');
      expect(app.runs.send).toBe(1);
    });

    it('replays a binary body byte for byte', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/binary').set('Service-Request-Id', 'b');
      const second = await request(app.url)
        .post('/v1/binary')
        .set('Service-Request-Id', 'b')
        .buffer(true)
        .parse((res, done) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => done(null, Buffer.concat(chunks)));
        });
      expect([...(second.body as Buffer)]).toEqual([0, 255, 1, 254, 0x80]);
      expect(app.runs.binary).toBe(1);
    });

    it('replays a 204 without a body or Content-Length', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/no-content').set('Service-Request-Id', 'n');
      const second = await request(app.url).post('/v1/no-content').set('Service-Request-Id', 'n');
      expect(second.status).toBe(204);
      expect(second.headers['content-length']).toBeUndefined();
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(app.runs['no-content']).toBe(1);
    });

    it('stores and replays a 4xx answer of the handler', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/invalid').set('Service-Request-Id', 'v');
      const second = await request(app.url).post('/v1/invalid').set('Service-Request-Id', 'v');
      expect(second.status).toBe(400);
      expect(app.runs.invalid).toBe(1);
    });

    it('accepts the id as an Idempotency-Key header, quoted as the draft sends it', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/things').set('Idempotency-Key', '"k-1"');
      const second = await request(app.url).post('/v1/things').set('Service-Request-Id', 'k-1');
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(app.runs.things).toBe(1);
    });

    it('accepts the id as a query parameter of the same name', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/things?Service-Request-Id=q-1').send({ a: 1 });
      const second = await request(app.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'q-1')
        .send({ a: 1 });
      expect(second.status).toBe(201);
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(app.runs.things).toBe(1);
    });

    it('replays when the JSON body has the same content with another key order', async () => {
      const app = await startApp(express);
      await request(app.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'o')
        .set('Content-Type', 'application/json')
        .send('{"a":1,"b":{"c":2,"d":3}}');
      const second = await request(app.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'o')
        .set('Content-Type', 'application/json')
        .send('{"b":{"d":3,"c":2},"a":1}');
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(app.runs.things).toBe(1);
    });
  });

  describe('when a client sends the replay marker itself', () => {
    it('does not let a handler echo it onto a first response', async () => {
      const app = await startApp(express);
      const res = await request(app.url)
        .post('/v1/echo-headers')
        .set('Service-Request-Id', 'fake')
        .set('Idempotent-Replayed', 'true');
      expect(res.status).toBe(201);
      expect(res.headers['idempotent-replayed']).toBeUndefined();
    });

    it('ignores it as a request header: the first request still runs', async () => {
      const app = await startApp(express);
      const res = await request(app.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'fake-2')
        .set('Idempotent-Replayed', 'true');
      expect(res.status).toBe(201);
      expect(app.runs.things).toBe(1);
    });
  });

  describe('when the same id comes with a different request', () => {
    it('answers 422 for another body', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/things').set('Service-Request-Id', 'r').send({ a: 1 });
      const res = await request(app.url)
        .post('/v1/things')
        .set('Service-Request-Id', 'r')
        .send({ a: 2 });
      expectErrorEnvelope(res, 422, { code: 'UNPROCESSABLE_ENTITY', target: 'Service-Request-Id' });
      expect(res.body.error.innererror).toEqual({ code: 'SERVICE_REQUEST_ID_REUSED' });
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(app.runs.things).toBe(1);
    });

    it('answers 422 for another path', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/things').set('Service-Request-Id', 'p');
      const res = await request(app.url).post('/v1/other').set('Service-Request-Id', 'p');
      expectErrorEnvelope(res, 422, { code: 'UNPROCESSABLE_ENTITY' });
      expect(app.runs.other).toBeUndefined();
    });

    it('names the header the id came in as the target', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/things').set('Idempotency-Key', 'ik').send({ a: 1 });
      const res = await request(app.url)
        .post('/v1/things')
        .set('Idempotency-Key', 'ik')
        .send({ a: 2 });
      expectErrorEnvelope(res, 422, { target: 'Idempotency-Key' });
    });
  });

  describe('when the response is larger than maxBodyBytes', () => {
    it('answers a repeat with 409 RESPONSE_NOT_REPLAYABLE and does not run again', async () => {
      const app = await startApp(express, { maxBodyBytes: 1024 });
      const first = await request(app.url).post('/v1/large').set('Service-Request-Id', 'big');
      expect(first.status).toBe(201);
      expect(first.text).toHaveLength(4096);
      const res = await request(app.url).post('/v1/large').set('Service-Request-Id', 'big');
      expectErrorEnvelope(res, 409, { code: 'CONFLICT', target: 'Service-Request-Id' });
      expect(res.body.error.innererror).toEqual({ code: 'RESPONSE_NOT_REPLAYABLE', status: 201 });
      expect(app.runs.large).toBe(1);
    });
  });

  describe('when a request is not covered', () => {
    it('passes a POST without an id through, every time', async () => {
      const app = await startApp(express);
      await request(app.url).post('/v1/things');
      await request(app.url).post('/v1/things');
      expect(app.runs.things).toBe(2);
    });

    it('leaves GET alone even with an id', async () => {
      const app = await startApp(express);
      await request(app.url).get('/v1/things').set('Service-Request-Id', 'g');
      const res = await request(app.url).get('/v1/things').set('Service-Request-Id', 'g');
      expect(res.headers['idempotent-replayed']).toBeUndefined();
      expect(app.runs.list).toBe(2);
    });

    it('covers PATCH too when methods includes it', async () => {
      const app = await startApp(express, { methods: ['POST', 'patch'] });
      const res = await request(app.url).patch('/v1/things').set('Service-Request-Id', '../x y');
      expectErrorEnvelope(res, 400, { target: 'Service-Request-Id' });
    });
  });
});

describeEachExpress('the replay marker on a first response', (express) => {
  const servers: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  /** An app whose handler sets the marker itself, through `setHeader` or `writeHead`. */
  async function markingApp(replayedHeader?: string) {
    const app = express();
    app.use(serviceRequestIdempotency(replayedHeader === undefined ? {} : { replayedHeader }));
    const name = replayedHeader ?? 'Idempotent-Replayed';
    app.post('/v1/set-header', (_req, res) => {
      res.setHeader(name.toUpperCase(), 'true');
      res.status(201).json({ created: 1 });
    });
    app.post('/v1/write-head', (_req, res) => {
      res.writeHead(201, { 'content-type': 'text/plain', [name.toLowerCase()]: 'true' });
      res.end('created');
    });
    const server = await listen(app);
    servers.push(server);
    return server.url;
  }

  for (const [label, replayedHeader] of [
    ['the default marker', undefined],
    ['a configured marker', 'X-Was-Replayed'],
  ] as const) {
    for (const path of ['/v1/set-header', '/v1/write-head']) {
      it(`never lets the handler send ${label} on the first run (${path}), in any case`, async () => {
        const url = await markingApp(replayedHeader);
        const header = (replayedHeader ?? 'Idempotent-Replayed').toLowerCase();
        const first = await request(url).post(path).set('Service-Request-Id', `m-${path}`);
        const again = await request(url).post(path).set('Service-Request-Id', `m-${path}`);
        expect(first.status).toBe(201);
        expect(first.headers[header]).toBeUndefined();
        expect(again.status).toBe(201);
        expect(again.headers[header]).toBe('true');
      });
    }
  }
});
