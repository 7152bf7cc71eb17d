import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// Workspace packages export their TypeScript sources under the "source" condition, so the
// tests run against src/ without a build step. CI tests the built output separately.
const conditions = ['source', 'module', 'node', 'development|production'];

const projectDirs = ['packages', 'examples']
  .flatMap((group) => readdirSync(group).map((name) => join(group, name)))
  .filter((dir) => existsSync(join(dir, 'test')));

export default defineConfig({
  resolve: { conditions },
  ssr: { resolve: { conditions, externalConditions: ['source'] } },
  test: {
    // graphql-http imports graphql as Node resolves it (the CommonJS main); inlined, it shares
    // the one graphql instance the sources get, as it does in an app ("another realm" otherwise).
    server: { deps: { inline: ['graphql-http'] } },
    reporters: ['default', './scripts/summary-reporter.ts'],
    projects: projectDirs.map((dir) => ({
      extends: true,
      test: {
        name: dir.split('/')[1],
        root: dir,
        include: ['test/**/*.test.ts'],
        testTimeout: 20_000,
        hookTimeout: 60_000,
      },
    })),
  },
});
