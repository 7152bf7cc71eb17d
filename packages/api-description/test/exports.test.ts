import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'COMMON_READ_ONLY_FIELDS',
    'ERROR_RESPONSES',
    'MAX_FILTER_LENGTH',
    'describeApi',
    'enumFilterValues',
    'isApiDescription',
    'isStandardJsonSchema',
    'openApiDocument',
    'subCollectionOperationId',
    'toJsonSchema',
  ]);
});
