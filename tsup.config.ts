/**
 * The one build configuration of every published package; each runs
 * `tsup --config ../../tsup.config.ts` from its own folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { defineConfig } from 'tsup';

/**
 * Every entry point the package's `exports` map names through its `source` condition (`.` and
 * subpaths such as `./check-routes`), so adding an entry point is a change to package.json only.
 */
function exportedSources(): string[] {
  const { exports = {} } = JSON.parse(readFileSync('package.json', 'utf8')) as {
    exports?: Record<string, unknown>;
  };
  return Object.values(exports).flatMap((target) => {
    const source = (target as { source?: unknown } | null)?.source;
    return typeof source === 'string' ? [source.replace(/^\.\//, '')] : [];
  });
}

export default defineConfig({
  // A package with a command line has src/cli.ts next to its library entries.
  entry: [
    ...new Set([
      'src/index.ts',
      ...exportedSources(),
      ...(existsSync('src/cli.ts') ? ['src/cli.ts'] : []),
    ]),
  ],
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
