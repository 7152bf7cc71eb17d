import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { describeApi, isApiDescription, openApiDocument } from '../src/index.js';
import { Card, exampleApi } from './fixtures.js';

const resource = {
  name: 'CreditCard',
  path: '/vault/credit-cards',
  summary: 'Cards.',
  representation: Card,
  operations: { read: true },
};
const minimal = { title: 'T', version: '1', pathVersion: 'v1', resources: [resource] };

/** The construction error `call` throws, or a failure when it throws none. */
function errorOf(call: () => unknown): { code?: string; option?: string; message: string } {
  try {
    call();
  } catch (error) {
    return error as { code?: string; option?: string; message: string };
  }
  throw new Error('expected a construction error');
}

const ugly: [string, unknown][] = [
  ['null', null],
  ['a number', 5],
  ['a string', 'x'],
  ['an object', {}],
  ['an array', []],
];

describe('describeApi refuses a field of the wrong type with its code and the field', () => {
  it.each(ugly.filter(([, value]) => !Array.isArray(value)))(
    'operations given as %s',
    (_, value) => {
      expect(errorOf(() => describeApi({ ...minimal, operations: value } as never))).toMatchObject({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        option: 'operations',
        message: expect.stringMatching(/"operations" must be an array/),
      });
    },
  );

  it.each([
    ['actions', 'x', 'resources[0].actions'],
    ['actions', {}, 'resources[0].actions'],
    ['subCollections', 5, 'resources[0].subCollections'],
    ['subCollections', null, 'resources[0].subCollections'],
    ['deprecated', 5, 'resources[0].deprecated'],
    ['deprecated', 'first_name', 'resources[0].deprecated'],
    ['deprecated', [], 'resources[0].deprecated'],
    ['deprecated', null, 'resources[0].deprecated'],
  ])('resources[0].%s given as %j', (field, value, option) => {
    const init = { ...minimal, resources: [{ ...resource, [field]: value }] };
    expect(errorOf(() => describeApi(init as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option,
    });
  });

  it.each([
    ['read', 'yes'],
    ['read', 1],
    ['delete', 'true'],
    ['replace', 'upsert'],
    ['replace', null],
    ['patch', 1],
    ['patch', null],
    ['patch', []],
  ])('operations.%s given as %j', (operation, value) => {
    const init = {
      ...minimal,
      resources: [{ ...resource, operations: { read: true, [operation]: value } }],
    };
    expect(errorOf(() => describeApi(init as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: `resources[0].operations.${operation}`,
    });
  });

  it('refuses an upsert that is not a boolean, and an unknown key beside it', () => {
    const withPatch = (patch: unknown) => ({
      ...minimal,
      resources: [{ ...resource, operations: { read: true, patch } }],
    });
    expect(errorOf(() => describeApi(withPatch({ upsert: 'yes' }) as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'resources[0].operations.patch.upsert',
    });
    expect(errorOf(() => describeApi(withPatch({ upsret: true }) as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      option: 'resources[0].operations.patch.upsret',
      message: expect.stringMatching(/Did you mean "resources\[0\]\.operations\.patch\.upsert"/),
    });
  });

  it('refuses a summary that is not a non-empty string', () => {
    for (const summary of [5, '', {}]) {
      expect(errorOf(() => describeApi({ ...minimal, summary } as never))).toMatchObject({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        message: expect.stringMatching(/summary must be a non-empty string/),
      });
    }
  });

  it('still takes the operations as booleans and { upsert }', () => {
    const api = describeApi({
      ...minimal,
      resources: [
        {
          ...resource,
          operations: { read: true, delete: false, replace: { upsert: true }, patch: true },
        },
      ],
    });
    expect(api.resources[0]).toMatchObject({
      read: true,
      delete: false,
      replace: { upsert: true },
      patch: { upsert: false },
    });
  });
});

describe('describeApi names a wrong nested part of the description by its path', () => {
  it.each([
    ['a resource', { ...minimal, resources: [5] }, 'resources[0]'],
    [
      'its operations',
      { ...minimal, resources: [{ ...resource, operations: 'read' }] },
      'resources[0].operations',
    ],
    [
      'its list',
      { ...minimal, resources: [{ ...resource, operations: { list: [] } }] },
      'resources[0].operations.list',
    ],
    [
      'an action',
      { ...minimal, resources: [{ ...resource, actions: [null] }] },
      'resources[0].actions[0]',
    ],
    [
      'a sub-collection',
      { ...minimal, resources: [{ ...resource, subCollections: ['refunds'] }] },
      'resources[0].subCollections[0]',
    ],
    ['a search', { ...minimal, resources: [{ ...resource, search: true }] }, 'resources[0].search'],
    ['an operation', { ...minimal, operations: [[]] }, 'operations[0]'],
  ])('%s that is not an object', (_, init, option) => {
    expect(errorOf(() => describeApi(init as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      factory: 'describeApi',
      option,
    });
  });

  it('an unknown field of a nested part, with the nearest known one', () => {
    const init = { ...minimal, resources: [{ ...resource, operations: { raed: true } }] };
    expect(errorOf(() => describeApi(init as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      factory: 'describeApi',
      option: 'resources[0].operations.raed',
      message: expect.stringMatching(/Did you mean "resources\[0\]\.operations\.read"\?/),
    });
  });
});

describe('isApiDescription', () => {
  it('is true of what describeApi returns', () => {
    expect(isApiDescription(describeApi(minimal))).toBe(true);
  });

  it.each([
    ...ugly,
    ['undefined', undefined],
    ['a copy made with spread', { ...describeApi(minimal) }],
    ['an object shaped like a description', JSON.parse(JSON.stringify(describeApi(minimal)))],
  ])('is false of %s', (_, value) => {
    expect(isApiDescription(value)).toBe(false);
  });
});

describe('openApiDocument refuses what describeApi did not return', () => {
  it.each([
    ...ugly,
    ['undefined', undefined],
    ['an object inheriting the description', Object.create(describeApi(minimal))],
    ['a description missing its resources', { ...describeApi(minimal), resources: undefined }],
  ])('%s', (_, api) => {
    expect(errorOf(() => openApiDocument(api as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'api',
      message: expect.stringMatching(/^openApiDocument: "api" must be the description describeApi/),
    });
  });
});

describe('openApiDocument refuses an option of the wrong type, naming it', () => {
  it.each([
    [{ serverUrl: 5 }, 'serverUrl'],
    [{ serverUrl: '' }, 'serverUrl'],
    [{ documentationUrl: {} }, 'documentationUrl'],
    [{ license: 'MIT' }, 'license'],
    [{ license: {} }, 'license.name'],
    [{ license: { name: 'MIT', identifier: 5 } }, 'license.identifier'],
    [{ security: [] }, 'security'],
    [{ security: { requirement: [] } }, 'security.schemes'],
    [{ security: { schemes: { key: 'apiKey' }, requirement: [] } }, 'security.schemes.key'],
    [{ security: { schemes: {}, requirement: {} } }, 'security.requirement'],
    [{ security: { schemes: {}, requirement: [{ key: [] }] } }, 'security.requirement[0]'],
    [
      { security: { schemes: { key: { type: 'http' } }, requirement: [{ key: 'all' }] } },
      'security.requirement[0].key',
    ],
  ])('%j', (options, option) => {
    expect(errorOf(() => openApiDocument(exampleApi(), options as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option,
    });
  });

  it('refuses an unknown key of license or security with the nearest known one', () => {
    expect(
      errorOf(() => openApiDocument(exampleApi(), { license: { nmae: 'MIT' } } as never)),
    ).toMatchObject({
      code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      option: 'license.nmae',
      message: expect.stringMatching(/Did you mean "license.name"/),
    });
  });

  it('takes a security requirement naming its schemes, with scopes or none', () => {
    const document = openApiDocument(exampleApi(), {
      security: {
        schemes: { bearer: { type: 'http', scheme: 'bearer' } },
        requirement: [{ bearer: [] }],
      },
    });
    expect(document.security).toEqual([{ bearer: [] }]);
  });
});

describe('describeApi names the field at fault by its path in the description', () => {
  const withResource = (extra: Record<string, unknown>) => ({
    ...minimal,
    resources: [{ ...resource, ...extra }],
  });
  const operation = {
    operationId: 'evaluate',
    method: 'POST',
    path: '/risk/evaluate',
    summary: 'Evaluates.',
    kind: 'transient',
    response: { type: 'object', properties: { ok: { type: 'boolean' } } },
  };
  const withOperation = (extra: Record<string, unknown>) => ({
    ...minimal,
    operations: [{ ...operation, ...extra }],
  });

  it.each([
    [{ ...minimal, title: '' }, 'title'],
    [{ ...minimal, pathVersion: '1' }, 'pathVersion'],
    [{ ...minimal, resources: 'Card' }, 'resources'],
    [withResource({ name: 'card' }), 'resources[0].name'],
    [withResource({ path: '/Cards' }), 'resources[0].path'],
    [withResource({ summary: ' ' }), 'resources[0].summary'],
    [withResource({ representation: 5 }), 'resources[0].representation'],
    [withResource({ representation: { type: 'object' } }), 'resources[0].representation'],
    [withResource({ readOnly: ['nope'] }), 'resources[0].readOnly'],
    [withResource({ deprecated: { nope: 'Gone.' } }), 'resources[0].deprecated.nope'],
    [withResource({ deprecated: { id: '' } }), 'resources[0].deprecated.id'],
    [withResource({ operations: { create: 'x' } }), 'resources[0].operations.create'],
    [
      withResource({ operations: { list: { sortable: ['nope'] } } }),
      'resources[0].operations.list.sortable',
    ],
    [withResource({ operations: { list: { paging: [] } } }), 'resources[0].operations.list.paging'],
    [
      withResource({ operations: { list: { totals: 'never' } } }),
      'resources[0].operations.list.totals',
    ],
    [
      withResource({ operations: { list: { maxOffset: -1 } } }),
      'resources[0].operations.list.maxOffset',
    ],
    [withResource({ actions: [{ name: 'Go', summary: 'Go.' }] }), 'resources[0].actions[0].name'],
    [withResource({ actions: [{ name: 'go', summary: '' }] }), 'resources[0].actions[0].summary'],
    [
      withResource({ actions: [{ name: 'go', summary: 'Go.', body: 5 }] }),
      'resources[0].actions[0].body',
    ],
    [
      withResource({ subCollections: [{ name: 'Refunds', summary: 'R.', items: 'CreditCard' }] }),
      'resources[0].subCollections[0].name',
    ],
    [
      withResource({ subCollections: [{ name: 'refunds', summary: 'R.', items: 'Refund' }] }),
      'resources[0].subCollections[0].items',
    ],
    [
      withResource({
        subCollections: [
          { name: 'refunds', summary: 'R.', items: 'CreditCard', list: { sortable: ['nope'] } },
        ],
      }),
      'resources[0].subCollections[0].list.sortable',
    ],
    [
      withResource({ search: { path: '/Search', summary: 'S.', criteria: {} } }),
      'resources[0].search.path',
    ],
    [
      withResource({ search: { path: '/search-cards', summary: 'S.', criteria: 5 } }),
      'resources[0].search.criteria',
    ],
    [withOperation({ operationId: '1st' }), 'operations[0].operationId'],
    [withOperation({ method: 'PUT' }), 'operations[0].method'],
    [withOperation({ kind: 'other' }), 'operations[0].kind'],
    [withOperation({ kind: 'composite' }), 'operations[0].creates'],
    [withOperation({ kind: 'composite', creates: 'Nope' }), 'operations[0].creates'],
    [withOperation({ response: 'x' }), 'operations[0].response'],
  ])('%j', (init, option) => {
    expect(errorOf(() => describeApi(init as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      factory: 'describeApi',
      option,
    });
  });
});

describe('describeApi names the option that gives a name, path or operation a second time', () => {
  const transient = (operationId: string, responseName?: string) => ({
    operationId,
    method: 'POST',
    path: `/risk/${operationId}`,
    summary: 's',
    kind: 'transient',
    response: z.object({ status: z.string() }),
    ...(responseName === undefined ? {} : { responseName }),
  });
  const tags = (name: string, field: string) => ({
    name,
    summary: 's',
    items: { name: 'Tag', schema: z.object({ [field]: z.string() }) },
  });

  it.each([
    [
      'a resource name',
      { resources: [resource, { ...resource, path: '/other' }] },
      'resource name "CreditCard"',
      'resources[0].name',
      'resources[1].name',
    ],
    [
      'a resource path',
      { resources: [resource, { ...resource, name: 'Other' }] },
      'resource path "/vault/credit-cards"',
      'resources[0].path',
      'resources[1].path',
    ],
    [
      'an operationId',
      { operations: [transient('evaluate'), transient('evaluate', 'Other')] },
      'operationId "evaluate"',
      'operations[0].operationId',
      'operations[1].operationId',
    ],
    [
      "a search path that is another resource's path",
      {
        resources: [
          { ...resource, search: { path: '/other', summary: 's', criteria: z.object({}) } },
          { ...resource, name: 'Other', path: '/other' },
        ],
      },
      'path "/other"',
      'resources[0].search.path',
      'resources[1].path',
    ],
    [
      'a path segment of an action and a sub-collection',
      {
        resources: [
          {
            ...resource,
            actions: [{ name: 'history', summary: 's' }],
            subCollections: [{ name: 'history', summary: 's', items: 'CreditCard' }],
          },
        ],
      },
      'resource "CreditCard" path segment "history"',
      'resources[0].actions[0].name',
      'resources[0].subCollections[0].name',
    ],
    [
      "a response name that is a resource's",
      { operations: [transient('evaluate', 'CreditCard')] },
      'type name "CreditCard"',
      'resources[0].name',
      'operations[0].responseName',
    ],
    [
      "an unnamed response whose name from the operationId is a resource's",
      { resources: [{ ...resource, name: 'EvaluateResult' }], operations: [transient('evaluate')] },
      'type name "EvaluateResult"',
      'resources[0].name',
      'operations[0].operationId',
    ],
    [
      'a type name of two item schemas',
      { resources: [{ ...resource, subCollections: [tags('a', 'a'), tags('b', 'b')] }] },
      'type name "Tag"',
      'resources[0].subCollections[0].items.name',
      'resources[0].subCollections[1].items.name',
    ],
    [
      "an item type name that is a response's",
      {
        resources: [{ ...resource, subCollections: [tags('a', 'a')] }],
        operations: [transient('evaluate', 'Tag')],
      },
      'type name "Tag"',
      'operations[0].responseName',
      'resources[0].subCollections[0].items.name',
    ],
  ])('%s', (_, change, named, first, option) => {
    expect(errorOf(() => describeApi({ ...minimal, ...change } as never))).toMatchObject({
      code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
      option,
      message: `describeApi: ${named} is used twice: by ${first} and by ${option}.`,
    });
  });
});
