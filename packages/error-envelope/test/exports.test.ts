import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'ApiError',
    'DEFAULT_CODE_HEADER',
    'ERROR_CATALOGUE',
    'asyncHandler',
    'classifyError',
    'clientErrorHandler',
    'codeForStatus',
    'errorHandler',
    'formatFieldPath',
    'fromZodError',
    'isApiError',
    'isZodError',
    'notFoundHandler',
    'parseErrorBody',
    'readErrorResponse',
    'sendError',
    'toApiError',
  ]);
});
