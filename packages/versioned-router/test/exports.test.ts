import { expect, it } from 'vitest';

it('exports exactly the public API', async () => {
  expect(Object.keys(await import('../src/index.js')).sort()).toEqual([
    'DEFAULT_DISCOVERY_PATH',
    'formatStructuredDate',
    'isVersionLike',
    'versionedRouter',
  ]);
});

it('exports the dev-time route checker from its own entry point', async () => {
  expect(Object.keys(await import('../src/check-routes.js')).sort()).toEqual([
    'DEFAULT_VERBS',
    'checkRoutes',
    'isPluralWord',
    'listRoutes',
  ]);
});

it('keeps the word lists and the route decoding out of the router entry point', async () => {
  const { readFileSync } = await import('node:fs');
  const reachable = new Set<string>();
  const visit = (file: string) => {
    if (reachable.has(file)) return;
    reachable.add(file);
    const source = readFileSync(new URL(`../src/${file}`, import.meta.url), 'utf8');
    for (const [, imported] of source.matchAll(/from '\.\/([a-z-]+)\.js'/g))
      visit(`${imported}.ts`);
  };
  visit('index.ts');
  expect(reachable).not.toContain('words.ts');
  expect(reachable).not.toContain('express-routes.ts');
  expect(reachable).not.toContain('check-routes.ts');
});
