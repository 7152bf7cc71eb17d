/**
 * The example over raw sockets: every request that ran gets its own answer, whole, before any
 * refusal; every answer Node would write itself is an envelope; the server's limits hold.
 */
import {
  describeEachExpress,
  listen,
  parseRawResponses,
  type RawResponse,
  type RunningServer,
  rawExchange,
} from '@resourceful/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createPaymentsServer, SERVER_LIMITS, type ServerLimits } from '../src/server-limits.js';
import { concrete, routeTable, SEEDED } from './route-table.js';

const CARD = '/v1/vault/credit-cards/CARD-SEED1';
const GARBAGE = '{"a":1}';

function envelopeOf(response: RawResponse | undefined): { code: string; message: string } {
  expect(response?.headers['content-type']).toBe('application/json; charset=utf-8');
  const parsed = JSON.parse(response?.body ?? '') as { error: { code: string; message: string } };
  expect(Object.keys(parsed)).toEqual(['error']);
  expect(parsed.error.code).toBeTypeOf('string');
  expect(parsed.error.message).toBeTypeOf('string');
  return parsed.error;
}

describeEachExpress('the example on the wire', (express) => {
  let running: RunningServer;

  async function start(limits: ServerLimits = SERVER_LIMITS): Promise<RunningServer> {
    running = await listen(createPaymentsServer(createApp({ express }), limits));
    return running;
  }

  async function cardStatus(): Promise<number> {
    return (await fetch(`${running.url}${CARD}`)).status;
  }

  afterEach(async () => {
    await running.close();
  });

  describe('a DELETE with a body but no Content-Length (as node:http sends one)', () => {
    beforeEach(() => start());

    it('answers 204, and the card is deleted: the answer and the state agree', async () => {
      const exchange = await rawExchange(
        running.port,
        `DELETE ${CARD} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n${GARBAGE}`,
      );
      const responses = parseRawResponses(exchange.text, ['DELETE']);
      expect(responses.map((response) => response.status)).toEqual([204]);
      expect(responses[0]?.headers.connection).toBe('close');
      expect(exchange.closedByServer).toBe(true);
      expect(await cardStatus()).toBe(404);
    });
  });

  describe('trailing bytes after a complete request', () => {
    beforeEach(() => start());

    const patch = '[{"op":"replace","path":"/first_name","value":"Trail"}]';
    const put = JSON.stringify({
      payer_id: 'user12345',
      type: 'visa',
      expire_month: '11',
      expire_year: '2030',
      first_name: 'Put',
    });
    const post = JSON.stringify({
      payer_id: 'user12345',
      type: 'visa',
      number: '4417119669820331',
      expire_month: '11',
      expire_year: '2030',
    });
    const framed = (method: string, path: string, type: string, body: string) =>
      `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

    for (const [method, request, status, cardAfter] of [
      ['GET', `GET ${CARD} HTTP/1.1\r\nHost: x\r\n\r\n`, 200, 200],
      ['DELETE', `DELETE ${CARD} HTTP/1.1\r\nHost: x\r\n\r\n`, 204, 404],
      // The example answers writes 204 unless Prefer: return=representation.
      ['PATCH', framed('PATCH', CARD, 'application/json-patch+json', patch), 204, 200],
      ['PUT', framed('PUT', CARD, 'application/json', put), 204, 200],
      ['POST', framed('POST', '/v1/vault/credit-cards', 'application/json', post), 201, 200],
    ] as const) {
      it(`${method}: its own answer (${status}), complete, then the connection closes`, async () => {
        const exchange = await rawExchange(running.port, `${request}\r\nGARBAGE\r\n\r\n`);
        const responses = parseRawResponses(exchange.text, [method]);
        expect(responses.map((response) => response.status)).toEqual([status]);
        expect(exchange.closedByServer).toBe(true);
        expect(await cardStatus()).toBe(cardAfter);
        if (method === 'PATCH') {
          const card = (await (await fetch(`${running.url}${CARD}`)).json()) as {
            first_name: string;
          };
          expect(card.first_name).toBe('Trail');
        }
      });
    }

    it('answers pipelined requests in order, then closes without a refusal', async () => {
      const exchange = await rawExchange(
        running.port,
        `GET ${CARD} HTTP/1.1\r\nHost: x\r\n\r\nGET ${CARD}-NOPE HTTP/1.1\r\nHost: x\r\n\r\nDELETE ${CARD} HTTP/1.1\r\nHost: x\r\n\r\n${GARBAGE}`,
      );
      const responses = parseRawResponses(exchange.text, ['GET', 'GET', 'DELETE']);
      // Node hands pipelined requests to the app at once and writes their answers in order.
      expect(responses.map((response) => response.status)).toEqual([200, 404, 204]);
      expect(envelopeOf(responses[1]).code).toBe('NOT_FOUND');
      expect(exchange.closedByServer).toBe(true);
    });
  });

  describe('a body without Content-Length on each verb', () => {
    beforeEach(() => start());

    for (const [method, path, status] of [
      ['GET', CARD, 200],
      ['DELETE', CARD, 204],
      ['PUT', CARD, 400],
      ['PATCH', CARD, 400],
      ['POST', '/v1/vault/credit-cards', 400],
    ] as const) {
      it(`${method} answers what ran (${status}); only a DELETE changes anything`, async () => {
        const exchange = await rawExchange(
          running.port,
          `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n\r\n${GARBAGE}`,
        );
        const responses = parseRawResponses(exchange.text, [method]);
        expect(responses.map((response) => response.status)).toEqual([status]);
        // A refusal of the app (no body to write with), never the parser's MALFORMED_HTTP.
        if (status === 400)
          expect(envelopeOf(responses[0])).not.toMatchObject({
            code: 'INVALID_REQUEST',
            message: 'The request is not valid HTTP.',
          });
        expect(exchange.closedByServer).toBe(true);
        expect(await cardStatus()).toBe(method === 'DELETE' ? 404 : 200);
      });
    }
  });

  describe('answers Node would write itself', () => {
    beforeEach(() => start());

    it('answers 417 with the envelope to an Expect other than 100-continue', async () => {
      const exchange = await rawExchange(
        running.port,
        `GET ${CARD} HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n`,
      );
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(417);
      expect(response?.headers['error-code']).toBe('EXPECTATION_FAILED');
      expect(envelopeOf(response).code).toBe('EXPECTATION_FAILED');
    });

    it('answers 405 with the envelope to CONNECT', async () => {
      const exchange = await rawExchange(
        running.port,
        'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
      );
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(405);
      expect(response?.headers.allow).toBe('');
      expect(envelopeOf(response).code).toBe('METHOD_NOT_ALLOWED');
    });

    it('answers a method Node accepts but no route serves with an envelope', async () => {
      const exchange = await rawExchange(
        running.port,
        `PROPFIND ${CARD} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      const [response] = parseRawResponses(exchange.text);
      expect([400, 404, 405]).toContain(response?.status);
      envelopeOf(response);
    });

    it('answers 400 with the envelope to bytes that are not HTTP', async () => {
      const exchange = await rawExchange(running.port, 'HELLO\r\n\r\n');
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(400);
      expect(envelopeOf(response).code).toBe('INVALID_REQUEST');
    });
  });

  describe('requests RFC 9112 §3.2 refuses, and bytes the router cannot decode', () => {
    beforeEach(() => start());

    async function customerCount(): Promise<number> {
      const res = await fetch(`${running.url}/v1/customers/customers?total_required=true`);
      return ((await res.json()) as { total_items: number }).total_items;
    }

    it('answers 400 naming Host to a request with two Host lines, as the reviewer sent it', async () => {
      const exchange = await rawExchange(
        running.port,
        'GET /v1/customers/customers/CUST-SEED1 HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n',
      );
      const [response, ...more] = parseRawResponses(exchange.text);
      expect(more).toEqual([]);
      expect(response?.status).toBe(400);
      expect(JSON.parse(response?.body ?? '').error).toMatchObject({
        code: 'INVALID_REQUEST',
        target: 'Host',
        innererror: { code: 'REPEATED_HOST' },
      });
    });

    it('creates nothing for a POST with two Host lines', async () => {
      const before = await customerCount();
      expect(before).toBeGreaterThan(0);
      const body = JSON.stringify({ merchant_customer_id: 'M-HOST', merchant_id: 'MERCHANT-1' });
      const exchange = await rawExchange(
        running.port,
        `POST /v1/customers/customers HTTP/1.1\r\nHost: a\r\nhost: a\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      );
      expect(parseRawResponses(exchange.text).map((response) => response.status)).toEqual([400]);
      expect(await customerCount()).toBe(before);
    });

    it('answers 400 MALFORMED_PATH_PARAMETER to an id that is not percent-encoded UTF-8', async () => {
      for (const id of ['%FF', '%zz', 'CUST-%E2%82']) {
        const exchange = await rawExchange(
          running.port,
          `GET /v1/customers/customers/${id} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        const [response] = parseRawResponses(exchange.text);
        expect(response?.status).toBe(400);
        expect(JSON.parse(response?.body ?? '').error).toMatchObject({
          code: 'INVALID_REQUEST',
          target: 'path',
          innererror: { code: 'MALFORMED_PATH_PARAMETER' },
        });
      }
    });

    it('answers 400 INVALID_HOST naming Host on every route, every method, before any handler', async () => {
      const before = await customerCount();
      const routes = routeTable({ express, database: false });
      expect(routes.size).toBeGreaterThan(20);
      for (const [path, methods] of routes) {
        for (const method of [...methods, 'OPTIONS']) {
          const target = concrete(path, SEEDED);
          const exchange = await rawExchange(
            running.port,
            `${method} ${target} HTTP/1.1\r\nHost: a b\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
          );
          const [response, ...more] = parseRawResponses(exchange.text, [method]);
          expect(more, `${method} ${target}`).toEqual([]);
          expect(response?.status, `${method} ${target}`).toBe(400);
          if (method !== 'HEAD') {
            expect(JSON.parse(response?.body ?? '').error).toMatchObject({
              code: 'INVALID_REQUEST',
              target: 'Host',
              innererror: { code: 'INVALID_HOST' },
            });
          }
        }
      }
      expect(await customerCount()).toBe(before);
    });

    it.each([
      ['userinfo', 'a@b'],
      ['a port over 65535', '127.0.0.1:65536'],
      ['a name over 255 characters', 'a'.repeat(256)],
      ['a non-ASCII name', 'pa\u00efements.example'],
    ])('answers 400 naming Host for %s, on HTTP/1.0 too', async (_, host) => {
      for (const version of ['1.1', '1.0']) {
        const exchange = await rawExchange(
          running.port,
          `GET /v1/customers/customers/CUST-SEED1 HTTP/${version}\r\nHost: ${host}\r\n\r\n`,
        );
        const [response] = parseRawResponses(exchange.text);
        expect(response?.status).toBe(400);
        expect(envelopeOf(response)).toMatchObject({ code: 'INVALID_REQUEST', target: 'Host' });
      }
    });

    it.each(['[::1]:8080', '127.0.0.1', 'payments.internal:3000', 'payments_api'])(
      'serves Host %j',
      async (host) => {
        const exchange = await rawExchange(
          running.port,
          `GET /v1/customers/customers/CUST-SEED1 HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
        );
        expect(parseRawResponses(exchange.text)[0]?.status).toBe(200);
      },
    );

    it("links a list asked for with an absolute-form target to that target's authority", async () => {
      const exchange = await rawExchange(
        running.port,
        'GET http://api.example/v1/customers/customers?page_size=1 HTTP/1.1\r\nHost: other.example\r\nConnection: close\r\n\r\n',
      );
      const [response] = parseRawResponses(exchange.text);
      expect(response?.status).toBe(200);
      const { links } = JSON.parse(response?.body ?? '') as { links: { href: string }[] };
      expect(links.length).toBeGreaterThan(0);
      for (const link of links)
        expect(link.href).toMatch(/^http:\/\/api\.example\/v1\/customers\//);
    });
  });

  describe('a client sending its headers one byte a second', () => {
    // The example's limits, with the headers timeout shortened so the test takes seconds.
    const limits: ServerLimits = {
      ...SERVER_LIMITS,
      headersTimeout: 1_500,
      requestTimeout: 3_000,
      connectionsCheckingInterval: 100,
    };

    it('gets a 408 envelope and is closed by the server, while others are served', async () => {
      await start(limits);
      const head = `GET ${CARD} HTTP/1.1\r\nHost: x\r\n\r\n`;
      const slow = rawExchange(running.port, [...head], {
        // The client's pace (one byte a second), not a wait of the test's.
        gapMs: 1_000,
        // Only a bound against a hang: the head takes far longer than this to send, so a close
        // by the server before it is the server's timeout, whatever the machine's load.
        timeoutMs: 15_000,
      });
      const served = await Promise.all(
        Array.from({ length: 5 }, () => fetch(`${running.url}${CARD}`)),
      );
      expect(served.map((response) => response.status)).toEqual([200, 200, 200, 200, 200]);
      const exchange = await slow;
      expect(exchange.closedByServer).toBe(true);
      expect(exchange.text).toMatch(/\r\nConnection: close\r\n/i);
      const [response, ...more] = parseRawResponses(exchange.text);
      expect(more).toEqual([]);
      expect(response?.status).toBe(408);
      expect(envelopeOf(response).code).toBe('REQUEST_TIMEOUT');
    });
  });
});

describe('the example server limits', () => {
  it('keeps idle connections longer than a 60 s load balancer idle timeout', () => {
    expect(SERVER_LIMITS.keepAliveTimeout).toBeGreaterThan(60_000);
    expect(SERVER_LIMITS.headersTimeout).toBeLessThanOrEqual(SERVER_LIMITS.requestTimeout);
  });

  it('applies every limit to the server it creates', () => {
    const server = createPaymentsServer(() => undefined);
    expect({
      // Node keeps the option on the server without typing it.
      maxHeaderSize: (server as typeof server & { maxHeaderSize?: number }).maxHeaderSize,
      headersTimeout: server.headersTimeout,
      requestTimeout: server.requestTimeout,
      keepAliveTimeout: server.keepAliveTimeout,
      maxHeadersCount: server.maxHeadersCount,
      maxRequestsPerSocket: server.maxRequestsPerSocket,
    }).toEqual({
      maxHeaderSize: SERVER_LIMITS.maxHeaderSize,
      headersTimeout: SERVER_LIMITS.headersTimeout,
      requestTimeout: SERVER_LIMITS.requestTimeout,
      keepAliveTimeout: SERVER_LIMITS.keepAliveTimeout,
      maxHeadersCount: SERVER_LIMITS.maxHeadersCount,
      maxRequestsPerSocket: SERVER_LIMITS.maxRequestsPerSocket,
    });
    expect(server.listenerCount('clientError')).toBe(1);
    expect(server.listenerCount('checkExpectation')).toBe(1);
    expect(server.listenerCount('connect')).toBe(1);
  });

  it('keeps every header of a request with many, up to maxHeaderSize', async () => {
    const running = await listen(
      createPaymentsServer((req, res) => {
        res.setHeader('Content-Type', 'application/json');
        res.end(
          JSON.stringify({
            count: Object.keys(req.headers).length,
            forwardedFor: req.headers['x-forwarded-for'],
            authorization: req.headers.authorization,
          }),
        );
      }),
    );
    try {
      // 150 ordinary headers, then those a load balancer and a client add last.
      const headers: Record<string, string> = {};
      for (let index = 0; index < 150; index++) headers[`X-Trace-${index}`] = String(index);
      headers['X-Forwarded-For'] = '203.0.113.7';
      headers.Authorization = 'Bearer late-token';
      const res = await fetch(running.url, { headers });
      const seen = (await res.json()) as Record<string, unknown>;
      expect(seen).toMatchObject({
        forwardedFor: '203.0.113.7',
        authorization: 'Bearer late-token',
      });
      expect(seen.count).toBeGreaterThan(152);
    } finally {
      await running.close();
    }
  });
});
