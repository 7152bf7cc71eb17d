import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'CONDITIONAL_REQUESTS_DEFAULTS',
    'CONDITIONAL_WRITE_DEFAULTS',
    'KeyedLock',
    'MAX_LIST_ENTRIES',
    'StaleVersionError',
    'VARIANT_SEPARATOR',
    'conditionalRequests',
    'conditionalWrite',
    'etagFor',
    'evaluatePreconditions',
    'formatETag',
    'generateETag',
    'hasConditionalRequests',
    'isSafeMethod',
    'isStaleVersionError',
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
