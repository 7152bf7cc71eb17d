/**
 * Hostile HTTP against the example, as an attacker or a broken client would send it, over
 * `fetch` and over raw sockets. Seeded and bounded: a few thousand requests by default (320
 * cases per Express version, each followed by reads of the sentinels). `FUZZ_RUNS=<n>` runs n
 * cases over fetch and 0.6 n over raw sockets per Express version; `FUZZ_SEED=<n>` changes the
 * seed (a failure prints the seed and path to replay it).
 *
 * Oracles that cannot pass by accident: no 5xx and no fault reported; every error body is an
 * envelope in the negotiated format; every byte the server writes parses as responses; no
 * request hangs (each is bounded) and the server keeps serving; sentinel resources change only
 * when a 2xx answer to a write named them; no property appears on fresh objects.
 */
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import {
  describeEachExpress,
  listen,
  parseRawResponses,
  type RunningServer,
  rawExchange,
} from '@resourceful/test-support';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { createPaymentsServer, SERVER_LIMITS } from '../src/server-limits.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = Number(process.env.FUZZ_SEED ?? 20_211);
const REQUEST_BOUND_MS = 5_000;

const SENTINELS = [
  { id: 'CARD-SEED1', path: '/v1/vault/credit-cards/CARD-SEED1' },
  { id: 'CUST-SEED1', path: '/v1/customers/customers/CUST-SEED1' },
  { id: 'WH-SEED1', path: '/v1/notifications/webhooks/WH-SEED1' },
] as const;

const COLLECTIONS = [
  '/v1/vault/credit-cards',
  '/v1/customers/customers',
  '/v1/payments/billing-agreements',
  '/v1/notifications/webhooks',
  '/v1/payments/captures',
  '/v1/risk/decisions',
];

// ---- generators ------------------------------------------------------------------------------

const hostileSegment = fc.oneof(
  fc.constantFrom(
    '..',
    '%2e%2e',
    '%00',
    '%ff',
    '%',
    '__proto__',
    'constructor',
    'prototype',
    '%5f%5fproto%5f%5f',
    'a'.repeat(300),
    '💳',
    '',
  ),
  fc.string({ maxLength: 16 }).map(encodeURIComponent),
);

const query = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    '?__proto__[polluted]=yes',
    '?constructor[prototype][polluted]=yes',
    '?page_size=__proto__',
    '?page_size=-1&page=1e309',
    '?page_size=100000000000000000000',
    '?sort_by[]=a&sort_by[]=b',
    '?sort_by=create_time&sort_order=sideways',
    '?start_time=not-a-date&end_time=9999-99-99',
    '?Prefer=return%3Dminimal',
    '?payer_id=%00%0d%0aX-Injected:%201',
    '?total_required=yes&fields=__proto__',
  ),
  fc
    .array(fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 24 })), { maxLength: 4 })
    .map(
      (pairs) =>
        `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')}`,
    ),
);

const path = fc
  .tuple(
    fc.oneof(
      fc.constantFrom(...SENTINELS.map((sentinel) => sentinel.path)),
      fc.constantFrom(...COLLECTIONS),
      fc
        .constantFrom(...COLLECTIONS)
        .chain((base) => hostileSegment.map((segment) => `${base}/${segment}`)),
      fc
        .constantFrom(...SENTINELS.map((sentinel) => sentinel.path))
        .chain((base) => hostileSegment.map((segment) => `${base}/${segment}`)),
      fc.array(hostileSegment, { maxLength: 5 }).map((segments) => `/${segments.join('/')}`),
      fc.constantFrom(
        '/v1/payments/captures/CAPTURE-SEED1/refund',
        '/v1/payments/billing-agreements/AGREEMENT-SEED01/suspend',
        '/v1/payments/search-billing-agreements',
        '/v1/risk/evaluate',
        '/api',
        '/v2/vault/credit-cards',
        '/v1.0/vault/credit-cards',
      ),
    ),
    query,
  )
  .map(([base, q]) => base + q);

const pollutingBodies = [
  '{"__proto__":{"polluted":"yes"}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '[{"op":"add","path":"/__proto__/polluted","value":"yes"}]',
  '[{"op":"replace","path":"/constructor/prototype/polluted","value":"yes"}]',
  '[{"op":"copy","from":"/first_name","path":"/__proto__/polluted"}]',
  '{"billing_address":{"__proto__":{"polluted":"yes"}}}',
  '{"event_types":[{"name":"__proto__","description":"x"}],"url":"https://a.example"}',
];

const validPatches = [
  '[{"op":"replace","path":"/first_name","value":"Fuzz"}]',
  '[{"op":"test","path":"/first_name","value":"nope"}]',
  '[{"op":"remove","path":"/last_name"}]',
  '[{"op":"add","path":"/event_types/-","value":{"name":"PAYMENT.SALE.COMPLETED"}}]',
  '{"first_name":"Merge"}',
  '{"url":"https://fuzz.example/hook"}',
];

const body = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)),
  fc.constantFrom(...pollutingBodies, ...validPatches),
  fc.string({ maxLength: 200 }),
  fc.constantFrom('{"a":', '', 'null', '[]', '{}', '"x"', '1e999', '\u0000', '{"a":1}{"b":2}'),
  fc.integer({ min: 1, max: 3_000 }).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
  // Over the 100 kB body limit (413).
  fc.constant(`{"x":"${'a'.repeat(110_000)}"}`),
);

const headerValue = fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,58}[\x21-\x7e])?$/);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=iso-8859-1',
  'application/json; charset=nope',
  'application/json-patch+json',
  'application/merge-patch+json',
  'text/plain',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/xml',
  '*/*',
  'json',
);

const headers = fc.record(
  {
    'content-type': contentType,
    accept: fc.oneof(
      fc.constantFrom(
        'application/json',
        'application/xml',
        'text/xml',
        'text/javascript',
        'image/png',
        '*/*;q=0',
        'application/json;q=0, */*;q=0',
        `${'text/html;q=0.1, '.repeat(200)}*/*`,
      ),
      headerValue,
    ),
    'accept-language': fc.oneof(fc.constantFrom('fr', 'en-US,fr;q=0.5', '*', 'zz-ZZ'), headerValue),
    'accept-encoding': fc.oneof(
      fc.constantFrom('gzip', 'br, gzip;q=0', 'identity;q=0'),
      headerValue,
    ),
    prefer: fc.oneof(
      fc.constantFrom('return=minimal', 'return=representation', 'respond-async'),
      headerValue,
    ),
    'if-match': fc.oneof(fc.constantFrom('*', '"x"', 'W/"x"', '""'), headerValue),
    'if-none-match': fc.oneof(fc.constantFrom('*', '"x"'), headerValue),
    'service-request-id': fc.oneof(fc.constantFrom('fuzz-1', 'fuzz-2', '__proto__'), headerValue),
    'x-request-id': headerValue,
  },
  { requiredKeys: [] },
);

const method = fc.constantFrom(
  'GET',
  'HEAD',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'OPTIONS',
  'PROPFIND',
  'PURGE',
  'TRACE',
);

// undici's fetch refuses TRACE (and CONNECT); the raw sockets send it.
const fetchMethod = method.filter((m) => m !== 'TRACE');
const fetchCase = fc.record({ method: fetchMethod, path, headers, body });

/** How the raw request frames its body, and what follows it on the connection. */
const framing = fc.constantFrom(
  'content-length',
  'none',
  'chunked',
  'broken-chunked',
  'short-content-length',
  'double-content-length',
  'content-length-and-chunked',
);
const trailer = fc.oneof(
  fc.constant(''),
  fc.constantFrom(
    'GARBAGE\r\n\r\n',
    '\r\n',
    'GET /v1/vault/credit-cards HTTP/1.1\r\nHost: x\r\n\r\n',
    `DELETE ${SENTINELS[0].path} HTTP/1.1\r\nHost: x\r\n\r\n`,
    'GET / HTTP/9.9\r\n\r\n',
    'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
  ),
  fc.string({ maxLength: 60 }),
);
const rawHeaderLines = fc.array(
  fc.oneof(
    fc.constantFrom(
      'Expect: 100-continue',
      'Expect: foo',
      'X-Folded: a\r\n b',
      'Bad Header: x',
      'X-Nul: a\u0000b',
      'Host: a\r\nHost: b',
      `X-Long: ${'a'.repeat(10_000)}`,
      'Upgrade: websocket\r\nConnection: upgrade',
      'Content-Encoding: gzip',
      'Transfer-Encoding: gzip, chunked',
    ),
    headerValue.map((value) => `X-Fuzz: ${value}`),
  ),
  { maxLength: 3 },
);
const anyRawCase = fc.record({
  method,
  path,
  headers,
  body,
  framing,
  extraHeaderLines: rawHeaderLines,
  trailer,
  splitAt: fc.option(fc.nat(), { nil: undefined }),
});
// Writes to a sentinel whose body is framed wrong: where a refusal could replace the answer of
// a write that ran (the fault this suite exists for), so a third of the cases go there.
const sentinelWriteCase = fc.record({
  method: fc.constantFrom('DELETE', 'PUT', 'PATCH', 'POST'),
  path: fc.constantFrom(...SENTINELS.map((sentinel) => sentinel.path)),
  headers: fc.record({ 'content-type': contentType }),
  body: fc.oneof(fc.constantFrom(...validPatches, '{"a":1}'), body),
  framing: fc.constantFrom('none', 'short-content-length', 'content-length', 'broken-chunked'),
  extraHeaderLines: fc.constant([] as string[]),
  trailer,
  splitAt: fc.option(fc.nat(), { nil: undefined }),
});
const rawCase = fc.oneof(
  { arbitrary: anyRawCase, weight: 2 },
  { arbitrary: sentinelWriteCase, weight: 1 },
);

type RawCase = typeof rawCase extends fc.Arbitrary<infer T> ? T : never;

function rawRequest(c: RawCase): string {
  const lines = [`${c.method} ${c.path} HTTP/1.1`, 'Host: 127.0.0.1'];
  for (const [name, value] of Object.entries(c.headers)) lines.push(`${name}: ${value}`);
  lines.push(...c.extraHeaderLines, 'Connection: close');
  const bodyBytes = Buffer.byteLength(c.body, 'latin1');
  let framedBody = c.body;
  switch (c.framing) {
    case 'content-length':
      lines.push(`Content-Length: ${bodyBytes}`);
      break;
    case 'short-content-length':
      lines.push(`Content-Length: ${Math.floor(bodyBytes / 2)}`);
      break;
    case 'double-content-length':
      lines.push(`Content-Length: ${bodyBytes}`, `Content-Length: ${bodyBytes + 1}`);
      break;
    case 'chunked':
      lines.push('Transfer-Encoding: chunked');
      framedBody = `${bodyBytes > 0 ? `${bodyBytes.toString(16)}\r\n${c.body}\r\n` : ''}0\r\n\r\n`;
      break;
    case 'broken-chunked':
      lines.push('Transfer-Encoding: chunked');
      framedBody = `zz\r\n${c.body}\r\n0\r\n\r\n`;
      break;
    case 'content-length-and-chunked':
      lines.push(`Content-Length: ${bodyBytes}`, 'Transfer-Encoding: chunked');
      framedBody = `${bodyBytes.toString(16)}\r\n${c.body}\r\n0\r\n\r\n`;
      break;
    case 'none':
      break;
  }
  return `${lines.join('\r\n')}\r\n\r\n${framedBody}${c.trailer}`;
}

// ---- oracles ---------------------------------------------------------------------------------

interface Answer {
  status: number;
  contentType: string | undefined;
  body: string;
}

function expectEnvelope(answer: Answer, what: string): void {
  const type = answer.contentType ?? '';
  if (type.startsWith('application/json')) {
    const parsed = JSON.parse(answer.body) as { error?: Record<string, unknown> };
    expect(Object.keys(parsed), what).toEqual(['error']);
    expect(parsed.error?.code, what).toBeTypeOf('string');
    expect(parsed.error?.message, what).toBeTypeOf('string');
    for (const key of Object.keys(parsed.error ?? {})) {
      expect(['code', 'message', 'target', 'details', 'innererror'], what).toContain(key);
    }
  } else if (/[/+]xml\b/.test(type)) {
    expect(answer.body, what).toMatch(/<error\b[\s\S]*<code>[\s\S]*<message>/);
  } else {
    expect.fail(
      `${what}: an error answered as ${JSON.stringify(type)}: ${answer.body.slice(0, 200)}`,
    );
  }
}

/** A body whose framing Node reads as sent: any refusal is of the bytes after the request. */
function isWellFramed(c: RawCase): boolean {
  return (
    ['content-length', 'none', 'chunked', 'short-content-length'].includes(c.framing) &&
    !c.extraHeaderLines.some((line) => /transfer-encoding|content-length/i.test(line))
  );
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

function prototypeKeys(): string[] {
  return [
    ...Object.getOwnPropertyNames(Object.prototype),
    ...Object.getOwnPropertyNames(Array.prototype),
    ...Object.getOwnPropertyNames(Function.prototype),
  ].sort();
}

/**
 * The responses on the wire. A HEAD request Node refused before it reached the app is answered
 * with a body (the envelope), so both framings are tried for HEAD.
 */
/**
 * A raw answer's body without its content coding (content-negotiation compresses for clients
 * that accept it), read in the charset its Content-Type names.
 */
function decodedBody(response: {
  headers: Readonly<Record<string, string>>;
  body: string;
}): string {
  const bytes = Buffer.from(response.body, 'latin1');
  const coding = response.headers['content-encoding'];
  const plain =
    coding === 'gzip'
      ? gunzipSync(bytes)
      : coding === 'br'
        ? brotliDecompressSync(bytes)
        : coding === 'deflate'
          ? inflateSync(bytes)
          : bytes;
  const latin1 = /charset=iso-8859-1/i.test(response.headers['content-type'] ?? '');
  return plain.toString(latin1 ? 'latin1' : 'utf8');
}

function parseAnswers(text: string, sentMethod: string) {
  try {
    return parseRawResponses(text, [sentMethod]);
  } catch (error) {
    if (sentMethod !== 'HEAD') throw error;
    return parseRawResponses(text);
  }
}

describeEachExpress('the example under hostile HTTP', (express) => {
  let running: RunningServer;
  const faults: unknown[] = [];
  let sentinels = new Map<string, string>();
  const baselinePrototypeKeys = prototypeKeys();
  // Requests Node handed to the app (its 'request' event), to tell them from refused bytes.
  let requestsReachingApp = 0;

  async function readSentinel(sentinelPath: string): Promise<string> {
    const res = await fetch(`${running.url}${sentinelPath}`, {
      // A fixed request id: error envelopes carry it, and a fresh one per read would differ.
      headers: { 'X-Request-Id': 'sentinel-read' },
      signal: AbortSignal.timeout(REQUEST_BOUND_MS),
    });
    return `${res.status} ${await res.text()}`;
  }

  /**
   * Every sentinel that changed must have been named by a 2xx answer to a write of this case;
   * the snapshots then follow the new state.
   */
  async function checkSentinels(
    answered: readonly { method: string; path: string; status: number }[],
  ): Promise<void> {
    const states = await Promise.all(SENTINELS.map((sentinel) => readSentinel(sentinel.path)));
    for (const [index, sentinel] of SENTINELS.entries()) {
      const now = states[index] ?? '';
      if (now === sentinels.get(sentinel.path)) continue;
      const named = answered.some(
        (a) =>
          WRITES.has(a.method) && a.status < 300 && a.status >= 200 && a.path.includes(sentinel.id),
      );
      expect(named, `${sentinel.path} changed without a 2xx write naming it`).toBe(true);
      sentinels.set(sentinel.path, now);
    }
  }

  function checkNoPollution(): void {
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(([] as unknown as Record<string, unknown>).polluted).toBeUndefined();
    expect(prototypeKeys()).toEqual(baselinePrototypeKeys);
  }

  beforeAll(async () => {
    const app = createApp({
      express,
      onError: (report) => {
        if (report.fault) faults.push(report.cause);
      },
    });
    const server = createPaymentsServer(app, {
      ...SERVER_LIMITS,
      // A case whose body never completes ends within seconds, not the example's 30.
      headersTimeout: 2_000,
      requestTimeout: 3_000,
      connectionsCheckingInterval: 100,
    });
    server.prependListener('request', () => {
      requestsReachingApp++;
    });
    running = await listen(server);
    sentinels = new Map(
      await Promise.all(SENTINELS.map(async (s) => [s.path, await readSentinel(s.path)] as const)),
    );
  });

  afterAll(async () => {
    await running.close();
  });

  it('over fetch: no 5xx, envelopes, sentinels honest, no pollution', async () => {
    await fc.assert(
      fc.asyncProperty(fetchCase, async (c) => {
        const what = `${c.method} ${c.path}`;
        const sendsBody = !['GET', 'HEAD', 'TRACE'].includes(c.method);
        const res = await fetch(`${running.url}${c.path}`, {
          method: c.method,
          headers: c.headers,
          body: sendsBody ? c.body : undefined,
          signal: AbortSignal.timeout(REQUEST_BOUND_MS),
        });
        const text = await res.text();
        expect(res.status, what).toBeLessThan(500);
        if (res.status >= 400 && c.method !== 'HEAD') {
          expectEnvelope(
            {
              status: res.status,
              contentType: res.headers.get('content-type') ?? undefined,
              body: text,
            },
            what,
          );
        }
        await checkSentinels([{ method: c.method, path: c.path, status: res.status }]);
        checkNoPollution();
        expect(faults, what).toEqual([]);
      }),
      { numRuns: RUNS, seed: SEED, endOnFailure: true },
    );
  }, 600_000);

  it('over raw sockets: every byte written is an answer, none 5xx, and the server closes', async () => {
    await fc.assert(
      fc.asyncProperty(rawCase, async (c) => {
        const bytes = Buffer.from(rawRequest(c), 'latin1');
        const at = c.splitAt === undefined ? undefined : c.splitAt % Math.max(1, bytes.length);
        const chunks = at === undefined ? [bytes] : [bytes.subarray(0, at), bytes.subarray(at)];
        const reachedBefore = requestsReachingApp;
        const exchange = await rawExchange(running.port, chunks, {
          timeoutMs: REQUEST_BOUND_MS,
          gapMs: 5,
        });
        const reachedApp = requestsReachingApp - reachedBefore;
        const what = `${c.method} ${c.path} (${c.framing})`;
        // "Connection: close" is on the request: the server must end the connection itself.
        expect(exchange.closedByServer, `${what}: the server did not close`).toBe(true);
        const responses = parseAnswers(exchange.text, c.method);
        // 1xx interim answers (100 Continue) come before the final ones.
        const finals = responses.filter((response) => response.status >= 200);
        for (const [index, response] of finals.entries()) {
          expect(response.status, what).toBeLessThan(500);
          if (response.status >= 400 && !(index === 0 && c.method === 'HEAD')) {
            expectEnvelope(
              {
                status: response.status,
                contentType: response.headers['content-type'],
                body: decodedBody(response),
              },
              what,
            );
          }
        }
        // Every case ends its one request with "Connection: close": whatever follows is never
        // a request, so one final answer at most, for the request that ran or for its refusal.
        expect(
          finals.length,
          `${what}: ${finals.map((r) => r.status).join(', ')}`,
        ).toBeLessThanOrEqual(Math.max(1, reachedApp));
        const first = finals[0];
        // A request that reached the app with a body framed well gets its own answer, never a
        // refusal of the bytes after it in its place.
        if (reachedApp > 0 && isWellFramed(c)) {
          expect(first?.body ?? '', `${what}: refused in place of its answer`).not.toContain(
            'MALFORMED_HTTP',
          );
        }
        await checkSentinels(
          first === undefined ? [] : [{ method: c.method, path: c.path, status: first.status }],
        );
        checkNoPollution();
        expect(faults, what).toEqual([]);
      }),
      { numRuns: Math.ceil(RUNS * 0.6), seed: SEED, endOnFailure: true },
    );
    // Still serving after all of it.
    expect((await fetch(`${running.url}/v1/vault/credit-cards`)).status).toBe(200);
  }, 600_000);
});
