import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'DEFAULT_DISCOVERY_PATH',
    'DEFAULT_VERBS',
    'MOUNTED_VERSIONS',
    'checkRoutes',
    'formatStructuredDate',
    'isPluralWord',
    'isVersionLike',
    'listRoutes',
    'versionedRouter',
  ]);
});
