import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'ApiError',
    'DEFAULT_CODE_HEADER',
    'DEFAULT_RETRY_AFTER_SECONDS',
    'ERROR_CATALOGUE',
    'MAX_HOST_NAME_LENGTH',
    'REQUEST_ID_KEY',
    'asyncHandler',
    'attachServerErrorHandlers',
    'classifyError',
    'clientErrorHandler',
    'codeForStatus',
    'errorHandler',
    'errorSettingsFor',
    'formatFieldPath',
    'fromZodError',
    'hasRepeatedHost',
    'isApiError',
    'isValidHost',
    'isZodError',
    'notFoundHandler',
    'parseErrorBody',
    'readErrorResponse',
    'sendError',
    'toApiError',
    'wasCutByErrorHandler',
  ]);
});
