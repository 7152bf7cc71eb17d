/**
 * The OpenAPI document states what the service accepts, and the service holds to it, in memory
 * and on PostgreSQL: every value a filter's enum lists answers 200 and any other a 400 naming
 * the filter; every bound the document gives a list parameter, a create body's field or the
 * `Service-Request-Id` header is accepted at the bound and refused one step past it, with a 400
 * naming what was refused. Everything is read from the served document, not restated here.
 */
import {
  describeEachExpress,
  expectErrorEnvelope,
  hasPostgresServer,
  type PostgresPool,
  startPostgresPool,
} from '@resourceful/test-support';
import type { Express } from 'express';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appReady, createApp } from '../src/app.js';
import { OPENAPI_PATH } from '../src/description/docs.js';
import { INVALID_FILTER_VALUE } from '../src/description/filter-values.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests walk the served JSON document
type Json = Record<string, any>;
type App = Parameters<typeof request>[0];

const postgresAvailable = hasPostgresServer();
let postgres: PostgresPool | undefined;
let schemas = 0;

beforeAll(async () => {
  if (postgresAvailable) postgres = await startPostgresPool();
});

afterAll(() => postgres?.close());

/** A `$ref`'d parameter resolved from the document's components. */
function resolved(document: Json, parameter: Json): Json {
  if (typeof parameter.$ref !== 'string') return parameter;
  return document.components.parameters[parameter.$ref.split('/').pop() as string];
}

/** The list operations: GETs answering a collection. */
function lists(document: Json): { path: string; parameters: Json[] }[] {
  const found: { path: string; parameters: Json[] }[] = [];
  for (const [path, item] of Object.entries(document.paths as Json)) {
    const get = item.get as Json | undefined;
    const body = get?.responses?.['200']?.content?.['application/json']?.schema?.$ref;
    if (get === undefined || !String(body).endsWith('Collection')) continue;
    found.push({
      path,
      parameters: (get.parameters as Json[]).map((parameter) => resolved(document, parameter)),
    });
  }
  return found;
}

/** The path with each `{…_id}` filled with the first item of the collection above it. */
async function concrete(app: App, path: string): Promise<string> {
  let filled = path;
  for (let match = /\{[a-z_]+\}/.exec(filled); match; match = /\{[a-z_]+\}/.exec(filled)) {
    const parent = filled.slice(0, match.index - 1);
    const res = await request(app).get(parent).query({ page_size: 1 });
    expect(res.status, parent).toBe(200);
    const id = res.body.items[0]?.id;
    expect(id, `${parent} has an item`).toEqual(expect.any(String));
    filled = `${filled.slice(0, match.index)}${encodeURIComponent(id)}${filled.slice(match.index + match[0].length)}`;
  }
  return filled;
}

/** A query string value outside every value of `values`. */
function outside(values: readonly string[]): string {
  return `not-${values.join('-')}`;
}

const BACKENDS = [
  { name: 'memory', available: true },
  { name: 'PostgreSQL', available: postgresAvailable },
] as const;

describeEachExpress('the OpenAPI document and the service agree', (express) => {
  describe.each(BACKENDS)('on $name', ({ name, available }) => {
    let app: Express;
    let document: Json;

    beforeAll(async () => {
      if (!available) return;
      app = createApp({
        express,
        database:
          name === 'memory'
            ? false
            : { pool: (postgres as PostgresPool).pool, schema: `description_limits_${++schemas}` },
      });
      await appReady(app);
      document = (await request(app).get(OPENAPI_PATH)).body;
    });

    it.skipIf(!available)(
      'answers 200 to every value a filter’s enum lists, and 400 naming the filter to any other',
      async () => {
        let filters = 0;
        for (const list of lists(document)) {
          const path = await concrete(app, list.path);
          for (const parameter of list.parameters) {
            const values = parameter.schema?.enum as string[] | undefined;
            if (parameter.in !== 'query' || values === undefined || parameter.name === 'sort_by')
              continue;
            if (parameter.name === 'sort_order') continue;
            filters++;
            for (const value of values) {
              const res = await request(app)
                .get(path)
                .query({ [parameter.name]: value });
              expect(res.status, `${path}?${parameter.name}=${value}`).toBe(200);
              for (const item of res.body.items) expect(item[parameter.name]).toBe(value);
            }
            const refused = await request(app)
              .get(path)
              .query({ [parameter.name]: outside(values) });
            expectErrorEnvelope(refused, 400, { code: 'INVALID_REQUEST', target: parameter.name });
            expect(refused.body.error.innererror?.code).toBe(INVALID_FILTER_VALUE);
          }
        }
        // Card and capture state, agreement state, the history's action and outcome.
        expect(filters).toBeGreaterThanOrEqual(5);
      },
    );

    it.skipIf(!available)(
      'accepts each list parameter at the bounds the document states and refuses it one past them',
      async () => {
        let bounds = 0;
        for (const list of lists(document)) {
          const path = await concrete(app, list.path);
          for (const parameter of list.parameters) {
            if (parameter.in !== 'query') continue;
            const schema = parameter.schema as Json;
            const name = parameter.name as string;
            // `(page − 1) × page_size` is what is bounded: a page is sent with the smallest size.
            const beside = name === 'page' ? { page_size: '1' } : {};
            const cases: [string, number][] = [];
            if (schema.type === 'integer') {
              if (schema.maximum !== undefined) cases.push([String(schema.maximum), 200]);
              if (schema.maximum !== undefined)
                cases.push([String(BigInt(schema.maximum) + 1n), 400]);
              if (schema.minimum !== undefined) cases.push([String(schema.minimum), 200]);
              if (schema.minimum !== undefined) cases.push([String(schema.minimum - 1), 400]);
              expect(schema.maximum, `${path} ${name} has a maximum`).toEqual(expect.any(Number));
            } else if (schema.type === 'string' && schema.maxLength !== undefined) {
              if (name === 'page_token') {
                // No token of the longest length is valid; one past it is refused for its length.
                cases.push(['a'.repeat(schema.maxLength + 1), 400]);
              } else {
                cases.push(['a'.repeat(schema.maxLength), 200]);
                cases.push(['a'.repeat(schema.maxLength + 1), 400]);
              }
            }
            for (const [value, status] of cases) {
              bounds++;
              const res = await request(app)
                .get(path)
                .query({ ...beside, [name]: value });
              const where = `${path}?${name}=${value.slice(0, 20)}… (${value.length} characters)`;
              if (status === 200) expect(res.status, where).toBe(200);
              else expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: name });
            }
          }
        }
        expect(bounds).toBeGreaterThan(40);
      },
    );

    it.skipIf(!available)(
      'accepts each create body field at the lengths the document states and refuses it one past them',
      async () => {
        let fields = 0;
        for (const [path, item] of Object.entries(document.paths as Json)) {
          const create = item.post as Json | undefined;
          if (create === undefined || !/^create[A-Z]/.test(create.operationId)) continue;
          const content = create.requestBody.content['application/json'];
          const ref = content.schema.$ref as string | undefined;
          const body =
            ref === undefined
              ? content.schema
              : document.components.schemas[ref.split('/').pop() as string];
          const example = content.example as Json;
          for (const [field, target, schema] of stringFields(body)) {
            // A pattern or a format says more than the length: no 'a'-string fits it.
            if (schema.pattern !== undefined || schema.format !== undefined) continue;
            for (const [length, status] of [
              [schema.maxLength, 201],
              [schema.maxLength === undefined ? undefined : schema.maxLength + 1, 400],
              [schema.minLength, 201],
              [schema.minLength === undefined ? undefined : schema.minLength - 1, 400],
            ] as [number | undefined, number][]) {
              if (length === undefined || length < 0) continue;
              fields++;
              const body = withField(example, field, 'a'.repeat(length));
              const res = await request(app).post(path).send(body);
              const where = `POST ${path} ${target} of ${length} characters`;
              if (status === 201) expect(res.status, where).toBe(201);
              else {
                expect(res.status, where).toBe(400);
                expect(res.body.error.target, where).toBe(target);
              }
            }
          }
        }
        expect(fields).toBeGreaterThan(10);
      },
    );

    it.skipIf(!available)(
      'reads as many entity tags in If-Match and If-None-Match as the document states, and refuses more',
      async () => {
        const card = '/v1/vault/credit-cards/CARD-SEED1';
        for (const name of ['IfMatch', 'IfNoneMatch']) {
          const header = document.components.parameters[name];
          const most = Number(/at most (\d+) entity tags/.exec(header.description)?.[1]);
          expect(most, name).toBeGreaterThan(1);
          const tags = (count: number) =>
            Array.from({ length: count }, (_, i) => `"not-the-tag-${i}"`).join(', ');
          // None of the tags matches: If-Match fails (412), If-None-Match holds (200).
          const read = await request(app).get(card).set(header.name, tags(most));
          expect(read.status, `${header.name} of ${most} tags`).toBe(
            name === 'IfMatch' ? 412 : 200,
          );
          const refused = await request(app)
            .get(card)
            .set(header.name, tags(most + 1));
          expectErrorEnvelope(refused, 400, { code: 'INVALID_REQUEST', target: header.name });
        }
      },
    );

    it.skipIf(!available)(
      'accepts a Service-Request-Id of the length the document states and refuses one longer',
      async () => {
        const header = document.components.parameters.ServiceRequestId;
        const create = document.paths['/v1/risk/decisions'].post;
        const example = create.requestBody.content['application/json'].example;
        const longest = 'k'.repeat(header.schema.maxLength);
        expect(new RegExp(header.schema.pattern).test(longest)).toBe(true);
        const accepted = await request(app)
          .post('/v1/risk/decisions')
          .set('Service-Request-Id', longest)
          .send(example);
        expect(accepted.status).toBe(201);
        const refused = await request(app)
          .post('/v1/risk/decisions')
          .set('Service-Request-Id', `${longest}k`)
          .send(example);
        expectErrorEnvelope(refused, 400, {
          code: 'INVALID_REQUEST',
          target: 'Service-Request-Id',
        });
        for (const outsidePattern of ['with space', 'comma,separated']) {
          expect(new RegExp(header.schema.pattern).test(outsidePattern)).toBe(false);
          const res = await request(app)
            .post('/v1/risk/decisions')
            .set('Service-Request-Id', outsidePattern)
            .send(example);
          expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'Service-Request-Id' });
        }
      },
    );
  });
});

/** `[path, target, schema]` of each string property, nested objects' included. */
function stringFields(schema: Json, prefix: string[] = []): [string[], string, Json][] {
  const found: [string[], string, Json][] = [];
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Json)) {
    const path = [...prefix, name];
    if (property.type === 'string') found.push([path, path.join('.'), property]);
    if (property.type === 'object') found.push(...stringFields(property, path));
  }
  return found;
}

/** A copy of `body` with the field at `path` set to `value` (its parent objects made). */
function withField(body: Json, path: string[], value: string): Json {
  const copy = structuredClone(body);
  let at = copy;
  for (const key of path.slice(0, -1)) {
    at[key] ??= {};
    at = at[key];
  }
  at[path[path.length - 1] as string] = value;
  return copy;
}
