import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'CONDITIONAL_REQUESTS_DEFAULTS',
    'KeyedLock',
    'MAX_LIST_ENTRIES',
    'VARIANT_SEPARATOR',
    'conditionalRequests',
    'conditionalWrite',
    'etagFor',
    'evaluatePreconditions',
    'formatETag',
    'generateETag',
    'hasConditionalRequests',
    'isSafeMethod',
    'parseETag',
    'parseETagList',
    'representationETag',
    'representationVariantOf',
    'requestPath',
    'resourceETag',
    'setRepresentationVariant',
    'strongMatch',
    'weakMatch',
  ]);
});
