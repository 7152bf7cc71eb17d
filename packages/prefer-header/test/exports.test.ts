import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'MAX_DELTA_SECONDS',
    'PREFER_MAX_LENGTH',
    'PREFER_QUERY_PARAMETER',
    'appendPreferenceApplied',
    'getPreferences',
    'parsePrefer',
    'preferHeader',
    'sendPreferred',
  ]);
});
