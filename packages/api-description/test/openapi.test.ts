import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type ApiDescriptionInit,
  describeApi,
  ERROR_RESPONSES,
  type ListDescription,
  MAX_FILTER_LENGTH,
  openApiDocument,
} from '../src/index.js';
import { Decision, exampleApi } from './fixtures.js';

// biome-ignore lint/suspicious/noExplicitAny: the tests walk a JSON document by known paths
type Json = Record<string, any>;

const document = openApiDocument(exampleApi(), { serverUrl: 'https://api.example.com' }) as Json;

function operations(doc: Json): [string, string, Json][] {
  const found: [string, string, Json][] = [];
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, operation] of Object.entries(item as Json)) {
      if (method !== 'parameters') found.push([method.toUpperCase(), path, operation as Json]);
    }
  }
  return found;
}

/** A description of one resource, `Card`, with a list described by `list` and nothing else. */
function cardListApi(list: ListDescription): ApiDescriptionInit {
  return {
    title: 'Cards',
    version: '1.0.0',
    pathVersion: 'v1',
    resources: [
      {
        name: 'Card',
        path: '/cards',
        summary: 'Cards.',
        representation: Decision,
        operations: { list },
      },
    ],
  };
}

/** The document of a refund resource and the composite operation that creates it from `body`. */
function refundDocument(body: z.ZodType): Json {
  const Refund = z.object({
    id: z.string(),
    create_time: z.iso.datetime(),
    update_time: z.iso.datetime(),
    links: z.array(z.object({ href: z.string(), rel: z.string() })),
  });
  return openApiDocument(
    describeApi({
      title: 'Refunds',
      version: '1.0.0',
      pathVersion: 'v1',
      resources: [
        {
          name: 'Refund',
          path: '/payments/refunds',
          summary: 'A refund.',
          representation: Refund,
          operations: { read: true },
        },
      ],
      operations: [
        {
          operationId: 'refundCapture',
          method: 'POST',
          path: '/payments/captures/{capture_id}/refund',
          summary: 'Refund a capture.',
          kind: 'composite',
          body,
          response: Refund,
          creates: 'Refund',
        },
      ],
    }),
  ) as Json;
}

describe('openApiDocument', () => {
  it('is an OpenAPI 3.1 document with the server and the API title', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toEqual({ title: 'Cards', version: '1.0.0' });
    expect(document.servers).toEqual([{ url: 'https://api.example.com' }]);
  });

  it('has every path and verb of the description, under the version', () => {
    expect(
      operations(document)
        .map(([m, p]) => `${m} ${p}`)
        .sort(),
    ).toEqual([
      'DELETE /v1/vault/credit-cards/{credit_card_id}',
      'GET /v1/payments/captures/{capture_id}/refund-summary',
      'GET /v1/risk/decisions/{payment_decision_id}',
      'GET /v1/vault/credit-cards',
      'GET /v1/vault/credit-cards/{credit_card_id}',
      'GET /v1/vault/credit-cards/{credit_card_id}/decisions',
      'GET /v1/vault/credit-cards/{credit_card_id}/event-types',
      'PATCH /v1/vault/credit-cards/{credit_card_id}',
      'POST /v1/risk/decisions',
      'POST /v1/risk/evaluate',
      'POST /v1/vault/credit-cards',
      'POST /v1/vault/credit-cards/{credit_card_id}/re-validate',
      'POST /v1/vault/search-credit-cards',
      'PUT /v1/vault/credit-cards/{credit_card_id}',
    ]);
  });

  it('gives every operation a unique operationId', () => {
    const ids = operations(document).map(([, , op]) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('lists both paging conventions, sorting, time selection and filters on a list', () => {
    const list = document.paths['/v1/vault/credit-cards'].get;
    const names = list.parameters.map((p: Json) => p.name ?? p.$ref.split('/').pop());
    expect(names).toEqual([
      'page',
      'page_size',
      'limit',
      'offset',
      'total_required',
      'IfNoneMatch',
      'IfMatch',
      'sort_by',
      'sort_order',
      'start_time',
      'end_time',
      'create_time_after',
      'create_time_before',
      'state',
    ]);
    expect(list.parameters.find((p: Json) => p.name === 'sort_by').schema.enum).toEqual([
      'create_time',
    ]);
    expect(list.parameters.find((p: Json) => p.name === 'state').schema).toEqual({
      type: 'string',
      enum: ['ok', 'expired'],
    });
  });

  it('marks read-only and deprecated fields on the representation', () => {
    const card = document.components.schemas.CreditCard;
    for (const name of ['id', 'create_time', 'update_time', 'links', 'number', 'state']) {
      expect(card.properties[name].readOnly, name).toBe(true);
    }
    expect(card.properties.payer_id.readOnly).toBeUndefined();
    expect(card.properties.first_name).toMatchObject({
      deprecated: true,
      description: 'Deprecated: Use billing_address.',
    });
    expect(card.properties.state.description).toBe(
      'Deprecated values: expired (Cards are deleted.).',
    );
  });

  it('keeps the create body’s required fields required', () => {
    expect(document.components.schemas.CreditCardCreate.required).toEqual([
      'payer_id',
      'type',
      'number',
    ]);
    const post = document.paths['/v1/vault/credit-cards'].post;
    expect(post.requestBody.content['application/json'].example).toEqual({
      payer_id: 'user1',
      type: 'visa',
      number: '4111111111111111',
    });
    expect(post.requestBody.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreditCardCreate',
    });
  });

  it('links a create to the read of what it created', () => {
    const created = document.paths['/v1/vault/credit-cards'].post.responses['201'];
    expect(created.headers.Location).toEqual({ $ref: '#/components/headers/Location' });
    expect(created.links.read).toEqual({
      operationId: 'getCreditCard',
      parameters: { credit_card_id: '$response.body#/id' },
      description: 'Reads the created resource back.',
    });
    const decision = document.paths['/v1/risk/decisions'].post.responses['201'];
    expect(decision.links.read.operationId).toBe('getPaymentDecision');
  });

  it('sends the conventions’ headers where they apply', () => {
    const refs = (op: Json) => op.parameters.map((p: Json) => p.$ref).filter(Boolean);
    const item = document.paths['/v1/vault/credit-cards/{credit_card_id}'];
    expect(refs(item.patch)).toEqual(
      expect.arrayContaining(['#/components/parameters/IfMatch', '#/components/parameters/Prefer']),
    );
    expect(refs(document.paths['/v1/vault/credit-cards'].post)).toContain(
      '#/components/parameters/ServiceRequestId',
    );
    expect(refs(item.get)).toContain('#/components/parameters/IfNoneMatch');
  });

  it('documents Prefer on an action: 204 for return=minimal, 200 for return=representation, Preference-Applied', () => {
    const action = document.paths['/v1/vault/credit-cards/{credit_card_id}/re-validate'].post;
    expect(action.parameters.map((p: Json) => p.$ref)).toContain('#/components/parameters/Prefer');
    for (const status of ['200', '204']) {
      expect(action.responses[status].headers).toEqual({
        ETag: { $ref: '#/components/headers/ETag' },
        'Preference-Applied': { $ref: '#/components/headers/PreferenceApplied' },
      });
    }
    expect(action.responses['204'].description).toMatch(/return=minimal/);
    expect(action.responses['200'].description).toMatch(/return=representation/);
  });

  it('states every bound collection-pagination enforces on list parameters', () => {
    const parameters = document.components.parameters;
    expect(parameters.page.schema).toMatchObject({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(parameters.offset.schema).toMatchObject({
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
    });
    expect(parameters.page_size.schema).toMatchObject({ minimum: 1, maximum: 100 });
    expect(parameters.limit.schema).toMatchObject({ minimum: 1, maximum: 100 });
    // A filter on a field that is not an enum: any text collection-pagination reads.
    const eventTypes = document.paths['/v1/vault/credit-cards/{credit_card_id}/event-types'].get;
    expect(eventTypes.parameters.find((p: Json) => p.name === 'name').schema).toEqual({
      type: 'string',
      minLength: 1,
      maxLength: MAX_FILTER_LENGTH,
    });
    for (const header of [parameters.IfMatch, parameters.IfNoneMatch]) {
      expect(header.description).toContain('at most 128 entity tags');
    }
  });

  it('states the Service-Request-Id values the middleware takes, bare or quoted, and no other (a quoted id within the bare bound)', () => {
    const { schema } = document.components.parameters.ServiceRequestId;
    const pattern = new RegExp(schema.pattern, 'u');
    const accepts = (value: string) =>
      value.length >= schema.minLength && value.length <= schema.maxLength && pattern.test(value);
    const id = 'a'.repeat(255);
    const quoted = `"${'a'.repeat(253)}"`;
    for (const value of ['8e03978e-40d5', 'b64+/=', 'u:x@y~z', id, '"8e03978e-40d5"', quoted]) {
      expect(accepts(value), value).toBe(true);
    }
    for (const value of ['', '""', 'a b', 'a,b', 'café', `${id}a`, `"${id}a"`, '"abc', 'abc"']) {
      expect(accepts(value), value).toBe(false);
    }
  });

  it('states the Service-Request-Id length the service takes when the description gives it', () => {
    // service-request-idempotency({ maxIdLength: 64 }): the document must not promise 255.
    const init = cardListApi({});
    const withCreate = {
      ...init,
      resources: [{ ...init.resources[0]!, operations: { list: {}, create: Decision } }],
    };
    const short = openApiDocument(describeApi({ ...withCreate, maxServiceRequestIdLength: 64 }));
    const parameter = (short as Json).components.parameters.ServiceRequestId;
    expect(parameter.schema).toMatchObject({ minLength: 1, maxLength: 64 });
    expect(parameter.description).toContain('1 to 64 letters');
    expect(parameter.description).not.toContain('255');
    const standard = (openApiDocument(describeApi(withCreate)) as Json).components.parameters
      .ServiceRequestId;
    expect(standard.schema.maxLength).toBe(255);
    expect(standard.description).toContain('1 to 255 letters');
  });

  it('states a list’s own deepest offset on its offset and page parameters', () => {
    const bounded = openApiDocument(
      describeApi(cardListApi({ maxOffset: 10_000, paging: ['page', 'offset'] })),
    ) as Json;
    const parameters = bounded.paths['/v1/cards'].get.parameters as Json[];
    expect(parameters.find((p) => p.name === 'offset')?.schema).toEqual({
      type: 'integer',
      minimum: 0,
      maximum: 10_000,
    });
    const page = parameters.find((p) => p.name === 'page');
    expect(page?.schema).toMatchObject({ minimum: 1, maximum: 10_001 });
    expect(page?.description).toContain('`(page − 1) × page_size` must not pass 10000');
    // The shared components, at collection-pagination's bound, are for the lists without one.
    expect(bounded.components.parameters.offset).toBeUndefined();
    expect(bounded.components.parameters.page).toBeUndefined();
  });

  it('refuses a deepest offset that is not a non-negative safe integer', () => {
    for (const maxOffset of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN]) {
      expect(() => describeApi(cardListApi({ maxOffset })), String(maxOffset)).toThrow(
        /list\.maxOffset must be an integer from 0/,
      );
    }
    expect(() =>
      describeApi(
        // @ts-expect-error: a count, not text
        cardListApi({ maxOffset: '10000' }),
      ),
    ).toThrow(/got the string "10000"/);
  });

  it('documents total_required only on lists that count on request, and says when totals come', () => {
    const cards = document.paths['/v1/vault/credit-cards'].get;
    const decisions = document.paths['/v1/vault/credit-cards/{credit_card_id}/decisions'].get;
    const ref = { $ref: '#/components/parameters/total_required' };
    expect(cards.parameters).toContainEqual(ref);
    expect(cards.responses['200'].description).toContain('sent with `total_required=true`');
    expect(decisions.parameters).not.toContainEqual(ref);
    expect(decisions.responses['200'].description).toContain('always sent');
    const search = document.paths['/v1/vault/search-credit-cards'].post;
    expect(search.parameters).not.toContainEqual(ref);
    // Without an on-request list, no unused component.
    const always = openApiDocument(describeApi(cardListApi({}))) as Json;
    expect(always.components.parameters.total_required).toBeUndefined();
    expect(document.components.parameters.total_required).toBeDefined();
  });

  it('refuses a totals mode it does not know, with the nearest one', () => {
    expect(() =>
      describeApi(
        // @ts-expect-error: not a totals mode
        cardListApi({ totals: 'on-requests' }),
      ),
    ).toThrow(/Did you mean "on-request"/);
  });

  it('answers a failed If-Match on a list with 412, as on a read', () => {
    for (const path of [
      '/v1/vault/credit-cards',
      '/v1/vault/credit-cards/{credit_card_id}/decisions',
    ]) {
      const list = document.paths[path].get;
      expect(list.responses['412'], path).toEqual({ $ref: '#/components/responses/Error412' });
      expect(list.parameters, path).toContainEqual({ $ref: '#/components/parameters/IfMatch' });
    }
  });

  it('makes actions and composite operations conditional like a PATCH: If-Match, If-None-Match, 412', () => {
    const composite = refundDocument(z.object({ total: z.string() })).paths[
      '/v1/payments/captures/{capture_id}/refund'
    ].post;
    expect(composite.requestBody.required).toBe(true);
    const action = document.paths['/v1/vault/credit-cards/{credit_card_id}/re-validate'].post;
    for (const operation of [action, composite]) {
      expect(operation.parameters.map((p: Json) => p.$ref)).toEqual(
        expect.arrayContaining([
          '#/components/parameters/IfMatch',
          '#/components/parameters/IfNoneMatch',
          '#/components/parameters/Prefer',
        ]),
      );
      expect(operation.responses['412']).toEqual({ $ref: '#/components/responses/Error412' });
    }
    expect(Object.keys(action.responses['200'].headers)).toEqual(['ETag', 'Preference-Applied']);
    // A resource-oriented operation creates from nothing: no resource to hold a precondition.
    const decision = document.paths['/v1/risk/decisions'].post;
    expect(decision.responses['412']).toBeUndefined();
  });

  it('lets a composite operation whose body has no required field be sent without a body', () => {
    const refund = refundDocument(z.object({ amount: z.string().optional() })).paths[
      '/v1/payments/captures/{capture_id}/refund'
    ].post;
    expect(refund.requestBody.required).toBe(false);
    // A resource-oriented create always takes its body.
    expect(document.paths['/v1/risk/decisions'].post.requestBody.required).toBe(true);
  });

  it('takes JSON Patch and merge patch on PATCH, without read-only fields in the merge patch', () => {
    const content =
      document.paths['/v1/vault/credit-cards/{credit_card_id}'].patch.requestBody.content;
    expect(Object.keys(content)).toEqual([
      'application/json-patch+json',
      'application/merge-patch+json',
    ]);
    const merge = document.components.schemas.CreditCardMergePatch;
    expect(Object.keys(merge.properties)).toEqual([
      'payer_id',
      'type',
      'first_name',
      'billing_address',
    ]);
    expect(merge.required).toBeUndefined();
  });

  /** A webhook resource whose PATCH and PUT create with the client's id (upsert). */
  const upsertingWebhooks = () =>
    openApiDocument(
      describeApi({
        title: 'Hooks',
        version: '1.0.0',
        pathVersion: 'v1',
        resources: [
          {
            name: 'Webhook',
            path: '/notifications/webhooks',
            summary: 'Webhooks.',
            representation: Decision,
            operations: { read: true, patch: { upsert: true }, replace: { upsert: true } },
          },
        ],
      }),
    ) as Json;

  it('documents the 201 and Location of a PATCH that creates with the client’s id (upsert)', () => {
    const webhooks = upsertingWebhooks();
    const patch = webhooks.paths['/v1/notifications/webhooks/{webhook_id}'].patch;
    expect(patch.summary).toBe('Update a webhook in part, or create it with this id');
    expect(Object.keys(patch.responses).slice(0, 3)).toEqual(['200', '201', '204']);
    expect(patch.responses['201'].headers.Location).toEqual({
      $ref: '#/components/headers/Location',
    });
    const cardPatch = document.paths['/v1/vault/credit-cards/{credit_card_id}'].patch;
    expect(cardPatch.responses['201']).toBeUndefined();
  });

  // json-patch-update answers Preference-Applied on each of them (return=minimal on 204 and a 201
  // without body, return=representation on 200).
  it('documents Preference-Applied on every answer of a PATCH or PUT that writes', () => {
    const webhooks = upsertingWebhooks();
    const item = webhooks.paths['/v1/notifications/webhooks/{webhook_id}'];
    for (const method of ['patch', 'put']) {
      for (const status of ['200', '201', '204']) {
        expect(
          item[method].responses[status].headers['Preference-Applied'],
          `${method} ${status}`,
        ).toEqual({ $ref: '#/components/headers/PreferenceApplied' });
      }
    }
  });

  it('answers every error status with the envelope, and every operation can answer 400, 406, 414 and 500', () => {
    for (const [method, path, operation] of operations(document)) {
      for (const status of ['400', '406', '414', '500']) {
        expect(operation.responses[status], `${method} ${path} ${status}`).toEqual({
          $ref: `#/components/responses/Error${status}`,
        });
      }
    }
    for (const status of Object.keys(ERROR_RESPONSES)) {
      expect(
        document.components.responses[`Error${status}`].content['application/json'].schema,
      ).toEqual({
        $ref: '#/components/schemas/ErrorEnvelope',
      });
    }
  });

  it('describes each kind of complex operation with its own success status', () => {
    expect(Object.keys(document.paths['/v1/risk/decisions'].post.responses)).toContain('201');
    const evaluate = document.paths['/v1/risk/evaluate'].post;
    expect(evaluate.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/EvaluateResult',
    });
    expect(evaluate.responses['201']).toBeUndefined();
    const summary = document.paths['/v1/payments/captures/{capture_id}/refund-summary'];
    expect(summary.parameters).toEqual([
      { name: 'capture_id', in: 'path', required: true, schema: { type: 'string', minLength: 1 } },
    ]);
    expect(summary.get.parameters).toEqual([
      {
        name: 'currency',
        in: 'query',
        required: false,
        schema: { type: 'string', minLength: 3, maxLength: 3 },
        example: 'USD',
      },
      { $ref: '#/components/parameters/IfNoneMatch' },
      { $ref: '#/components/parameters/IfMatch' },
    ]);
    // Read as any resource: tagged, 304, and 412 on a failed If-Match.
    expect(summary.get.responses['200'].headers.ETag).toEqual({
      $ref: '#/components/headers/ETag',
    });
    expect(Object.keys(summary.get.responses)).toEqual(
      expect.arrayContaining(['200', '304', '404', '412']),
    );
    // What creates a resource takes Prefer and answers as a create does.
    const decision = document.paths['/v1/risk/decisions'].post;
    expect(decision.parameters).toContainEqual({ $ref: '#/components/parameters/Prefer' });
    expect(Object.keys(decision.responses['201'].headers)).toEqual([
      'Location',
      'ETag',
      'Preference-Applied',
    ]);
    expect(evaluate.parameters ?? []).not.toContainEqual({
      $ref: '#/components/parameters/Prefer',
    });
  });

  it('lists a sub-collection of resources under its parent, paged, sorted and time-selected', () => {
    const item = document.paths['/v1/vault/credit-cards/{credit_card_id}/decisions'];
    expect(item.parameters).toEqual([
      {
        name: 'credit_card_id',
        in: 'path',
        required: true,
        schema: { type: 'string', minLength: 1 },
      },
    ]);
    expect(item.get.operationId).toBe('listCreditCardDecisions');
    expect(item.get.parameters.map((p: Json) => p.name ?? p.$ref.split('/').pop())).toEqual([
      'page',
      'page_size',
      'limit',
      'offset',
      'IfNoneMatch',
      'IfMatch',
      'sort_by',
      'sort_order',
      'start_time',
      'end_time',
      'create_time_after',
      'create_time_before',
    ]);
    expect(item.get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/PaymentDecisionCollection',
    });
    expect(item.get.responses['404']).toEqual({ $ref: '#/components/responses/Error404' });
    expect(document.components.schemas.PaymentDecisionCollection.properties.items).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/PaymentDecision' },
    });
  });

  it('names the items of a sub-collection that are not resources as their own schema', () => {
    const list = document.paths['/v1/vault/credit-cards/{credit_card_id}/event-types'].get;
    expect(list.operationId).toBe('listCreditCardEventTypes');
    expect(list.parameters.map((p: Json) => p.name ?? p.$ref.split('/').pop())).toEqual([
      'page',
      'page_size',
      'IfNoneMatch',
      'IfMatch',
      'name',
    ]);
    expect(document.components.schemas.EventType.required).toEqual(['name']);
    expect(document.components.schemas.EventTypeCollection.properties.items.items).toEqual({
      $ref: '#/components/schemas/EventType',
    });
  });

  it('describes a search as a POST of criteria, paged in the query, answering the collection', () => {
    const search = document.paths['/v1/vault/search-credit-cards'].post;
    expect(search.operationId).toBe('searchCreditCard');
    expect(search.requestBody.content['application/json']).toEqual({
      schema: { $ref: '#/components/schemas/CreditCardSearchCriteria' },
      example: { state: 'ok' },
    });
    expect(document.components.schemas.CreditCardSearchCriteria).toMatchObject({
      type: 'object',
      additionalProperties: false,
    });
    expect(search.parameters.map((p: Json) => p.$ref.split('/').pop())).toEqual([
      'ServiceRequestId',
      'page',
      'page_size',
      'limit',
      'offset',
    ]);
    expect(search.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/CreditCardCollection',
    });
    expect(Object.keys(search.responses)).toEqual(expect.arrayContaining(['400', '413', '415']));
  });

  it('describes a search as idempotent through Service-Request-Id, as every POST: 409, 422 and the store of the ids', () => {
    const inProcess = openApiDocument(
      exampleApi({ storage: 'in-process', idempotencyStorage: 'external' }),
    ) as Json;
    const search = inProcess.paths['/v1/vault/search-credit-cards'].post;
    expect(search.parameters[0]).toEqual({ $ref: '#/components/parameters/ServiceRequestId' });
    expect(Object.keys(search.responses)).toEqual(expect.arrayContaining(['409', '422', '503']));
  });

  describe('with lists paged by continuation token', () => {
    const tokens = openApiDocument(exampleApi({ tokens: true })) as Json;
    const names = (operation: Json) =>
      operation.parameters.map((p: Json) => p.name ?? p.$ref.split('/').pop());

    it('takes page_token on exactly the lists described with "token", after their conventions', () => {
      const withToken = operations(tokens)
        .filter(([, , op]) =>
          (op.parameters ?? []).some((p: Json) => p.$ref === '#/components/parameters/page_token'),
        )
        .map(([m, p]) => `${m} ${p}`);
      expect(withToken).toEqual([
        'GET /v1/vault/credit-cards',
        'GET /v1/vault/credit-cards/{credit_card_id}/decisions',
      ]);
      expect(names(tokens.paths['/v1/vault/credit-cards'].get).slice(0, 6)).toEqual([
        'page',
        'page_size',
        'limit',
        'offset',
        'page_token',
        'total_required',
      ]);
      expect(
        names(tokens.paths['/v1/vault/credit-cards/{credit_card_id}/decisions'].get).slice(0, 4),
      ).toEqual(['limit', 'offset', 'page_token', 'IfNoneMatch']);
      expect(
        names(tokens.paths['/v1/vault/credit-cards/{credit_card_id}/event-types'].get),
      ).not.toContain('page_token');
    });

    it('describes page_token as an opaque string and the 400 each bad token answers', () => {
      const parameter = tokens.components.parameters.page_token;
      expect(parameter).toMatchObject({
        name: 'page_token',
        in: 'query',
        schema: { type: 'string', minLength: 1, maxLength: 2048 },
      });
      for (const words of [
        'opaque and signed',
        '400 `INVALID_REQUEST`, `target` `page_token`',
        '`INVALID_PAGE_TOKEN`',
        '`PAGE_TOKEN_MISMATCH`',
        '`CONFLICTING_PARAMETERS`',
        '2048 characters (`PARAMETER_TOO_LONG`)',
      ]) {
        expect(parameter.description).toContain(words);
      }
      expect(tokens.paths['/v1/vault/credit-cards'].get.description).toMatch(
        /`next` link then carries `page_token`, and there is no `previous` or `last` link/,
      );
      expect(
        tokens.paths['/v1/vault/credit-cards/{credit_card_id}/event-types'].get.description,
      ).toBeUndefined();
    });

    it('defines no page_token parameter when no list takes it', () => {
      expect(document.components.parameters.page_token).toBeUndefined();
      expect(JSON.stringify(document)).not.toContain('page_token');
    });
  });

  describe('503 while the store is unreachable', () => {
    const documents = {
      external: openApiDocument(exampleApi()) as Json,
      'in-process': openApiDocument(exampleApi({ storage: 'in-process' })) as Json,
    };
    const idempotent = (operation: Json) =>
      (operation.parameters ?? []).some(
        (p: Json) => p.$ref === '#/components/parameters/ServiceRequestId',
      );

    it('is documented for every operation of resources kept in an external store (the default)', () => {
      const all = operations(documents.external);
      expect(all.length).toBe(14);
      for (const [method, path, operation] of all) {
        expect(operation.responses['503'], `${method} ${path}`).toEqual({
          $ref: '#/components/responses/Error503',
        });
      }
    });

    it('is documented only where Service-Request-Id is taken when the resources are in process', () => {
      const all = operations(documents['in-process']);
      const with503 = all.filter(([, , op]) => op.responses['503'] !== undefined);
      expect(with503.map(([m, p]) => `${m} ${p}`)).toEqual(
        all.filter(([, , op]) => idempotent(op)).map(([m, p]) => `${m} ${p}`),
      );
      expect(with503.map(([m, p]) => `${m} ${p}`).sort()).toEqual([
        'POST /v1/risk/decisions',
        'POST /v1/risk/evaluate',
        'POST /v1/vault/credit-cards',
        'POST /v1/vault/credit-cards/{credit_card_id}/re-validate',
        'POST /v1/vault/search-credit-cards',
      ]);
    });

    it('is documented nowhere when the resources and the Service-Request-Id store are in process', () => {
      const document = openApiDocument(
        exampleApi({ storage: 'in-process', idempotencyStorage: 'in-process' }),
      ) as Json;
      const all = operations(document);
      expect(all.filter(([, , op]) => op.responses['503'] !== undefined)).toEqual([]);
      // No component nothing refers to.
      expect(document.components.responses.Error503).toBeUndefined();
      expect(document.components.headers.RetryAfter).toBeUndefined();
      // The idempotency statuses stay: a repeated id in flight, or reused with another body.
      for (const [method, path, operation] of all.filter(([, , op]) => idempotent(op))) {
        expect(Object.keys(operation.responses), `${method} ${path}`).toEqual(
          expect.arrayContaining(['409', '422']),
        );
      }
    });

    it('is documented everywhere with external resources, whatever keeps the ids', () => {
      const document = openApiDocument(
        exampleApi({ storage: 'external', idempotencyStorage: 'in-process' }),
      ) as Json;
      for (const [method, path, operation] of operations(document)) {
        expect(operation.responses['503'], `${method} ${path}`).toBeDefined();
      }
    });

    it('answers 503 with Retry-After and the error envelope', () => {
      for (const doc of Object.values(documents)) {
        expect(doc.components.responses.Error503).toEqual({
          description: ERROR_RESPONSES[503],
          headers: {
            'Error-Code': { $ref: '#/components/headers/ErrorCode' },
            'Retry-After': { $ref: '#/components/headers/RetryAfter' },
          },
          content: {
            'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } },
          },
        });
      }
    });

    it('keeps the statuses of every operation in ascending order', () => {
      for (const doc of Object.values(documents)) {
        for (const [method, path, operation] of operations(doc)) {
          const statuses = Object.keys(operation.responses).map(Number);
          expect(statuses, `${method} ${path}`).toEqual([...statuses].sort((a, b) => a - b));
        }
      }
    });
  });

  it('names a complex operation’s answer by responseName, or after the operation', () => {
    const api = exampleApi();
    expect(api.operations.map((o) => o.responseName)).toEqual([
      'PaymentDecision',
      'EvaluateResult',
      'GetRefundSummaryResult',
    ]);
  });

  it('leaves the description unchanged', () => {
    const api = exampleApi();
    const before = JSON.stringify(api);
    openApiDocument(api);
    expect(JSON.stringify(api)).toBe(before);
  });

  it('checks its options', () => {
    expect(() => openApiDocument(exampleApi(), { serverURL: 'x' } as never)).toThrow(
      /Did you mean "serverUrl"/,
    );
  });
});
