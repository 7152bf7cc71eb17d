#!/usr/bin/env node
/**
 * Checks every published package as users get it, after `pnpm build`:
 *  - publint (package.json fields, exports map, files),
 *  - are-the-types-wrong (types resolve for node16 ESM and CJS, and bundlers),
 *  - every built entry point loads from `require` and from `import`, with the same export names.
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

// Loaded by name from a workspace project that depends on every package, as a user would.
const consumerDir = join(root, 'examples', 'payments-api');

function exportNames(name, mode) {
  const entry = JSON.stringify(name);
  const script =
    mode === 'require'
      ? `console.log(JSON.stringify(Object.keys(require(${entry})).sort()))`
      : `import(${entry}).then((m) => console.log(JSON.stringify(Object.keys(m).filter((k) => k !== 'default' && k !== 'module.exports').sort())))`;
  const args = mode === 'require' ? ['-e', script] : ['--input-type=module', '-e', script];
  return JSON.parse(execFileSync(process.execPath, args, { cwd: consumerDir, encoding: 'utf8' }));
}

let failed = 0;
for (const dir of packages) {
  const { name } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  console.log(`\n== ${name}`);
  try {
    run(bin('publint'), ['--strict', dir], root);
    run(bin('attw'), ['--pack', dir, '--profile', 'node16', '--format', 'table-flipped'], root);
    // The main entry and every subpath entry point (`./check-routes`), not package.json.
    const { exports = {} } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const entries = Object.keys(exports).filter((key) => !key.endsWith('.json'));
    for (const entry of entries.length === 0 ? ['.'] : entries) {
      const specifier = entry === '.' ? name : `${name}/${entry.slice(2)}`;
      const cjs = exportNames(specifier, 'require');
      const esm = exportNames(specifier, 'import');
      if (cjs.length === 0) throw new Error(`the CommonJS build of ${specifier} exports nothing`);
      if (JSON.stringify(cjs) !== JSON.stringify(esm)) {
        throw new Error(`CJS and ESM export different names:\n  cjs ${cjs}\n  esm ${esm}`);
      }
      console.log(`${specifier}: require and import both load ${cjs.length} exports`);
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
