#!/usr/bin/env node
/**
 * Checks every published package as users get it, after `pnpm build`:
 *  - publint (package.json fields, exports map, files),
 *  - are-the-types-wrong (types resolve for node16 ESM and CJS, bundlers, and node10, the
 *    `moduleResolution` of a `"module": "commonjs"` project, which reads no `exports` map: a
 *    subpath such as `./check-routes` needs a `typesVersions` entry),
 *  - every built entry point loads from `require` and from `import`, with the same export names,
 *  - every exported function and class of the build keeps its name (`ApiError.name` is
 *    `'ApiError'`, not esbuild's `_ApiError`), so stack traces and `constructor.name` read right.
 * Exits non-zero on the first package that fails.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const bin = (name) => join(root, 'node_modules', '.bin', name);
const packages = readdirSync(join(root, 'packages'))
  .map((name) => join(root, 'packages', name))
  .filter((dir) => !JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).private);

// publint packs with `pnpm pack` (which rewrites workspace: ranges); the workspace's own pnpm
// devDependency provides it even when pnpm is not installed globally.
const env = { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}` };

function run(command, args, cwd) {
  execFileSync(command, args, { cwd, env, stdio: 'inherit' });
}

// Loaded by name from a workspace project that depends on the package, as a user would: the
// example, or the package itself (a self-reference resolves through the same exports map) for
// a package the example does not use (collection-pagination-pg).
const exampleDir = join(root, 'examples', 'payments-api');
const example = JSON.parse(readFileSync(join(exampleDir, 'package.json'), 'utf8'));

function consumerOf(name, dir) {
  return example.dependencies?.[name] === undefined ? dir : exampleDir;
}

/**
 * The built entry's export names, and the exported functions and classes whose `name` differs
 * from the name they are exported under.
 */
function loadBuilt(name, mode, consumerDir) {
  const entry = JSON.stringify(name);
  const describe = `(m) => {
    const keys = Object.keys(m).filter((k) => k !== 'default' && k !== 'module.exports').sort();
    const renamed = keys.filter((k) => typeof m[k] === 'function' && m[k].name !== k)
      .map((k) => k + ' is named ' + JSON.stringify(m[k].name));
    console.log(JSON.stringify({ keys, renamed }));
  }`;
  const script =
    mode === 'require' ? `(${describe})(require(${entry}))` : `import(${entry}).then(${describe})`;
  const args = mode === 'require' ? ['-e', script] : ['--input-type=module', '-e', script];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: consumerDir, encoding: 'utf8' }));
}

let failed = 0;
for (const dir of packages) {
  const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  console.log(`\n== ${name}`);
  try {
    run(bin('publint'), ['--strict', dir], root);
    run(bin('attw'), ['--pack', dir, '--format', 'table-flipped'], root);
    // The main entry and every subpath entry point (`./check-routes`), not package.json.
    const { exports = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const entries = Object.keys(exports).filter((key) => !key.endsWith('.json'));
    for (const entry of entries.length === 0 ? ['.'] : entries) {
      const specifier = entry === '.' ? name : `${name}/${entry.slice(2)}`;
      const cjs = loadBuilt(specifier, 'require', consumerOf(name, dir));
      const esm = loadBuilt(specifier, 'import', consumerOf(name, dir));
      if (cjs.keys.length === 0) {
        throw new Error(`the CommonJS build of ${specifier} exports nothing`);
      }
      if (JSON.stringify(cjs.keys) !== JSON.stringify(esm.keys)) {
        throw new Error(
          `CJS and ESM export different names:\n  cjs ${cjs.keys}\n  esm ${esm.keys}`,
        );
      }
      const renamed = [...new Set([...cjs.renamed, ...esm.renamed])];
      if (renamed.length > 0) {
        throw new Error(`the build of ${specifier} renamed exports: ${renamed.join('; ')}`);
      }
      console.log(
        `${specifier}: require and import both load ${cjs.keys.length} exports, names kept`,
      );
    }
  } catch (error) {
    failed++;
    console.error(`${name}: ${error instanceof Error ? error.message : error}`);
  }
}
if (failed > 0) {
  console.error(`\n${failed} package(s) failed the packaging checks`);
  process.exit(1);
}
console.log(`\nall ${packages.length} packages pass the packaging checks`);
