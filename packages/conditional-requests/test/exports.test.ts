import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'CONDITIONAL_REQUESTS_DEFAULTS',
    'KeyedLock',
    'MAX_LIST_ENTRIES',
    'conditionalRequests',
    'conditionalWrite',
    'etagFor',
    'evaluatePreconditions',
    'formatETag',
    'generateETag',
    'isSafeMethod',
    'parseETag',
    'parseETagList',
    'requestPath',
    'strongMatch',
    'weakMatch',
  ]);
});
