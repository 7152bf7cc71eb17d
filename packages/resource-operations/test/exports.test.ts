import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'DECLARED_OPERATIONS',
    'complexOperationRoutes',
    'compositeOperation',
    'computedResource',
    'memoryHistoryStore',
    'mountOperations',
    'operationPattern',
    'resourceOrientedOperation',
    'subResourceActions',
    'transientOperation',
  ]);
});
