/**
 * The one build configuration of every published package; each runs
 * `tsup --config ../../tsup.config.ts` from its own folder.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { defineConfig, type Options } from 'tsup';

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
const CLI_OUTPUT = 'cli.cjs';
const entry = [...new Set(['src/index.ts', ...exportedSources()])];

const conditions = (options: { conditions?: string[] }) => {
  options.conditions = ['source', ...(options.conditions ?? [])];
};

const library = defineConfig({
  entry,
  format: ['esm', 'cjs'],
  dts: true,
  // The CLI bundle is built beside the library, at the same time.
  clean: [`!${CLI_OUTPUT}`, `!${CLI_OUTPUT}.map`],
  sourcemap: true,
  // The oldest Node that CI runs (engines: >=20.19); 22 and 24 run the same output.
  target: 'node20',
  // No keepNames: it wraps every function expression in a `__name()` call at each creation,
  // which for the closures a middleware makes per request was about 1.7 % of the example's
  // CPU (bench/README.md). Names stay as written without it: scripts/check-packages.mjs checks
  // every export's `name` in the build (a class naming itself in its own body would be built
  // as `_Name`; error-envelope's ApiError avoids that).
  keepNames: false,
  // Workspace-private helpers are bundled in, so published packages never depend on them.
  noExternal: ['@resourceful/option-checks', '@resourceful/application-hooks'],
  esbuildOptions: conditions,
});

/**
 * Packages the CLI bundle evaluates when first read rather than at start. The proxy agents
 * (`http-proxy-agent` and `https-proxy-agent` load `debug`, `agent-base` their base class) serve
 * only kubeconfigs with a proxy; evaluating them cost every start about 3 ms of CPU (a bundle
 * without them, measured in bench/README.md). Imports of these names from the workspace's code
 * get a stand-in module whose exports are getters that `require` the package the first time
 * one is read; imports from inside node_modules get the package itself. The importing code must
 * not read them at module level (k8s-service-proxy's cluster-agent.ts defines its subclasses on
 * first use).
 */
const LAZY_PACKAGES = ['agent-base', 'http-proxy-agent', 'https-proxy-agent'];

type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

const lazyPackages: EsbuildPlugin = {
  name: 'lazy-packages',
  setup(build) {
    const names = new RegExp(`^(${LAZY_PACKAGES.join('|')})$`);
    build.onResolve({ filter: names }, (args) => {
      if (args.namespace === 'lazy' || args.importer.includes('/node_modules/')) return undefined;
      return { path: args.path, namespace: 'lazy', pluginData: args.resolveDir };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => {
      const resolveDir = args.pluginData as string;
      const exported = Object.keys(createRequire(join(resolveDir, 'importer.js'))(args.path));
      const getters = exported.map(
        (name) =>
          `Object.defineProperty(exports,${JSON.stringify(name)},{enumerable:true,get:()=>load()[${JSON.stringify(name)}]});`,
      );
      return {
        resolveDir,
        loader: 'js',
        contents: `let loaded;const load=()=>(loaded??=require(${JSON.stringify(args.path)}));${getters.join('')}`,
      };
    });
  },
};

/**
 * The command line as one CommonJS file with its dependencies inside (`dist/cli.cjs`, which the
 * bin stub requires): a start resolves and reads one file instead of about ninety (yaml alone
 * is seventy), and CommonJS `require` of `node:http` skips the ES module facade that makes
 * Node 22+ load undici eagerly. Measured in bench/k8s-local-proxy-footprint.bench.ts.
 */
const commandLine = defineConfig({
  entry: { cli },
  format: ['cjs'],
  outExtension: () => ({ js: '.cjs' }),
  platform: 'node',
  target: 'node20',
  sourcemap: true,
  // Not keepNames: it wraps every closure in a `__name()` call made each time the closure is
  // created, which for the relay is several per request (about 1 % of the CLI's time under load).
  // The names users see are set explicitly (`ApiError.name`).
  keepNames: false,
  // Without comments and indentation the file is 385 KB instead of 616 KB, and ASCII: V8 keeps a
  // script's whole source in the heap for as long as the process runs, two bytes per character
  // when any character is outside Latin-1 (one `—` in a comment is enough), so the source
  // held 1.2 MB of heap. esbuild escapes strings, not comments or regular expressions, hence
  // no comments, and the check below. Names stay as written (no `minifyIdentifiers`).
  minifyWhitespace: true,
  noExternal: [/./],
  splitting: false,
  esbuildOptions: conditions,
  esbuildPlugins: [lazyPackages],
  onSuccess: async () => assertAscii(`dist/${CLI_OUTPUT}`),
});

/** Fails the build when the CLI bundle holds a character above U+007F (see `minifyWhitespace`). */
function assertAscii(file: string): void {
  const text = readFileSync(file, 'utf8');
  const at = text.search(/[\u0080-\uffff]/);
  if (at !== -1) {
    throw new Error(
      `${file} is not ASCII at offset ${at} (…${text.slice(Math.max(0, at - 40), at + 10)}…): escape the character in the source (\\uXXXX)`,
    );
  }
}

export default existsSync(cli) ? [library, commandLine] : library;
