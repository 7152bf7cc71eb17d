import {
  operationFieldName,
  singleFieldName,
  subCollectionFieldName,
} from '@resourceful/graphql-description';
import { memoryStore } from '@resourceful/service-request-idempotency';
import {
  describeEachExpress,
  expectErrorEnvelope,
  hasPostgresServer,
  startPostgresPool,
} from '@resourceful/test-support';
import { listRoutes } from '@resourceful/versioned-router/check-routes';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { beforeAll, describe, expect, it } from 'vitest';
import { type AppOptions, appReady, createApp } from '../src/app.js';
import { DOCS_PATH, OPENAPI_PATH, openApiFor } from '../src/description/docs.js';
import { describePaymentsApi, paymentsApi } from '../src/description/index.js';
import { type IdempotencyWiring, idempotencyFromEnvironment } from '../src/redis-idempotency.js';
import { SEEDED_IDS } from './documented-operations.js';

type Json = Record<string, unknown>;
interface Operation {
  operationId: string;
  parameters?: Json[];
  requestBody?: { content: Record<string, { example?: unknown }> };
  responses: Record<string, Json>;
}

const VERBS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** `/v1/payments/captures/{capture_id}/refund` and `…/:capture_id/refund` alike: `…/{}/refund`. */
function pathShape(path: string): string {
  return path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, '{}');
}

/** Path shape → methods, of the REST routes the example serves (its router, not a copied list). */
function servedRoutes(express: AppOptions['express']) {
  const served = new Map<string, Set<string>>();
  for (const { method, path } of listRoutes(createApp({ express, seed: false }))) {
    // The description's own paths are not part of the API it describes.
    if (!path.startsWith('/v1/') || path === OPENAPI_PATH || path.startsWith(DOCS_PATH)) continue;
    const methods = served.get(pathShape(path)) ?? new Set<string>();
    methods.add(method);
    served.set(pathShape(path), methods);
  }
  return served;
}

const BASE = 'http://api.test';

/** Ajv over the document's own components, so answers are checked against what it promises. */
function validatorFor(document: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'openapi.json', components: document.components }, 'openapi.json');
  const compiled = new Map<string, ReturnType<typeof ajv.compile>>();
  return (schema: Json, value: unknown): string[] => {
    const text = JSON.stringify(schema).replaceAll('"#/components/', '"openapi.json#/components/');
    let validate = compiled.get(text);
    if (!validate) {
      validate = ajv.compile(JSON.parse(text));
      compiled.set(text, validate);
    }
    return validate(value)
      ? []
      : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

function responseSchema(document: Json, operation: Operation, status: number): Json | undefined {
  let response = operation.responses[String(status)];
  const ref = response?.$ref;
  if (typeof ref === 'string') {
    response = (document.components as { responses: Record<string, Json> }).responses[
      ref.split('/').pop() as string
    ];
  }
  const content = response?.content as Record<string, { schema: Json }> | undefined;
  return content?.['application/json']?.schema;
}

/** The item path of a collection in the document: `/v1/vault/credit-cards/{credit_card_id}`. */
function itemPath(document: { paths: Record<string, unknown> }, collection: string): string {
  const path = Object.keys(document.paths).find(
    (key) => /^\/\{[a-z_]+\}$/.test(key.slice(collection.length)) && key.startsWith(collection),
  );
  if (path === undefined) throw new Error(`no item path under ${collection}`);
  return path;
}

describeEachExpress('the API description', (express) => {
  let document: Json & { paths: Record<string, Record<string, Operation>> };
  const app = () => createApp({ express, publicBaseUrl: BASE });

  beforeAll(async () => {
    document = (await request(app()).get('/v1/openapi.json')).body;
  });

  it('serves an OpenAPI 3.1 document at /v1/openapi.json', async () => {
    const res = await request(app()).get('/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.type).toBe('application/json');
    expect(res.body).toMatchObject({ openapi: '3.1.0', servers: [{ url: BASE }] });
  });

  it('keeps every required create field required in the OpenAPI document and the GraphQL input', async () => {
    const res = await request(app()).post('/graphql').send({
      query:
        '{ __schema { types { name inputFields { name type { kind } } } mutationType { fields { name args { name type { ofType { name } } } } } } }',
    });
    const schema = res.body.data.__schema as {
      types: { name: string; inputFields: { name: string; type: { kind: string } }[] | null }[];
      mutationType: {
        fields: { name: string; args: { name: string; type: { ofType: { name: string } } }[] }[];
      };
    };
    /** The non-null fields of a mutation's `input` type. */
    const nonNullInput = (mutation: string) => {
      const field = schema.mutationType.fields.find((f) => f.name === mutation);
      const inputType = field?.args.find((arg) => arg.name === 'input')?.type.ofType.name;
      return schema.types
        .find((t) => t.name === inputType)
        ?.inputFields?.filter((input) => input.type.kind === 'NON_NULL')
        .map((input) => input.name)
        .sort();
    };
    /** The required fields of the JSON body a documented POST takes. */
    const openApiRequired = (path: string) => {
      let body = (document.paths[path]?.post?.requestBody?.content['application/json'] as Json)
        ?.schema as Json & { required?: string[] };
      if (typeof body?.$ref === 'string') {
        body = (document.components as { schemas: Record<string, Json> }).schemas[
          body.$ref.split('/').pop() as string
        ] as Json & { required?: string[] };
      }
      return [...(body?.required ?? [])].sort();
    };
    const creates = paymentsApi.resources.filter((r) => r.create);
    expect(creates.length).toBeGreaterThan(3);
    for (const resource of creates) {
      const required = [...((resource.create?.required ?? []) as string[])].sort();
      expect(required.length).toBeGreaterThan(0);
      expect(openApiRequired(`/v1${resource.path}`), resource.name).toEqual(required);
      // Every create is an opt-in mutation in the example: its input's non-null fields.
      expect(nonNullInput(`create_${singleFieldName(resource)}`), resource.name).toEqual(required);
    }
    // Operations that create a resource (the decision): their body, where GraphQL offers them.
    const creating = paymentsApi.operations.filter(
      (op) =>
        op.creates !== undefined &&
        schema.mutationType.fields.some((f) => f.name === operationFieldName(op.operationId)),
    );
    expect(creating.map((op) => op.operationId)).toEqual(['createPaymentDecision']);
    for (const op of creating) {
      const required = [...((op.body?.required ?? []) as string[])].sort();
      expect(required.length).toBeGreaterThan(0);
      expect(openApiRequired(`/v1${op.path}`), op.operationId).toEqual(required);
      expect(nonNullInput(operationFieldName(op.operationId)), op.operationId).toEqual(required);
    }
    expect(schema.mutationType.fields.map((f) => f.name).sort()).toEqual([
      'create_billing_agreement',
      'create_credit_card',
      'create_customer',
      'create_payment_decision',
      'create_webhook',
    ]);
  });

  it('documents every REST route of the example with its methods, and nothing it does not serve', () => {
    const served = servedRoutes(express);
    const documented = new Map<string, Set<string>>();
    for (const [path, item] of Object.entries(document.paths)) {
      const methods = VERBS.filter((verb) => verb in item).map((verb) => verb.toUpperCase());
      documented.set(pathShape(path), new Set(methods));
    }
    expect(served.size).toBeGreaterThan(20);
    expect(
      Object.fromEntries([...documented].map(([path, methods]) => [path, [...methods].sort()])),
    ).toEqual(
      Object.fromEntries([...served].map(([path, methods]) => [path, [...methods].sort()])),
    );
  });

  it('gives every described resource a GraphQL type with the fields of its OpenAPI schema, non-null where required, nested objects too', async () => {
    const res = await request(app()).post('/graphql').send({
      query:
        '{ __schema { types { name fields { name type { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } } } }',
    });
    interface TypeRef {
      kind: string;
      name: string | null;
      ofType?: TypeRef | null;
    }
    const types = res.body.data.__schema.types as {
      name: string;
      fields: { name: string; type: TypeRef }[] | null;
    }[];
    const named = (type: TypeRef): string | null =>
      type.ofType == null ? type.name : named(type.ofType);
    const schemas = (document.components as { schemas: Record<string, Json> }).schemas;
    const resolve = (schema: Json): Json =>
      typeof schema.$ref === 'string'
        ? resolve(schemas[schema.$ref.split('/').pop() as string] as Json)
        : schema;
    /** The OpenAPI schema's properties and the GraphQL type's fields agree, level by level. */
    const compared: string[] = [];
    const compare = (schema: Json, typeName: string, where: string, extra: string[] = []) => {
      compared.push(where);
      const properties = (resolve(schema).properties ?? {}) as Record<string, Json>;
      const required = (resolve(schema).required ?? []) as string[];
      const fields = types.find((t) => t.name === typeName)?.fields ?? [];
      expect(
        fields.map((f) => f.name),
        where,
      ).toEqual([...Object.keys(properties), ...extra]);
      // Required in the schema ⇔ non-null in GraphQL.
      expect(
        fields.filter((f) => f.type.kind === 'NON_NULL' && f.name in properties).map((f) => f.name),
        where,
      ).toEqual(Object.keys(properties).filter((name) => required.includes(name)));
      for (const [name, property] of Object.entries(properties)) {
        let value = resolve(property);
        if (value.type === 'array') value = resolve(value.items as Json);
        const fieldType = fields.find((f) => f.name === name)?.type as TypeRef;
        if (value.type === 'object' && value.properties !== undefined) {
          compare(value, named(fieldType) as string, `${where}.${name}`);
        }
      }
    };
    for (const resource of paymentsApi.resources) {
      expect(schemas[resource.name], resource.name).toBeDefined();
      compare(
        schemas[resource.name] as Json,
        resource.name,
        resource.name,
        // Sub-collections are fields of their resource's type.
        resource.subCollections.map((sub) => subCollectionFieldName(resource, sub)),
      );
    }
    expect(compared).toEqual(
      expect.arrayContaining([
        'CreditCard.billing_address',
        'Webhook.event_types',
        'Refund.amount',
      ]),
    );
  });

  describe('is honest: every documented operation answers as documented', () => {
    let validator: ReturnType<typeof validatorFor> | undefined;
    const validate = () => {
      validator ??= validatorFor(document);
      return validator;
    };

    it('checks answers strictly: a representation with a wrong or extra field fails', async () => {
      const card = (await request(app()).get('/v1/vault/credit-cards/CARD-SEED1')).body;
      const schema = { $ref: '#/components/schemas/CreditCard' };
      expect(validate()(schema, card)).toEqual([]);
      expect(validate()(schema, { ...card, number: '4111111111111111' })).not.toEqual([]);
      expect(validate()(schema, { ...card, cvv: '123' })).not.toEqual([]);
    });

    async function check(
      method: string,
      path: string,
      operation: Operation,
      send: () => request.Test,
      status: number,
    ) {
      const res = await send();
      expect(Object.keys(operation.responses), `${method} ${path}`).toContain(String(res.status));
      expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBe(status);
      const schema = responseSchema(document, operation, res.status);
      if (schema) expect(validate()(schema, res.body), `${method} ${path}`).toEqual([]);
      return res;
    }

    for (const resource of paymentsApi.resources.filter((r) => r.create)) {
      it(`for ${resource.name}: create, read, list, update and delete`, async () => {
        const server = app();
        const collection = `/v1${resource.path}`;
        const ops = document.paths[collection] as Record<string, Operation>;
        const create = ops.post as Operation;
        const example = create.requestBody?.content['application/json']?.example;
        expect(example, 'the document carries a create example').toBeDefined();
        const created = await check(
          'POST',
          collection,
          create,
          () =>
            request(server)
              .post(collection)
              .send(example as object),
          201,
        );
        const item = `${collection}/${created.body.id}`;
        const itemOps = document.paths[itemPath(document, collection)] as Record<string, Operation>;
        await check('GET', item, itemOps.get as Operation, () => request(server).get(item), 200);
        await check(
          'GET',
          collection,
          ops.get as Operation,
          () => request(server).get(`${collection}?page_size=2&total_required=true`),
          200,
        );
        if (itemOps.put) {
          const current = (await request(server).get(item)).body;
          await check('PUT', item, itemOps.put, () => request(server).put(item).send(current), 204);
        }
        if (itemOps.patch) {
          const patch = [
            {
              op: 'replace',
              path: `/${Object.keys(example as object)[0]}`,
              value: (example as Json)[Object.keys(example as object)[0] as string],
            },
          ];
          await check(
            'PATCH',
            item,
            itemOps.patch,
            () =>
              request(server)
                .patch(item)
                .set('Content-Type', 'application/json-patch+json')
                .send(JSON.stringify(patch)),
            204,
          );
        }
        if (itemOps.delete)
          await check('DELETE', item, itemOps.delete, () => request(server).delete(item), 204);
        await check(
          'GET',
          item,
          itemOps.get as Operation,
          () => request(server).get(item),
          itemOps.delete ? 404 : 200,
        );
      });
    }

    it('answers a stale If-Match with the documented 412 wherever the document takes If-Match, reads and lists too', async () => {
      const server = app();
      const ids: Record<string, string> = { ...IDS_OR_NONE };
      const conditional = Object.entries(document.paths).flatMap(([path, item]) =>
        VERBS.filter((verb) =>
          (item[verb]?.parameters ?? []).some((p) => p.$ref === '#/components/parameters/IfMatch'),
        ).map((verb) => [verb, path, item[verb] as Operation] as const),
      );
      const checked: string[] = [];
      for (const [verb, path, operation] of conditional) {
        const query = new URLSearchParams();
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'query' && parameter.required === true)
            query.set(parameter.name as string, String(parameter.example));
        }
        const bare = path.replace(/\{([a-z_]+)\}/g, (_, name: string) => ids[name] as string);
        const url = query.size > 0 ? `${bare}?${query}` : bare;
        // Only what exists: a missing resource is a 404 (or a 204 for DELETE) first. A read
        // (a list or a computed resource too) is its own target; an action's is its resource.
        const resource =
          verb === 'get' || path.endsWith('}') ? url : bare.replace(/\/[a-z-]+$/, '');
        const current = await request(server).get(resource);
        if (current.status !== 200) continue;
        let test = request(server)[verb](url).set('If-Match', '"stale"');
        if (verb === 'patch')
          test = test.set('Content-Type', 'application/json-patch+json').send('[]');
        else if (verb === 'put') test = test.send(current.body);
        else if (verb === 'post')
          test = test.send(
            (operation.requestBody?.content['application/json']?.example ?? {}) as object,
          );
        const res = await test;
        expect(res.status, `${verb.toUpperCase()} ${path}`).toBe(412);
        expect(Object.keys(operation.responses), `${verb.toUpperCase()} ${path}`).toContain('412');
        expect(validate()(responseSchema(document, operation, 412) as Json, res.body)).toEqual([]);
        checked.push(operation.operationId);
      }
      expect(checked).toEqual(
        expect.arrayContaining([
          'patchCreditCard',
          'suspendBillingAgreement',
          'reActivateBillingAgreement',
          'refundCapture',
          'getCreditCard',
          'listCreditCard',
          'listCaptureRefunds',
          'refundSummary',
        ]),
      );
    });

    it('documents the refund’s body as optional, and a refund without one answers the documented 201', async () => {
      const path = '/v1/payments/captures/{capture_id}/refund';
      const refund = (document.paths[path] as Record<string, Operation>).post as Operation & {
        requestBody: { required: boolean };
      };
      expect(refund.requestBody.required).toBe(false);
      const res = await check(
        'POST',
        path,
        refund,
        () => request(app()).post('/v1/payments/captures/CAPTURE-SEED2/refund'),
        201,
      );
      expect(res.headers.location).toMatch(/\/v1\/payments\/refunds\//);
    });

    it('says that every list sends its totals, and every list does without total_required', async () => {
      const server = app();
      const ids: Record<string, string> = {
        webhook_id: 'WH-SEED1',
        billing_agreement_id: 'AGREEMENT-SEED01',
        capture_id: 'CAPTURE-SEED2',
      };
      const lists = Object.entries(document.paths).filter(([, item]) =>
        (item.get?.operationId ?? '').startsWith('list'),
      );
      expect(lists.length).toBeGreaterThan(5);
      for (const [path, item] of lists) {
        const operation = item.get as Operation;
        expect(JSON.stringify(operation.responses['200']), path).toContain('always sent');
        const url = path.replace(/\{([a-z_]+)\}/g, (_, name: string) => ids[name] as string);
        const res = await request(server).get(url);
        expect(res.status, url).toBe(200);
        expect(typeof res.body.total_items, url).toBe('number');
      }
    });

    it('documents the 201 and Location of a PATCH that creates a webhook with the client’s id', async () => {
      const server = app();
      const path = '/v1/notifications/webhooks/{webhook_id}';
      const patch = (document.paths[path] as Record<string, Operation>).patch as Operation;
      const example = (document.paths['/v1/notifications/webhooks'] as Record<string, Operation>)
        .post?.requestBody?.content['application/json']?.example;
      const res = await check(
        'PATCH',
        path,
        patch,
        () =>
          request(server)
            .patch('/v1/notifications/webhooks/WH-UPSERTED')
            .set('Content-Type', 'application/merge-patch+json')
            .send(JSON.stringify(example)),
        201,
      );
      expect(res.headers.location).toMatch(/\/v1\/notifications\/webhooks\/WH-UPSERTED$/);
      expect(Object.keys((patch.responses['201'] as Json).headers as Json)).toContain('Location');
    });

    it('sends one request per documented operation, built from the document, and checks each answer', async () => {
      const server = app();
      // Path parameters: seeded records, and what the document's own create examples make.
      const ids: Record<string, string> = { ...SEEDED_IDS };
      const all = Object.entries(document.paths).flatMap(([path, item]) =>
        VERBS.filter((verb) => verb in item).map(
          (verb) => [verb, path, item[verb] as Operation] as const,
        ),
      );
      // Creates first (their answers give the ids the reads need), deletes last.
      const rank = (verb: string, path: string) =>
        verb === 'post' && !/\}\/[a-z-]+$/.test(path)
          ? 0
          : verb === 'post'
            ? 1
            : verb === 'delete'
              ? 4
              : verb === 'get'
                ? 2
                : 3;
      all.sort((a, b) => rank(a[0], a[1]) - rank(b[0], b[1]));
      const sent: string[] = [];
      for (const [verb, path, operation] of all) {
        const url = path.replace(/\{([a-z_]+)\}/g, (_, name: string) => {
          expect(ids[name], `an id for ${name}`).toBeDefined();
          return ids[name] as string;
        });
        const query = new URLSearchParams();
        for (const parameter of operation.parameters ?? []) {
          if (parameter.in === 'query' && parameter.required === true) {
            expect(parameter.example, `${operation.operationId} ${parameter.name}`).toBeDefined();
            query.set(parameter.name as string, String(parameter.example));
          }
        }
        const target = query.size > 0 ? `${url}?${query}` : url;
        const content = operation.requestBody?.content ?? {};
        let test: request.Test;
        if (verb === 'put') {
          test = request(server)
            .put(target)
            .send((await request(server).get(url)).body);
        } else if (verb === 'patch') {
          const field = Object.keys(
            (document.components as { schemas: Record<string, Json> }).schemas[
              `${operation.operationId.replace(/^patch/, '')}MergePatch`
            ]?.properties as Json,
          )[0] as string;
          const current = (await request(server).get(url)).body as Json;
          test = request(server)
            .patch(target)
            .set('Content-Type', 'application/json-patch+json')
            .send(JSON.stringify([{ op: 'replace', path: `/${field}`, value: current[field] }]));
        } else if (verb === 'post') {
          const example = content['application/json']?.example;
          expect(example, `${operation.operationId} has an example body`).toBeDefined();
          test = request(server)
            .post(target)
            .send(example as object);
        } else {
          test = request(server)[verb](target);
        }
        const expected =
          verb === 'put' || verb === 'patch' || verb === 'delete'
            ? 204
            : Math.min(
                ...Object.keys(operation.responses)
                  .map(Number)
                  .filter((s) => s < 300),
              );
        const res = await check(verb.toUpperCase(), target, operation, () => test, expected);
        if (operation.operationId === 'refundCapture') ids.refund_id = res.body.id;
        if (operation.operationId === 'createPaymentDecision')
          ids.payment_decision_id = res.body.id;
        sent.push(operation.operationId);
      }
      expect(sent.sort()).toEqual(all.map(([, , operation]) => operation.operationId).sort());
      expect(new Set(sent).size).toBe(sent.length);
    });
  });
});

describe('the OpenAPI document of the example', () => {
  it('passes Redocly’s recommended rules with no errors and no warnings', async () => {
    const document = (
      await request(createApp({ publicBaseUrl: 'https://payments.resourceful.dev' })).get(
        '/v1/openapi.json',
      )
    ).body;
    await expectNoProblems(document);
  });

  it('passes them too for continuation tokens on PostgreSQL', async () => {
    await expectNoProblems(
      openApiFor(
        describePaymentsApi({ pageTokens: true, storage: 'external' }),
        'https://payments.resourceful.dev',
      ),
    );
  });

  async function expectNoProblems(document: unknown) {
    const { createConfig, lintFromString } = await import('@redocly/openapi-core');
    const problems = await lintFromString({
      source: JSON.stringify(document),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  }
});

/** 32+ characters, as collection-pagination's `continuation.secrets` asks. */
const PAGE_TOKEN_SECRET = 'api-description-test-secret-0123456789';

/** Path parameters: seeded records, and ids of records that do not exist. */
const IDS_OR_NONE: Record<string, string> = {
  ...SEEDED_IDS,
  refund_id: 'REFUND-NONE',
  payment_decision_id: 'DECISION-NONE',
};

type Document = Json & { paths: Record<string, Record<string, Operation>> };

/** Every operation of the document, with its path's placeholders filled with seeded ids. */
function operationsOf(document: Document) {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    VERBS.filter((verb) => verb in item).map((verb) => ({
      verb,
      path,
      url: path.replace(/\{([a-z_]+)\}/g, (_, name: string) => IDS_OR_NONE[name] as string),
      operation: item[verb] as Operation,
    })),
  );
}

/** The GET operations answering a collection envelope: lists and sub-collections. */
function listsOf(document: Document) {
  return operationsOf(document).filter(
    ({ verb, operation }) =>
      verb === 'get' &&
      /Collection$/.test(String(responseSchema(document, operation, 200)?.$ref ?? '')),
  );
}

function takes(operation: Operation, parameter: string): boolean {
  return (operation.parameters ?? []).some(
    (p) => p.$ref === `#/components/parameters/${parameter}` || p.name === parameter,
  );
}

function nextHref(body: { links?: { rel: string; href: string }[] }): URL | undefined {
  const next = body.links?.find((link) => link.rel === 'next');
  return next === undefined ? undefined : new URL(next.href);
}

describeEachExpress('the OpenAPI document and continuation tokens', (express) => {
  it('documents page_token on no list without PAGE_TOKEN_SECRETS, and every list refuses it', async () => {
    const app = createApp({ express, publicBaseUrl: BASE });
    const document = (await request(app).get(OPENAPI_PATH)).body as Document;
    expect(JSON.stringify(document)).not.toContain('page_token');
    const lists = listsOf(document);
    expect(lists.length).toBeGreaterThan(6);
    for (const { url, operation } of lists) {
      const first = await request(app).get(`${url}?page_size=1`);
      expect(first.status, url).toBe(200);
      expect(nextHref(first.body)?.searchParams.has('page_token') ?? false, url).toBe(false);
      const res = await request(app).get(`${url}?page_token=abc`);
      expectErrorEnvelope(res, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(res.body.error.innererror.code, url).toBe('UNKNOWN_PARAMETER');
      expect(Object.keys(operation.responses), url).toContain('400');
    }
  });

  it('documents page_token on exactly the lists that take it with secrets, and what a bad one answers', async () => {
    const app = createApp({ express, publicBaseUrl: BASE, pageTokenSecrets: [PAGE_TOKEN_SECRET] });
    const document = (await request(app).get(OPENAPI_PATH)).body as Document;
    const validate = validatorFor(document);
    const documented: string[] = [];
    const tokens: { url: string; token: string }[] = [];
    for (const { url, operation } of listsOf(document)) {
      const takesToken = takes(operation, 'page_token');
      if (takesToken) documented.push(operation.operationId);
      // A list reads page_token (and finds this one forged) exactly when it is documented.
      const forged = await request(app).get(`${url}?page_token=v1.e30.AAAA`);
      expectErrorEnvelope(forged, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(forged.body.error.innererror.code, url).toBe(
        takesToken ? 'INVALID_PAGE_TOKEN' : 'UNKNOWN_PARAMETER',
      );
      let first = await request(app).get(`${url}?page_size=1`);
      if (takesToken && nextHref(first.body) === undefined) {
        // One record seeded (the webhooks): a second from the document's create example.
        const create = document.paths[url]?.post;
        const example = create?.requestBody?.content['application/json']?.example as object;
        expect((await request(app).post(url).send(example)).status, url).toBe(201);
        first = await request(app).get(`${url}?page_size=1`);
      }
      expect(first.status, url).toBe(200);
      const next = nextHref(first.body);
      if (next !== undefined) {
        expect(next.searchParams.has('page_token'), `${url}: next ${next}`).toBe(takesToken);
      }
      if (!takesToken) continue;
      // A token list of more than one record: its next link carries a token.
      expect(next?.searchParams.get('page_token'), url).toEqual(expect.any(String));
      const followed = await request(app).get(`${next?.pathname}${next?.search}`);
      expect(followed.status, String(next)).toBe(200);
      expect(validate(responseSchema(document, operation, 200) as Json, followed.body)).toEqual([]);
      // An altered token: the documented 400, naming page_token.
      const token = next?.searchParams.get('page_token') as string;
      const altered = new URL(next as URL);
      altered.searchParams.set(
        'page_token',
        `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`,
      );
      const refused = await request(app).get(`${altered.pathname}${altered.search}`);
      expectErrorEnvelope(refused, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(refused.body.error.innererror.code).toBe('INVALID_PAGE_TOKEN');
      expect(Object.keys(operation.responses)).toContain('400');
      tokens.push({ url, token });
    }
    // A token of another list: the documented 400, PAGE_TOKEN_MISMATCH.
    expect(tokens.length).toBe(3);
    for (const [index, { url }] of tokens.entries()) {
      const { token } = tokens[(index + 1) % tokens.length] as { token: string };
      const mismatch = await request(app).get(
        `${url}?page_size=1&page_token=${encodeURIComponent(token)}`,
      );
      expectErrorEnvelope(mismatch, 400, { code: 'INVALID_REQUEST', target: 'page_token' });
      expect(mismatch.body.error.innererror.code, url).toBe('PAGE_TOKEN_MISMATCH');
    }
    expect(documented.sort()).toEqual(['listCreditCard', 'listCustomer', 'listWebhook']);
  });
});

const silent = { log: () => {}, warn: () => {}, error: () => {} };

/** The app options server.ts gives for an idempotency store from the environment. */
function wiredAs(wiring: IdempotencyWiring): AppOptions {
  return { idempotencyStore: wiring.store, idempotencyStorage: wiring.storage };
}

describeEachExpress('the OpenAPI document and 503', (express) => {
  it('documents no 503 in memory with the memory Service-Request-Id store: nothing can be down', async () => {
    for (const app of [
      createApp({ express }),
      // As server.ts wires it without REDIS_URL.
      createApp({ express, ...wiredAs(idempotencyFromEnvironment({}, silent)) }),
    ]) {
      const document = (await request(app).get(OPENAPI_PATH)).body as Document;
      const all = operationsOf(document);
      expect(all.length).toBeGreaterThan(25);
      expect(all.filter(({ operation }) => '503' in operation.responses)).toEqual([]);
      expect(Object.keys((document.components as { responses: Json }).responses)).not.toContain(
        'Error503',
      );
    }
  });

  it('documents 503 in memory only where Service-Request-Id is taken when its store is outside the process (Redis)', async () => {
    const document = (
      await request(
        createApp({ express, idempotencyStore: memoryStore(), idempotencyStorage: 'external' }),
      ).get(OPENAPI_PATH)
    ).body as Document;
    const all = operationsOf(document);
    const with503 = all.filter(({ operation }) => '503' in operation.responses);
    expect(with503.map(({ operation }) => operation.operationId)).toEqual(
      all
        .filter(({ operation }) => takes(operation, 'ServiceRequestId'))
        .map(({ operation }) => operation.operationId),
    );
    expect(with503.every(({ verb }) => verb === 'post')).toBe(true);
  });

  describe.skipIf(!hasPostgresServer())('on PostgreSQL', () => {
    it('documents 503 with Retry-After everywhere, and every operation answers a documented status while the database is down', async () => {
      const { server, pool, close } = await startPostgresPool({ max: 2 });
      try {
        const app = createApp({
          express,
          publicBaseUrl: BASE,
          database: { pool, schema: 'public' },
          pageTokenSecrets: [PAGE_TOKEN_SECRET],
        });
        await appReady(app);
        const document = (await request(app).get(OPENAPI_PATH)).body as Document;
        const all = operationsOf(document);
        expect(all.length).toBeGreaterThan(25);
        for (const { verb, path, operation } of all) {
          expect(operation.responses['503'], `${verb} ${path}`).toEqual({
            $ref: '#/components/responses/Error503',
          });
        }
        expect(
          (document.components as { responses: Record<string, Json> }).responses.Error503?.headers,
        ).toHaveProperty('Retry-After');
        // Keyset lists page in the database too: tokens are documented there as in memory.
        expect(
          listsOf(document)
            .filter(({ operation }) => takes(operation, 'page_token'))
            .map(({ operation }) => operation.operationId)
            .sort(),
        ).toEqual(['listCreditCard', 'listCustomer', 'listWebhook']);

        await server.close();
        const unavailable: string[] = [];
        for (const { verb, path, url, operation } of all) {
          const query = new URLSearchParams();
          for (const parameter of operation.parameters ?? []) {
            if (parameter.in === 'query' && parameter.required === true)
              query.set(parameter.name as string, String(parameter.example));
          }
          const target = query.size > 0 ? `${url}?${query}` : url;
          let test = request(app)[verb](target);
          if (verb === 'patch')
            test = test.set('Content-Type', 'application/json-patch+json').send('[]');
          else if (verb === 'put') test = test.send({});
          else if (verb === 'post')
            test = test.send(
              (operation.requestBody?.content['application/json']?.example ?? {}) as object,
            );
          const res = await test;
          expect(Object.keys(operation.responses), `${verb} ${path}: ${res.status}`).toContain(
            String(res.status),
          );
          if (res.status === 503) {
            expect(res.headers['retry-after'], `${verb} ${path}`).toMatch(/^\d+$/);
            unavailable.push(operation.operationId);
          }
        }
        // Every operation needs the database, before it reads a body; the transient
        // evaluation alone keeps nothing.
        expect(unavailable.sort()).toEqual(
          all
            .map(({ operation }) => operation.operationId)
            .filter((id) => id !== 'evaluatePayment')
            .sort(),
        );
      } finally {
        await close();
      }
    });
  });
});
