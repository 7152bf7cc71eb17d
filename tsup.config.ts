/**
 * The one build configuration of every published package; each runs
 * `tsup --config ../../tsup.config.ts` from its own folder.
 */
import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';

export default defineConfig({
  // A package with a command line has src/cli.ts next to its library entry.
  entry: ['src/index.ts', ...(existsSync('src/cli.ts') ? ['src/cli.ts'] : [])],
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node18',
  // esbuild renames a class referenced from its own static members (`_ApiError`); logs read
  // `constructor.name` and stack traces, so names stay as written.
  keepNames: true,
  // Workspace-private helpers are bundled in, so published packages never depend on them.
  noExternal: ['@resourceful/option-checks'],
  esbuildOptions(options) {
    options.conditions = ['source', ...(options.conditions ?? [])];
  },
});
