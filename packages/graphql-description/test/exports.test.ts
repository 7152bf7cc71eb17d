import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'DEFAULT_MAX_BODY_BYTES',
    'DEFAULT_MAX_NESTING',
    'DEFAULT_QUERY_LIMITS',
    'DateTimeScalar',
    'JsonObjectScalar',
    'LinkMethodType',
    'LinkType',
    'ResourceInterface',
    'SDL_PATH',
    'SortOrderType',
    'actionOperationId',
    'graphqlEndpoint',
    'graphqlEnumValues',
    'graphqlSchema',
    'isRfc3339',
    'listFieldName',
    'nestingDepth',
    'operationFieldName',
    'queryLimitRules',
    'singleFieldName',
    'subCollectionFieldName',
  ]);
});
