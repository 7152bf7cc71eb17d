import { describe, expect, it } from 'vitest';

describe('public surface', () => {
  it('exports exactly these names', async () => {
    expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
      'DEFAULT_MAX_PAGE_SIZE',
      'DEFAULT_PAGE_SIZE',
      'MAX_PAGE_TOKEN_LENGTH',
      'MAX_PARAMETER_LENGTH',
      'buildCollectionEnvelope',
      'buildPageLinks',
      'getCollectionQuery',
      'memoryDataSource',
      'paginate',
      'parseCollectionQuery',
      'parseTimestamp',
      'requestUrl',
      'searchCollection',
      'sendCollectionPage',
      'totalPages',
    ]);
  });
});
