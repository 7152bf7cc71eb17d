/**
 * The one build configuration of every published package; each runs
 * `tsup --config ../../tsup.config.ts` from its own folder.
 */
import { existsSync } from 'node:fs';
import { defineConfig } from 'tsup';

// A package with a command line has src/cli.ts next to its library entry.
const hasCli = existsSync('src/cli.ts');

export default defineConfig({
  entry: hasCli ? { index: 'src/index.ts', cli: 'src/cli.ts' } : { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  // Declarations describe the library; the CLI is run, never imported.
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  // The oldest Node that CI runs (engines: >=20.19); 22 and 24 run the same output.
  target: 'node20',
  // Workspace-private helpers are bundled in, so published packages never depend on them.
  noExternal: ['@resourceful/option-checks'],
  esbuildOptions(options, { format }) {
    options.conditions = ['source', ...(options.conditions ?? [])];
    // The bin stub is an ES module, so the CLI is built once, as ESM: a CommonJS copy would
    // ship unused.
    if (format === 'cjs') options.entryPoints = { index: 'src/index.ts' };
  },
});
