/**
 * The HTTP-level conventions (issue 13) on every route of the example, the route list read from
 * the app itself: OPTIONS and 405, HEAD, Content-Type on every answer with a body, Date, the
 * request id, headers as query parameters, and Retry-After where a 503 can happen.
 */
import { connect } from 'node:net';
import { redisStore } from '@resourceful/service-request-idempotency';
import {
  describeEachExpress,
  exactRequest,
  expectErrorEnvelope,
  listen,
  type RedisClient,
  type RunningServer,
  redisClient,
  refusedPort,
} from '@resourceful/test-support';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { DOCS_PATH, OPENAPI_PATH } from '../src/description/docs.js';
import { README_PATH } from '../src/readme.js';
import { createPaymentsServer } from '../src/server-limits.js';
import { MAX_URL_LENGTH } from '../src/url-length.js';
import { appWithRecords, concrete, REQUIRED_QUERY, routeTable, SEEDED } from './route-table.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BASE = 'http://api.test';
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** What OPTIONS should list for the registered methods. */
function expectedAllow(methods: ReadonlySet<string>): string {
  const all = new Set(methods);
  if (all.has('GET')) all.add('HEAD');
  all.add('OPTIONS');
  return ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
    .filter((method) => all.has(method))
    .join(', ');
}

/** Headers that legitimately differ between two answers to the same request. */
const PER_ANSWER = new Set(['date', 'x-request-id', 'connection', 'keep-alive']);

function comparable(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !PER_ANSWER.has(name)));
}

/**
 * Each negotiation a HEAD must match the GET under: no Accept-Encoding (supertest would add
 * `gzip, deflate` to the GET only, hence exactRequest), gzip and br, in JSON and XML.
 */
const NEGOTIATIONS: readonly Record<string, string>[] = [undefined, 'gzip', 'br'].flatMap(
  (encoding) =>
    [undefined, 'application/xml'].map((accept) => ({
      'accept-language': 'fr',
      ...(encoding === undefined ? {} : { 'accept-encoding': encoding }),
      ...(accept === undefined ? {} : { accept }),
    })),
);

describeEachExpress('the example’s HTTP conventions', (express) => {
  const table = routeTable({ express });

  it('reads a route list that covers the whole example', () => {
    for (const path of [
      README_PATH,
      '/v1/risk/evaluate',
      '/v1/notifications/webhooks/:id/event-types',
    ]) {
      expect(table.has(path), path).toBe(true);
    }
    expect(table.get('/v1/vault/credit-cards/:id')).toEqual(
      new Set(['GET', 'PUT', 'PATCH', 'DELETE']),
    );
  });

  describe('OPTIONS on every route', () => {
    for (const [path, methods] of table) {
      it(`lists ${expectedAllow(methods)} for ${path}`, async () => {
        const app = createApp({ express, publicBaseUrl: BASE });
        const res = await request(app).options(concrete(path, SEEDED));
        expect(res.status).toBe(204);
        expect(res.headers.allow).toBe(expectedAllow(methods));
        expect(res.headers.link).toBe(`<${DOCS_PATH}>; rel="help", <${OPENAPI_PATH}>; rel="help"`);
        expect(res.text).toBe('');
      });
    }

    it('lists the methods of version discovery (/api), with the same help link', async () => {
      const res = await request(createApp({ express, publicBaseUrl: BASE })).options('/api');
      expect(res.status).toBe(204);
      expect(res.headers.allow).toBe('GET, HEAD, OPTIONS');
      expect(res.headers.link).toBe(`<${DOCS_PATH}>; rel="help", <${OPENAPI_PATH}>; rel="help"`);
    });

    it('lists the methods of the GraphQL endpoint, with the same help link; 405 for others', async () => {
      const app = createApp({ express, publicBaseUrl: BASE });
      const options = await request(app).options('/graphql');
      expect(options.status).toBe(204);
      expect(options.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      expect(options.headers.link).toBe(
        `<${DOCS_PATH}>; rel="help", <${OPENAPI_PATH}>; rel="help"`,
      );
      for (const method of ['put', 'patch', 'delete'] as const) {
        const res = await request(app)[method]('/graphql');
        expectErrorEnvelope(res, 405, { code: 'METHOD_NOT_ALLOWED' });
        expect(res.headers.allow).toBe('GET, HEAD, POST, OPTIONS');
      }
      const query = `/graphql?query=${encodeURIComponent('{ __typename }')}`;
      const head = await request(app).head(query);
      expect(head.status).toBe(200);
      expect(head.headers['content-type']).toBe(
        (await request(app).get(query)).headers['content-type'],
      );
    });

    it('also under /v1.0', async () => {
      const res = await request(createApp({ express, publicBaseUrl: BASE })).options(
        '/v1.0/risk/evaluate',
      );
      expect(res.headers.allow).toBe('POST, OPTIONS');
    });

    it('keeps an unknown path a 404 and an unknown version a 400', async () => {
      const app = createApp({ express, publicBaseUrl: BASE });
      expectErrorEnvelope(await request(app).options('/v1/vault/nothing'), 404, {
        code: 'NOT_FOUND',
      });
      expectErrorEnvelope(await request(app).options('/v2/vault/credit-cards'), 400, {
        code: 'UNSUPPORTED_VERSION',
      });
    });
  });

  describe('405 for every method a route does not serve', () => {
    for (const [path, methods] of table) {
      const allow = expectedAllow(methods);
      const refused = METHODS.filter((method) => !allow.split(', ').includes(method));
      if (refused.length === 0) continue;
      it(`answers ${refused.join(', ')} on ${path} with 405 and Allow, changing nothing`, async () => {
        const app = createApp({ express, publicBaseUrl: BASE });
        const target = concrete(path, SEEDED);
        const before = await request(app).get('/v1/vault/credit-cards?page_size=100');
        for (const method of refused) {
          const call = request(app)
            [method.toLowerCase() as 'post'](target)
            .set('Service-Request-Id', `refused-${method}`);
          // A body where the method takes one: the 405 comes before it is read.
          const res = await (method === 'GET' || method === 'HEAD'
            ? call
            : call.set('Content-Type', 'application/json').send('{"code":"X"}'));
          expect(res.status, `${method} ${path}`).toBe(405);
          expect(res.headers.allow).toBe(allow);
          if (method !== 'HEAD') expectErrorEnvelope(res, 405, { code: 'METHOD_NOT_ALLOWED' });
        }
        const after = await request(app).get('/v1/vault/credit-cards?page_size=100');
        expect(after.body).toEqual(before.body);
      });
    }
  });

  describe('HEAD on every GET route (RFC 9110 §9.3.2)', () => {
    let running: RunningServer;
    let ids: Record<string, string>;

    beforeAll(async () => {
      const made = await appWithRecords(express);
      ids = made.ids;
      running = await listen(made.app);
    });

    afterAll(() => running.close());

    for (const [path, methods] of table) {
      if (!methods.has('GET')) continue;
      it(`answers GET's headers and no body for ${path}, in every format and coding`, async () => {
        const target = concrete(path, ids) + (REQUIRED_QUERY[path] ?? '');
        for (const headers of NEGOTIATIONS) {
          const head = await exactRequest(running.port, 'HEAD', target, headers);
          const again = await exactRequest(running.port, 'HEAD', target, headers);
          const get = await exactRequest(running.port, 'GET', target, headers);
          const what = `${target} ${JSON.stringify(headers)}`;
          // The OpenAPI document has no XML form: 406, to the GET and the HEAD alike.
          const status = path === OPENAPI_PATH && headers.accept !== undefined ? 406 : 200;
          expect(get.status, what).toBe(status);
          expect(head.status, what).toBe(status);
          expect(head.body.length, what).toBe(0);
          expect(comparable(head.headers), what).toEqual(comparable(get.headers));
          // No side effect: the representation (and its ETag) is what it was before any HEAD.
          expect(again.headers.etag, what).toBe(head.headers.etag);
          if (get.headers['content-length'] !== undefined) {
            expect(get.headers['content-length'], what).toBe(String(get.body.length));
          }
        }
      });
    }

    it('answers the headers of the GET for version discovery (/api)', async () => {
      for (const headers of NEGOTIATIONS) {
        const head = await exactRequest(running.port, 'HEAD', '/api', headers);
        const get = await exactRequest(running.port, 'GET', '/api', headers);
        expect(get.status).toBe(200);
        expect(head.body.length).toBe(0);
        expect(comparable(head.headers), JSON.stringify(headers)).toEqual(comparable(get.headers));
      }
    });

    it('answers the headers of the GET’s error envelope, in the negotiated format', async () => {
      for (const target of [
        '/v1/vault/credit-cards/NOPE',
        '/v1/nothing',
        '/v2/vault/credit-cards',
        '/v1/payments/refund-summary',
        '/v1/vault/credit-cards?page_size=1000',
      ]) {
        for (const headers of NEGOTIATIONS) {
          const head = await exactRequest(running.port, 'HEAD', target, headers);
          const get = await exactRequest(running.port, 'GET', target, headers);
          const what = `${target} ${JSON.stringify(headers)}`;
          expect(get.status, what).toBeGreaterThanOrEqual(400);
          expect(head.status, what).toBe(get.status);
          expect(head.body.length, what).toBe(0);
          expect(comparable(head.headers), what).toEqual(comparable(get.headers));
        }
      }
    });
  });

  describe('Content-Type on every answer with a body', () => {
    for (const [path, methods] of table) {
      it(`is sent by every method on ${path}`, async () => {
        const { app, ids } = await appWithRecords(express);
        const target = concrete(path, ids);
        for (const method of [...METHODS, 'OPTIONS'] as const) {
          for (const body of [undefined, '{}', 'not json', '[]']) {
            let call = request(app)[method.toLowerCase() as 'post'](target);
            if (body !== undefined) call = call.set('Content-Type', 'application/json').send(body);
            const res = await call;
            const length = Number(res.headers['content-length'] ?? 0);
            const hasBody = method !== 'HEAD' && (length > 0 || (res.text ?? '') !== '');
            if (hasBody) {
              expect(res.headers['content-type'], `${method} ${target} → ${res.status}`).toMatch(
                /^[a-z]+\/[a-z.+-]+(; charset=utf-8)?$/,
              );
            }
          }
        }
        expect(methods.size).toBeGreaterThan(0);
      });
    }
  });

  describe('every answer', () => {
    it('carries an RFC 3339 Date and a request id, a well-formed incoming one kept', async () => {
      const app = createApp({ express, publicBaseUrl: BASE });
      for (const path of ['/v1/vault/credit-cards', '/v1/nothing', README_PATH]) {
        const res = await request(app).get(path);
        expect(res.headers.date).toMatch(RFC3339);
        expect(res.headers['x-request-id']).toMatch(UUID);
      }
      const kept = await request(app).get('/v1/nothing').set('X-Request-Id', 'support-42');
      expect(kept.headers['x-request-id']).toBe('support-42');
    });

    it('stamps Date from the app clock when the answer is written', async () => {
      const app = createApp({
        express,
        publicBaseUrl: BASE,
        now: () => new Date('2026-02-03T04:05:06.789Z'),
      });
      const res = await request(app).get('/v1/vault/credit-cards/CARD-SEED1');
      expect(res.headers.date).toBe('2026-02-03T04:05:06.789Z');
    });
  });

  describe('headers as query parameters', () => {
    it('takes Prefer from the query on a list without refusing it as unknown', async () => {
      const res = await request(createApp({ express, publicBaseUrl: BASE })).get(
        '/v1/vault/credit-cards?prefer=return%3Dminimal&page_size=1',
      );
      expect(res.status).toBe(200);
      expect(res.body.links.map((link: { href: string }) => link.href).join(' ')).not.toMatch(
        /prefer/i,
      );
    });

    it('takes If-None-Match from the query: 304', async () => {
      const app = createApp({ express, publicBaseUrl: BASE });
      const first = await request(app).get('/v1/vault/credit-cards/CARD-SEED1');
      const res = await request(app).get(
        `/v1/vault/credit-cards/CARD-SEED1?If-None-Match=${encodeURIComponent(first.headers.etag!)}`,
      );
      expect(res.status).toBe(304);
    });

    it('takes Service-Request-Id from the query: the repeat is replayed', async () => {
      const app = createApp({ express, publicBaseUrl: BASE });
      const first = await request(app)
        .post('/v1/risk/decisions?Service-Request-Id=q-1')
        .send({ code: 'Q' });
      const repeat = await request(app)
        .post('/v1/risk/decisions?service-request-id=q-1')
        .send({ code: 'Q' });
      expect(first.status).toBe(201);
      expect(repeat.body).toEqual(first.body);
      expect(repeat.headers['idempotent-replayed']).toBe('true');
    });

    it('never takes Authorization from the query', async () => {
      const res = await request(createApp({ express, publicBaseUrl: BASE })).get(
        '/v1/vault/credit-cards?Authorization=Bearer%20secret',
      );
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Authorization' });
    });
  });
});

describeEachExpress(
  'Retry-After on every 503 of an idempotent POST while Redis is down',
  (express) => {
    let client: RedisClient;

    beforeAll(async () => {
      // A port that refuses connections for the whole test: the Redis the store talks to is down.
      const port = await refusedPort();
      // As server.ts does: no offline queue, reconnecting in the background.
      client = redisClient(`redis://127.0.0.1:${port}`);
      client.connect().catch(() => undefined);
    });

    afterAll(() => {
      if (client.isOpen) client.destroy();
    });

    const posts = [...routeTable({ express })].filter(([, methods]) => methods.has('POST'));

    for (const [path] of posts) {
      it(`answers 503 with Retry-After for POST ${path}`, async () => {
        const app = createApp({ express, idempotencyStore: redisStore({ client }) });
        for (const id of ['header', 'query']) {
          const call =
            id === 'header'
              ? request(app).post(concrete(path, SEEDED)).set('Service-Request-Id', 'down-1')
              : request(app).post(`${concrete(path, SEEDED)}?Service-Request-Id=down-2`);
          const res = await call.send({
            code: 'R',
            note: 'n',
            amount: { total: '1', currency: 'USD' },
          });
          expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
          expect(res.headers['retry-after']).toMatch(/^\d+$/);
          expect(res.headers['x-request-id']).toMatch(UUID);
        }
      });
    }
  },
);

/** Writes `text` on a raw socket; resolves with all the server sent before closing. */
function rawExchange(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.write(text, () => socket.end());
  });
}

describeEachExpress('the example’s long URLs over a raw socket', (express) => {
  async function withServer(check: (port: number) => Promise<void>): Promise<void> {
    const running = await listen(createPaymentsServer(createApp({ express, publicBaseUrl: BASE })));
    try {
      await check(running.port);
    } finally {
      await running.close();
    }
  }

  it('serves a 32 kB URL', () =>
    withServer(async (port) => {
      const answer = await rawExchange(
        port,
        `GET /v1/vault/credit-cards/CARD-SEED1?padding=${'a'.repeat(32 * 1024)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.slice(0, 12)).toBe('HTTP/1.1 200');
    }));

  it('answers a 100 kB URL with the 414 envelope, not a bare 431', () =>
    withServer(async (port) => {
      const answer = await rawExchange(
        port,
        `GET /v1/vault/credit-cards?payer_id=${'a'.repeat(100_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      );
      expect(answer.slice(0, 12)).toBe('HTTP/1.1 414');
      expect(answer).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
      const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
      expect(body.error).toMatchObject({
        code: 'URI_TOO_LONG',
        innererror: { code: 'URL_TOO_LONG', max_length: MAX_URL_LENGTH },
      });
      // Like every other answer: a request id (header and envelope) and the spec's Date.
      const id = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(answer)?.[1];
      expect(id).toMatch(UUID);
      expect(body.error.innererror.request_id).toBe(id);
      expect(/\r\nDate: ([^\r]+)\r\n/.exec(answer)?.[1]).toMatch(RFC3339);
    }));

  it('answers a 70 kB URL (read by Node, over the limit) with the 414 envelope', () =>
    withServer(async (port) => {
      const answer = await rawExchange(
        port,
        `GET /v1/vault/credit-cards?payer_id=${'a'.repeat(70_000)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      expect(answer.slice(0, 12)).toBe('HTTP/1.1 414');
      expect(answer).toMatch(/\r\nX-Request-Id: /);
    }));

  it('answers too-large headers with the 431 envelope', () =>
    withServer(async (port) => {
      const answer = await rawExchange(
        port,
        `GET /v1/vault/credit-cards HTTP/1.1\r\nHost: x\r\nX-Padding: ${'p'.repeat(100_000)}\r\n\r\n`,
      );
      expect(answer.slice(0, 12)).toBe('HTTP/1.1 431');
      expect(answer).toMatch(/"code":"HEADERS_TOO_LARGE"/);
      const id = /\r\nX-Request-Id: ([^\r]+)\r\n/.exec(answer)?.[1];
      expect(id).toMatch(UUID);
      expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.innererror).toEqual({
        request_id: id,
      });
      expect(/\r\nDate: ([^\r]+)\r\n/.exec(answer)?.[1]).toMatch(RFC3339);
    }));
});

describe('the example README', () => {
  it('lists what every route answers to OPTIONS', async () => {
    const { readFile } = await import('node:fs/promises');
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8');
    const start = readme.indexOf('## OPTIONS and HEAD');
    const section = readme.slice(start, readme.indexOf('\n## ', start));
    const documented = new Map<string, string>();
    for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
      const [paths = '', allow = ''] = row.split(' | ').map((cell) => cell.replace(/^\| /, ''));
      for (const path of paths.match(/`[^`]+`/g) ?? []) {
        documented.set(
          path.slice(1, -1).replace(/\{[^}]+\}/g, ':'),
          allow.replace(/[`|]/g, '').trim(),
        );
      }
    }
    for (const [path, methods] of routeTable({})) {
      expect(documented.get(path.replace(/:[^/]+/g, ':')), path).toBe(expectedAllow(methods));
    }
  });
});
