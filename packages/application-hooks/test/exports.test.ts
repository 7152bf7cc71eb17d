import { expect, it } from 'vitest';

it('exports exactly the helpers the packages bundle', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'beforeHeaders',
    'objectSlot',
    'outermostApplicationPrototype',
    'shareShape',
  ]);
});
