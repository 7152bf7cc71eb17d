/**
 * The example's server makes requests and responses with the app's prototypes
 * (message-classes.ts), which only keeps V8's object shapes shared: every answer is the same,
 * byte for byte, as from a server on Node's own classes.
 */
import { createServer, IncomingMessage, type Server, ServerResponse } from 'node:http';
import {
  describeEachExpress,
  listen,
  parseRawResponses,
  type RawResponse,
  type RunningServer,
  rawExchange,
} from '@resourceful/test-support';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import {
  hasMessagePrototypes,
  isCallableConstructor,
  messageClassesFor,
} from '../src/message-classes.js';
import { createPaymentsServer } from '../src/server-limits.js';

const NOW = new Date('2026-03-01T12:00:00Z');
const LIST = '/v1/vault/credit-cards?page_size=20';
const CARD = '/v1/vault/credit-cards/CARD-SEED2';
const NEW_CARD = JSON.stringify({
  payer_id: 'user1',
  type: 'visa',
  number: '4111111111111111',
  expire_month: '3',
  expire_year: '2031',
});

interface Sent {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

// Reads, conditional reads, errors, a PATCH, a create and an idempotent replay of it, on one
// connection, pipelined; the last asks the server to close it.
const REQUESTS: readonly Sent[] = [
  { method: 'GET', path: LIST },
  { method: 'GET', path: `${LIST}&sort_by=expire_year&sort_order=asc`, headers: { Prefer: 'x' } },
  { method: 'HEAD', path: CARD },
  { method: 'GET', path: CARD, headers: { 'Accept-Encoding': 'gzip' } },
  { method: 'GET', path: CARD, headers: { Accept: 'application/xml' } },
  { method: 'OPTIONS', path: CARD },
  { method: 'GET', path: '/v1/vault/credit-cards?page_size=abc' },
  { method: 'GET', path: '/v1/nowhere' },
  { method: 'GET', path: '/v9/vault/credit-cards' },
  { method: 'TRACE', path: CARD },
  {
    method: 'PATCH',
    path: CARD,
    headers: { 'Content-Type': 'application/json-patch+json' },
    body: '[{"op":"replace","path":"/first_name","value":"Ann"}]',
  },
  {
    method: 'POST',
    path: '/v1/vault/credit-cards',
    headers: { 'Content-Type': 'application/json' },
    body: '{"payer_id":',
  },
  {
    method: 'POST',
    path: '/v1/vault/credit-cards',
    headers: { 'Content-Type': 'application/json', 'Service-Request-Id': 'create-1' },
    body: NEW_CARD,
  },
  {
    method: 'POST',
    path: '/v1/vault/credit-cards',
    headers: { 'Content-Type': 'application/json', 'Service-Request-Id': 'create-1' },
    body: NEW_CARD,
  },
  { method: 'GET', path: LIST, headers: { Connection: 'close' } },
];

function wire(sent: Sent, index: number): string {
  const headers: Record<string, string> = {
    Host: 'api.test',
    'X-Request-Id': `request-${index}`,
    ...sent.headers,
  };
  if (sent.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(sent.body));
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `${sent.method} ${sent.path} HTTP/1.1\r\n${lines.join('\r\n')}\r\n\r\n${sent.body ?? ''}`;
}

// The created card's id is random; the answers that carry it (and their tags) are compared
// with it replaced.
const GENERATED_ID = /CARD-(?!SEED)[0-9A-Z]{16}/g;

function comparable(response: RawResponse): RawResponse {
  const body = response.body.replace(GENERATED_ID, 'CARD-NEW');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) {
    if (name === 'etag' && body !== response.body) continue;
    headers[name] = value.replace(GENERATED_ID, 'CARD-NEW');
  }
  return { status: response.status, headers, body };
}

describeEachExpress('requests and responses made with the app’s prototypes', (express) => {
  const running: RunningServer[] = [];

  afterEach(async () => {
    await Promise.all(running.splice(0).map((server) => server.close()));
  });

  async function exchange(server: Server): Promise<RawResponse[]> {
    const started = await listen(server);
    running.push(started);
    const { text, closedByServer } = await rawExchange(started.port, REQUESTS.map(wire).join(''));
    expect(closedByServer).toBe(true);
    return parseRawResponses(
      text,
      REQUESTS.map((sent) => sent.method),
    ).map(comparable);
  }

  it('answers every request byte for byte as a server on Node’s own classes does', async () => {
    const plainApp = createApp({ express, now: () => NOW });
    const shapedApp = createApp({ express, now: () => NOW });
    const plain = await exchange(createServer(plainApp));
    const shaped = await exchange(createServer(messageClassesFor(shapedApp), shapedApp));
    expect(plain.map((response) => response.status)).toEqual([
      200, 200, 200, 200, 200, 204, 400, 404, 400, 405, 204, 400, 201, 201, 200,
    ]);
    expect(shaped).toEqual(plain);
  });

  it('gives the example’s server’s requests the prototypes Express gives them', async () => {
    const app = express();
    const seen: unknown[][] = [];
    app.get('/probe', (req, res) => {
      seen.push([
        Object.getPrototypeOf(req) === app.request,
        Object.getPrototypeOf(res) === app.response,
        req instanceof IncomingMessage,
        res instanceof ServerResponse,
        req.app === app,
      ]);
      res.json({ ok: true });
    });
    expect(hasMessagePrototypes(app)).toBe(true);
    const server = await listen(createPaymentsServer(app));
    running.push(server);
    const answer = await fetch(`${server.url}/probe`);
    expect(await answer.json()).toEqual({ ok: true });
    expect(seen).toEqual([[true, true, true, true, true]]);
  });
});

describe('which listeners and constructors qualify', () => {
  it('takes Node’s IncomingMessage and ServerResponse as callable constructors, not classes', () => {
    expect(isCallableConstructor(IncomingMessage)).toBe(true);
    expect(isCallableConstructor(ServerResponse)).toBe(true);
    expect(isCallableConstructor(class Message {})).toBe(false);
    expect(isCallableConstructor(undefined)).toBe(false);
  });

  it('leaves a plain request listener on Node’s classes', () => {
    expect(hasMessagePrototypes(() => undefined)).toBe(false);
    expect(
      hasMessagePrototypes(Object.assign(() => undefined, { request: {}, response: {} })),
    ).toBe(false);
  });
});
