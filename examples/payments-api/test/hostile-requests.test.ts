/**
 * Hostile requests against every operation the OpenAPI document lists, one kind at a time, each
 * sent to every operation it applies to: each is answered with a clear error envelope naming
 * what was wrong, and changes nothing (every documented GET answers the same before and after).
 * The fuzz suites (`*.property.test.ts`) send random mixes of these; here each case is sent to
 * every operation, so a new route is covered the day the document lists it.
 */
import { randomUUID } from 'node:crypto';
import { redisStore } from '@resourceful/service-request-idempotency';
import {
  describeEachExpress,
  expectErrorEnvelope,
  type RedisClient,
  redisClient,
  refusedPort,
} from '@resourceful/test-support';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createApp } from '../src/app.js';
import { OPENAPI_PATH } from '../src/description/docs.js';
import { GRAPHQL_PATH } from '../src/description/graphql.js';
import {
  type Json,
  PUBLIC_BASE_URL as publicBaseUrl,
  reachableOperations,
  snapshot,
} from './documented-operations.js';

/** Query parameter names a prototype-polluting parser would follow, as a client sends them. */
const FORBIDDEN_NAMES: readonly [query: string, name: string][] = [
  ['__proto__=1', '__proto__'],
  ['__proto__[polluted]=1', '__proto__[polluted]'],
  ['constructor[prototype][polluted]=1', 'constructor[prototype][polluted]'],
  ['filter[__proto__][polluted]=1', 'filter[__proto__][polluted]'],
  ['a.prototype=1', 'a.prototype'],
  ['%5F%5Fproto%5F%5F%5Bpolluted%5D=1', '__proto__[polluted]'],
];

/** Versions the service does not serve, as the first path segment. */
const UNKNOWN_VERSIONS = ['v2', 'v0', 'v1.1', 'v01', 'v99999'];

/** Media types that are not JSON, sent with a JSON-looking body. */
const NOT_JSON = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
];

function expectUnpolluted(): void {
  expect(({} as Json).polluted).toBeUndefined();
  expect(Object.prototype).not.toHaveProperty('polluted');
}

/** A body the operation would take, to send with one thing wrong around it. */
function validBody(verb: string, operation: Json): { type: string; body: string } {
  if (verb === 'patch') return { type: 'application/json-patch+json', body: '[]' };
  const example = operation.requestBody?.content?.['application/json']?.example ?? {};
  return { type: 'application/json', body: JSON.stringify(example) };
}

/** `json` (an object) with a `__proto__` member first. */
function withProtoKey(json: string): string {
  const rest = json.slice(1);
  return `{"__proto__":{"polluted":1}${rest === '}' ? '' : ','}${rest}`;
}

/** Whether the document offers `Service-Request-Id` on the operation. */
function takesServiceRequestId(operation: Json): boolean {
  return (operation.parameters ?? []).some(
    (parameter: Json) => parameter.$ref === '#/components/parameters/ServiceRequestId',
  );
}

describeEachExpress('hostile requests to every documented operation', (express) => {
  let document: Json;
  let app: Express;
  let before: string;

  beforeAll(async () => {
    app = createApp({ express, publicBaseUrl });
    document = (await request(app).get(OPENAPI_PATH)).body;
    before = await snapshot(app, document);
  });

  /** After each kind of hostile request: nothing changed, no prototype polluted. */
  async function expectNothingChanged(): Promise<void> {
    expect(await snapshot(app, document)).toBe(before);
    expectUnpolluted();
  }

  it('answers __proto__, constructor and prototype in a query parameter name with 400 FORBIDDEN_KEY naming it', async () => {
    let sent = 0;
    for (const { verb, url, operation } of reachableOperations(document)) {
      for (const [query, name] of FORBIDDEN_NAMES) {
        const { type, body } = validBody(verb, operation);
        const target = `${url}${url.includes('?') ? '&' : '?'}${query}`;
        const test = request(app)[verb](target);
        const res =
          verb === 'get' || verb === 'delete'
            ? await test
            : await test.set('Content-Type', type).send(body);
        expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: name });
        expect(res.body.error.innererror.code, `${verb} ${target}`).toBe('FORBIDDEN_KEY');
        sent++;
      }
    }
    expect(sent).toBeGreaterThan(100);
    await expectNothingChanged();
  });

  it('answers them the same outside the versioned API: GraphQL, discovery, the document', async () => {
    for (const path of [`${GRAPHQL_PATH}?query=%7B__typename%7D`, '/api', OPENAPI_PATH]) {
      const res = await request(app).get(
        `${path}${path.includes('?') ? '&' : '?'}__proto__[polluted]=1`,
      );
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: '__proto__[polluted]' });
    }
    await expectNothingChanged();
  });

  it('serves a query value that merely contains those words', async () => {
    const res = await request(app).get('/v1/vault/credit-cards').query({ payer_id: '__proto__' });
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([]);
  });

  it('answers malformed JSON with 400 MALFORMED_REQUEST on every operation that takes a body', async () => {
    let sent = 0;
    for (const { verb, url, operation } of reachableOperations(document)) {
      if (operation.requestBody === undefined) continue;
      const { type, body } = validBody(verb, operation);
      for (const broken of [
        body.slice(0, -1),
        `${body}}`,
        "{'single': 'quotes'}",
        '\u0000',
        '{"a":1,}',
      ]) {
        const res = await request(app)[verb](url).set('Content-Type', type).send(broken);
        expectErrorEnvelope(res, 400);
        expect(['MALFORMED_REQUEST', 'INVALID_REQUEST'], `${verb} ${url} ${broken}`).toContain(
          res.body.error.code,
        );
        sent++;
      }
    }
    expect(sent).toBeGreaterThanOrEqual(14 * 5);
    await expectNothingChanged();
  });

  it('answers a __proto__ key in the body with 400 FORBIDDEN_KEY on every operation that takes a body', async () => {
    for (const { verb, url, operation } of reachableOperations(document)) {
      if (operation.requestBody === undefined) continue;
      const poisoned: [string, string][] =
        verb === 'patch'
          ? [
              ['application/merge-patch+json', '{"__proto__":{"polluted":1}}'],
              [
                'application/json-patch+json',
                '[{"op":"add","path":"/__proto__/polluted","value":1}]',
              ],
            ]
          : [['application/json', withProtoKey(validBody(verb, operation).body)]];
      for (const [type, body] of poisoned) {
        const res = await request(app)[verb](url).set('Content-Type', type).send(body);
        expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST' });
        // A JSON Patch names the operation's member; a document names the key's path.
        const expected = type === 'application/json-patch+json' ? '[0].path' : '__proto__';
        expect(res.body.error.target, `${verb} ${url} ${type}`).toBe(expected);
      }
    }
    await expectNothingChanged();
  });

  it('answers a body that is not JSON with 415 naming Content-Type on every operation that takes a body', async () => {
    for (const { verb, url, operation } of reachableOperations(document)) {
      if (operation.requestBody === undefined) continue;
      const { body } = validBody(verb, operation);
      for (const type of NOT_JSON) {
        const res = await request(app)[verb](url).set('Content-Type', type).send(body);
        expectErrorEnvelope(res, 415, { code: 'UNSUPPORTED_MEDIA_TYPE', target: 'Content-Type' });
        if (verb === 'patch')
          expect(res.headers['accept-patch']).toContain('application/json-patch+json');
      }
    }
    await expectNothingChanged();
  });

  it('answers an unknown version with 400 UNSUPPORTED_VERSION naming the served ones, whatever the method', async () => {
    for (const { verb, url, operation } of reachableOperations(document)) {
      for (const version of UNKNOWN_VERSIONS) {
        const target = url.replace(/^\/v1\//, `/${version}/`);
        const { type, body } = validBody(verb, operation);
        const test = request(app)[verb](target);
        const res =
          verb === 'get' || verb === 'delete'
            ? await test
            : await test.set('Content-Type', type).send(body);
        expectErrorEnvelope(res, 400, { code: 'UNSUPPORTED_VERSION', target: 'version' });
        expect(res.body.error.details).toEqual([
          { code: 'UNSUPPORTED_VERSION', message: 'Version v1 is served.', target: 'v1' },
        ]);
      }
    }
    await expectNothingChanged();
  });
});

describeEachExpress('every POST with Service-Request-Id while Redis is down', (express) => {
  let client: RedisClient;
  let app: Express;
  let document: Json;
  let before: string;

  beforeAll(async () => {
    // As server.ts makes it, on a port that refuses connections for the whole test.
    client = redisClient(`redis://127.0.0.1:${await refusedPort()}`);
    client.connect().catch(() => undefined);
    app = createApp({
      express,
      publicBaseUrl,
      idempotencyStore: redisStore({ client, onWarning: () => undefined }),
    });
    document = (await request(app).get(OPENAPI_PATH)).body;
    before = await snapshot(app, document);
  });

  afterAll(() => {
    client.destroy();
  });

  it('answers each POST that documents Service-Request-Id 503 SERVICE_UNAVAILABLE with Retry-After, as documented, changing nothing, GraphQL too', async () => {
    let posts = 0;
    for (const { verb, url, operation } of reachableOperations(document)) {
      if (verb !== 'post' || !takesServiceRequestId(operation)) continue;
      expect(operation.responses['503'], `POST ${url} documents its 503`).toBeDefined();
      const res = await request(app)
        .post(url)
        .set('Service-Request-Id', randomUUID())
        .send(JSON.parse(validBody(verb, operation).body));
      expectErrorEnvelope(res, 503, { code: 'SERVICE_UNAVAILABLE' });
      expect(res.headers['retry-after'], url).toMatch(/^[1-9]\d*$/);
      posts++;
    }
    expect(posts).toBeGreaterThanOrEqual(8);
    const mutation = await request(app)
      .post(GRAPHQL_PATH)
      .set('Service-Request-Id', randomUUID())
      .send({
        query:
          'mutation { create_customer(input: { merchant_customer_id: "down", merchant_id: "M-1" }) { id } }',
      });
    expectErrorEnvelope(mutation, 503, { code: 'SERVICE_UNAVAILABLE' });
    expect(mutation.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    expect(await snapshot(app, document)).toBe(before);
  });

  it('serves the same POSTs without Service-Request-Id: only idempotency needs Redis', async () => {
    const res = await request(app).post('/v1/risk/evaluate').send({ code: 'R-1' });
    expect(res.status).toBe(200);
  });
});
