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

// A package with a command line has src/cli.ts next to its library entries.
const cli = 'src/cli.ts';
const entry = [
  ...new Set(['src/index.ts', ...exportedSources(), ...(existsSync(cli) ? [cli] : [])]),
];
const isCli = (file: string) => file.replace(/^\.\//, '') === cli;

export default defineConfig({
  entry,
  format: ['esm', 'cjs'],
  // Declarations describe what can be imported; the CLI is run, never imported.
  dts: { entry: entry.filter((file) => !isCli(file)) },
  clean: true,
  sourcemap: true,
  // The oldest Node that CI runs (engines: >=20.19); 22 and 24 run the same output.
  target: 'node20',
  // esbuild renames a class referenced from its own static members (`_ApiError`); logs read
  // `constructor.name` and stack traces, so names stay as written.
  keepNames: true,
  // Workspace-private helpers are bundled in, so published packages never depend on them.
  noExternal: ['@resourceful/option-checks'],
  esbuildOptions(options, { format }) {
    options.conditions = ['source', ...(options.conditions ?? [])];
    // The bin stub is an ES module, so the CLI is built once, as ESM: a CommonJS copy would
    // ship unused.
    if (format === 'cjs' && Array.isArray(options.entryPoints)) {
      options.entryPoints = (options.entryPoints as string[]).filter((file) => !isCli(file));
    }
  },
});
