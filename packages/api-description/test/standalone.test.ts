import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';

const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
};

// A service that only wants OpenAPI installs this package alone: nothing of GraphQL
// (graphql-description's peers) or Express is installed with it or imported by it.
it('installs and runs without GraphQL or Express', () => {
  expect(Object.keys(manifest.dependencies ?? {})).toEqual(['@standard-schema/spec']);
  expect(manifest.peerDependencies).toBeUndefined();
  const sources = new URL('../src/', import.meta.url);
  const packages = new Set(
    readdirSync(sources).flatMap((file) =>
      [...readFileSync(new URL(file, sources), 'utf8').matchAll(/from '([^'.][^']*)'/g)].map(
        (match) => match[1] as string,
      ),
    ),
  );
  // option-checks is workspace-private and bundled into the build; the other is types only.
  expect([...packages].sort()).toEqual(['@resourceful/option-checks', '@standard-schema/spec']);
});
