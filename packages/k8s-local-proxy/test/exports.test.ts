import { expect, it } from 'vitest';

it('exports exactly the documented names', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'DEFAULT_ACCEPT_HOSTS',
    'DEFAULT_ACCEPT_PATHS',
    'DEFAULT_PROXY_PORT',
    'DEFAULT_REJECT_METHODS',
    'DEFAULT_REJECT_PATHS',
    'createLocalProxy',
    'createRequestFilter',
    'runCli',
    'runProxyCommand',
  ]);
});
