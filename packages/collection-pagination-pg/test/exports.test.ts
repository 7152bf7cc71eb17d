import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'DEFAULT_MAX_OFFSET',
    'pgDataSource',
  ]);
});
