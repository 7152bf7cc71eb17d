import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeApi } from '../src/index.js';
import { Card, CardCreate, exampleApi } from './fixtures.js';

const minimal = {
  title: 'T',
  version: '1',
  pathVersion: 'v1',
  resources: [
    {
      name: 'CreditCard',
      path: '/vault/credit-cards',
      summary: 'Cards.',
      representation: Card,
      operations: { read: true },
    },
  ],
};

describe('describeApi', () => {
  it('resolves every schema to JSON Schema once, without a $schema keyword', () => {
    const api = exampleApi();
    const card = api.resources[0]!;
    expect(card.representation).not.toHaveProperty('$schema');
    expect(card.create).toMatchObject({ type: 'object', required: ['payer_id', 'type', 'number'] });
    expect(card.readOnly).toEqual(['id', 'create_time', 'update_time', 'links', 'number', 'state']);
    expect(card.replace).toEqual({ upsert: true });
    expect(card.patch).toEqual({ upsert: false });
    expect(card.list?.paging).toEqual(['page', 'offset']);
  });

  it('accepts a JSON Schema object written by hand as well as a Standard Schema', () => {
    const api = describeApi({
      ...minimal,
      resources: [
        {
          ...minimal.resources[0]!,
          representation: z.toJSONSchema(Card) as Record<string, unknown>,
        },
      ],
    });
    expect(Object.keys(api.resources[0]!.representation.properties as object)).toContain(
      'payer_id',
    );
  });

  it('resolves sub-collection items named by resource to that resource’s representation', () => {
    const api = exampleApi();
    const card = api.resources[0]!;
    const [decisions, eventTypes] = card.subCollections;
    expect(decisions?.items.name).toBe('PaymentDecision');
    expect(decisions?.items.resource).toBe(true);
    expect(decisions?.items.schema).toBe(api.resources[1]?.representation);
    expect(decisions?.list).toEqual({
      sortable: ['create_time'],
      filterable: [],
      timeSelectable: ['create_time'],
      paging: ['page', 'offset'],
      totals: 'always',
      maxOffset: Number.MAX_SAFE_INTEGER,
    });
    expect(eventTypes?.items).toMatchObject({ name: 'EventType', resource: false });
    expect(eventTypes?.list.paging).toEqual(['page']);
    expect(card.search).toMatchObject({
      path: '/vault/search-credit-cards',
      paging: ['page', 'offset'],
    });
  });

  it('takes continuation-token paging beside a paging convention, on lists and sub-collections', () => {
    const api = describeApi({
      ...minimal,
      resources: [
        {
          ...minimal.resources[0]!,
          operations: { list: { paging: ['page', 'offset', 'token'] } },
          subCollections: [
            {
              name: 'copies',
              summary: 's',
              items: 'CreditCard',
              list: { paging: ['offset', 'token'] },
            },
          ],
        },
      ],
    });
    expect(api.resources[0]?.list?.paging).toEqual(['page', 'offset', 'token']);
    expect(api.resources[0]?.subCollections[0]?.list.paging).toEqual(['offset', 'token']);
  });

  it('takes the resources as kept in an external store unless told they are in process', () => {
    expect(describeApi(minimal).storage).toBe('external');
    expect(describeApi({ ...minimal, storage: undefined }).storage).toBe('external');
    expect(describeApi({ ...minimal, storage: 'in-process' }).storage).toBe('in-process');
  });

  it('takes the Service-Request-Id store as external unless told it is in process', () => {
    expect(describeApi(minimal).idempotencyStorage).toBe('external');
    expect(describeApi({ ...minimal, idempotencyStorage: undefined }).idempotencyStorage).toBe(
      'external',
    );
    expect(describeApi({ ...minimal, idempotencyStorage: 'in-process' }).idempotencyStorage).toBe(
      'in-process',
    );
  });

  it('takes the longest Service-Request-Id as service-request-idempotency’s default unless told', () => {
    expect(describeApi(minimal).maxServiceRequestIdLength).toBe(255);
    expect(
      describeApi({ ...minimal, maxServiceRequestIdLength: undefined }).maxServiceRequestIdLength,
    ).toBe(255);
    expect(
      describeApi({ ...minimal, maxServiceRequestIdLength: 64 }).maxServiceRequestIdLength,
    ).toBe(64);
  });

  it('returns a frozen description', () => {
    const api = describeApi(minimal);
    expect(Object.isFrozen(api)).toBe(true);
    expect(Object.isFrozen(api.resources[0])).toBe(true);
  });

  it('freezes every array and object of the description, so nothing checked can change', () => {
    const card = exampleApi().resources[0]!;
    const nested: unknown[] = [
      card.readOnly,
      card.deprecated,
      card.actions,
      card.actions[0],
      card.actions[0]!.body,
      card.representation,
      card.representation.properties,
      card.list,
      card.list!.sortable,
      card.list!.filterable,
      card.list!.paging,
      card.subCollections,
      card.subCollections[1]!.items,
      card.subCollections[1]!.list.paging,
      card.search,
      card.search!.example,
      card.example,
      card.replace,
    ];
    for (const value of nested) expect(Object.isFrozen(value)).toBe(true);
    expect(() => (card.actions as unknown[]).push({ name: 'x' })).toThrow(TypeError);
    expect(() => {
      (card.readOnly as string[])[0] = 'state';
    }).toThrow(TypeError);
    expect(() => {
      (card.deprecated as Record<string, string>).number = 'late';
    }).toThrow(TypeError);
    expect(card.readOnly[0]).toBe('id');
    expect(card.actions).toHaveLength(1);
    expect(card.deprecated).not.toHaveProperty('number');
  });

  it('freezes its own copies, never the objects the caller passed', () => {
    const readOnly = ['number'];
    const paging = ['page'] as ('page' | 'offset')[];
    const example = { number: '4111', billing: { city: 'Berlin' } };
    const representation = z.toJSONSchema(Card) as Record<string, unknown>;
    const body = z.object({ note: z.string() });
    const api = describeApi({
      ...minimal,
      resources: [
        {
          ...minimal.resources[0]!,
          representation,
          readOnly,
          example,
          operations: { read: true, list: { paging } },
          actions: [{ name: 'check', summary: 'Check.', body }],
        },
      ],
    });
    for (const value of [readOnly, paging, example, example.billing, representation, body]) {
      expect(Object.isFrozen(value)).toBe(false);
    }
    const card = api.resources[0]!;
    expect(card.example).toEqual(example);
    expect(card.example).not.toBe(example);
    // The schema source is kept as given, for validation elsewhere (GraphQL).
    expect(card.actions[0]!.bodySource).toBe(body);
    example.billing.city = 'Paris';
    expect(card.example).toEqual({ number: '4111', billing: { city: 'Berlin' } });
  });

  it('keeps one copy of an object the description reaches twice', () => {
    const api = exampleApi();
    expect(api.resources[0]!.subCollections[0]!.items.schema).toBe(
      api.resources[1]!.representation,
    );
  });

  it('throws construction errors with stable codes', () => {
    const codeOf = (init: unknown) => {
      try {
        describeApi(init as never);
      } catch (error) {
        return (error as { code?: string }).code;
      }
      return undefined;
    };
    expect(codeOf({ ...minimal, resource: [] })).toBe('ERR_RESOURCEFUL_UNKNOWN_OPTION');
    expect(codeOf({ ...minimal, pathVersion: '1' })).toBe('ERR_RESOURCEFUL_INVALID_OPTION');
    expect(
      codeOf({
        ...minimal,
        resources: [minimal.resources[0], { ...minimal.resources[0], path: '/other' }],
      }),
    ).toBe('ERR_RESOURCEFUL_CONFLICTING_OPTIONS');
    expect(codeOf(null)).toBe('ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT');
  });

  describe('refuses a wrong description when the service starts', () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      [
        'an unknown option, with a hint',
        { ...minimal, resource: [] },
        /unknown option "resource".*Did you mean "resources"/,
      ],
      ['a path version that is not v{N}', { ...minimal, pathVersion: '1' }, /pathVersion/],
      [
        'a type name that is not PascalCase',
        { ...minimal, resources: [{ ...minimal.resources[0], name: 'credit_card' }] },
        /PascalCase/,
      ],
      [
        'a path with upper-case letters',
        { ...minimal, resources: [{ ...minimal.resources[0], path: '/Vault' }] },
        /lower-case/,
      ],
      [
        'a resource without a summary',
        { ...minimal, resources: [{ ...minimal.resources[0], summary: ' ' }] },
        /summary must be a non-empty string/,
      ],
      [
        'a representation without the common fields',
        { ...minimal, resources: [{ ...minimal.resources[0], representation: CardCreate }] },
        /lacks "id"/,
      ],
      [
        'a read-only name that is not a field',
        { ...minimal, resources: [{ ...minimal.resources[0], readOnly: ['nope'] }] },
        /readOnly names "nope"/,
      ],
      [
        'a sortable name that is not a field',
        {
          ...minimal,
          resources: [{ ...minimal.resources[0], operations: { list: { sortable: ['size'] } } }],
        },
        /sortable names "size"/,
      ],
      [
        'a deprecation of a missing field',
        { ...minimal, resources: [{ ...minimal.resources[0], deprecated: { colour: 'x' } }] },
        /no field "colour"/,
      ],
      [
        'two resources with one name',
        {
          ...minimal,
          resources: [minimal.resources[0], { ...minimal.resources[0], path: '/other' }],
        },
        /used twice/,
      ],
      [
        'a schema that is neither kind',
        { ...minimal, resources: [{ ...minimal.resources[0], representation: 'card' }] },
        /Standard JSON Schema/,
      ],
      [
        'an operation creating an undescribed resource',
        {
          ...minimal,
          operations: [
            {
              operationId: 'x',
              method: 'POST',
              path: '/a/b',
              summary: 's',
              kind: 'composite',
              response: Card,
              creates: 'Nope',
            },
          ],
        },
        /not a described resource/,
      ],
      [
        'a computed resource read with POST',
        {
          ...minimal,
          operations: [
            {
              operationId: 'x',
              method: 'POST',
              path: '/a/b',
              summary: 's',
              kind: 'computed',
              response: Card,
            },
          ],
        },
        /computed resources are read with GET/,
      ],
      [
        'a sub-collection listing an undescribed resource',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              subCollections: [{ name: 'x', summary: 's', items: 'Nope' }],
            },
          ],
        },
        /lists "Nope", which is not a described resource/,
      ],
      [
        'a sub-collection filter that is not a field of its items',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              subCollections: [
                {
                  name: 'tags',
                  summary: 's',
                  items: { name: 'Tag', schema: z.object({ name: z.string() }) },
                  list: { filterable: ['colour'] },
                },
              ],
            },
          ],
        },
        /sub-collection "tags" list.filterable names "colour"/,
      ],
      [
        'a sub-collection whose segment is not a path segment',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              subCollections: [{ name: 'Tags/x', summary: 's', items: 'CreditCard' }],
            },
          ],
        },
        /subCollections\[0\]\.name must be a path segment/,
      ],
      [
        'sub-collection items that are not objects',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              subCollections: [
                { name: 'names', summary: 's', items: { name: 'Name', schema: z.string() } },
              ],
            },
          ],
        },
        /items schema must be an object schema with properties/,
      ],
      [
        'an action and a sub-collection on one segment',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              actions: [{ name: 'history', summary: 's' }],
              subCollections: [{ name: 'history', summary: 's', items: 'CreditCard' }],
            },
          ],
        },
        /path segment "history" is used twice/,
      ],
      [
        'two item schemas under one type name',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              subCollections: [
                {
                  name: 'a',
                  summary: 's',
                  items: { name: 'Tag', schema: z.object({ a: z.string() }) },
                },
                {
                  name: 'b',
                  summary: 's',
                  items: { name: 'Tag', schema: z.object({ b: z.string() }) },
                },
              ],
            },
          ],
        },
        /type name "Tag" is used twice/,
      ],
      [
        'a search on a path with a parameter',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              search: { path: '/cards/{id}/search', summary: 's', criteria: z.object({}) },
            },
          ],
        },
        /search path must be lower-case segments/,
      ],
      [
        'a search on the path of a collection',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              search: { path: '/vault/credit-cards', summary: 's', criteria: z.object({}) },
            },
          ],
        },
        /path "\/vault\/credit-cards" is used twice/,
      ],
      [
        'a search paged by an unknown convention',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              search: { path: '/s', summary: 's', criteria: z.object({}), paging: ['cursor'] },
            },
          ],
        },
        /search\.paging names the string "cursor"; the kinds are "page", "offset"\./,
      ],
      [
        'a response name that is not PascalCase',
        {
          ...minimal,
          operations: [
            {
              operationId: 'evaluate',
              method: 'POST',
              path: '/risk/evaluate',
              summary: 's',
              kind: 'transient',
              response: z.object({ status: z.string() }),
              responseName: 'evaluation',
            },
          ],
        },
        /responseName must be a PascalCase type name/,
      ],
      [
        'a response named like a resource',
        {
          ...minimal,
          operations: [
            {
              operationId: 'evaluate',
              method: 'POST',
              path: '/risk/evaluate',
              summary: 's',
              kind: 'transient',
              response: z.object({ status: z.string() }),
              responseName: 'CreditCard',
            },
          ],
        },
        /type name "CreditCard" is used twice/,
      ],
      [
        'an action with an unknown option',
        {
          ...minimal,
          resources: [{ ...minimal.resources[0], actions: [{ name: 'x', summary: 's', bdy: {} }] }],
        },
        /unknown option "resources\[0\]\.actions\[0\]\.bdy".*Did you mean "resources\[0\]\.actions\[0\]\.body"/,
      ],
      [
        'a continuation token without a paging convention to size its pages',
        {
          ...minimal,
          resources: [{ ...minimal.resources[0], operations: { list: { paging: ['token'] } } }],
        },
        /list\.paging: "token" goes with "page" or "offset"/,
      ],
      [
        'a misspelt paging kind, with a hint',
        {
          ...minimal,
          resources: [
            { ...minimal.resources[0], operations: { list: { paging: ['page', 'tokens'] } } },
          ],
        },
        /list\.paging names the string "tokens"; the kinds are "page", "offset", "token"\. Did you mean "token"\?/,
      ],
      [
        'paging that is not an array',
        {
          ...minimal,
          resources: [{ ...minimal.resources[0], operations: { list: { paging: 'token' } } }],
        },
        /list\.paging must be a non-empty array of "page", "offset", "token"; got the string "token"\./,
      ],
      [
        'an empty paging list',
        {
          ...minimal,
          resources: [{ ...minimal.resources[0], operations: { list: { paging: [] } } }],
        },
        /list\.paging must be a non-empty array/,
      ],
      [
        'a paging kind named twice',
        {
          ...minimal,
          resources: [
            { ...minimal.resources[0], operations: { list: { paging: ['page', 'page'] } } },
          ],
        },
        /list\.paging names a paging kind twice/,
      ],
      [
        'a sub-collection paged by token alone',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              subCollections: [
                { name: 'x', summary: 's', items: 'CreditCard', list: { paging: ['token'] } },
              ],
            },
          ],
        },
        /sub-collection "x" list\.paging: "token" goes with "page" or "offset"/,
      ],
      [
        'a search paged by continuation token',
        {
          ...minimal,
          resources: [
            {
              ...minimal.resources[0],
              search: {
                path: '/s',
                summary: 's',
                criteria: z.object({}),
                paging: ['page', 'token'],
              },
            },
          ],
        },
        /search\.paging names the string "token"; the kinds are "page", "offset"\. Searches are paged by page or offset only/,
      ],
      [
        'a storage that is not one of the two, with a hint',
        { ...minimal, storage: 'inprocess' },
        /"storage" must be "external" or "in-process", got the string "inprocess"\. Did you mean "in-process"\?/,
      ],
      [
        'a storage that is not a string',
        { ...minimal, storage: true },
        /"storage" must be "external" or "in-process", got true\./,
      ],
      [
        'a maxServiceRequestIdLength that is not a positive integer',
        { ...minimal, maxServiceRequestIdLength: 0 },
        /"maxServiceRequestIdLength" must be a positive integer, got 0\./,
      ],
      [
        'a maxServiceRequestIdLength that is a string',
        { ...minimal, maxServiceRequestIdLength: '64' },
        /"maxServiceRequestIdLength" must be a positive integer, got the string "64"\./,
      ],
      [
        'an idempotencyStorage that is not one of the two, with a hint',
        { ...minimal, idempotencyStorage: 'externl' },
        /"idempotencyStorage" must be "external" or "in-process", got the string "externl"\. Did you mean "external"\?/,
      ],
    ];
    for (const [name, init, message] of cases) {
      it(name, () => {
        expect(() => describeApi(init as never)).toThrow(message);
      });
    }
  });
});
