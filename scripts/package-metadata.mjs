#!/usr/bin/env node
/**
 * The metadata every published package carries: licence (and its LICENSE file), repository,
 * homepage, bugs, keywords, and the Node versions CI tests (`engines`). Packages are found by
 * folder (packages/*, not private), so a new package is checked as soon as it exists.
 *
 *   node scripts/package-metadata.mjs          check; exits 1 and says what to run when one is off
 *   node scripts/package-metadata.mjs --write  fill in what is missing or stale
 *
 * Only metadata fields are written; dependencies, exports and scripts are never touched.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const write = process.argv.includes('--write');

/** What `.ci/run` tests: the machine's Node 20 and the registry's Node 22 and 24 builds. */
const NODE_ENGINES = '>=20.19';
const REPOSITORY = 'https://github.com/resourceful/resourceful';

const license = readFileSync(join(root, 'LICENSE'), 'utf8');

function expected(folder) {
  return {
    license: 'MIT',
    repository: {
      type: 'git',
      url: `git+${REPOSITORY}.git`,
      directory: `packages/${folder}`,
    },
    homepage: `${REPOSITORY}/tree/main/packages/${folder}#readme`,
    bugs: { url: `${REPOSITORY}/issues` },
  };
}

const problems = [];
let checked = 0;
for (const folder of readdirSync(join(root, 'packages')).sort()) {
  const dir = join(root, 'packages', folder);
  const file = join(dir, 'package.json');
  if (!existsSync(file)) continue;
  const text = readFileSync(file, 'utf8');
  const manifest = JSON.parse(text);
  if (manifest.private) continue;
  checked++;
  const fix = (message, apply) => {
    if (write) apply();
    else problems.push(`${manifest.name}: ${message}`);
  };

  // Fields are placed after "license", so a rewrite does not move the lines other changes touch.
  let next = {};
  const fields = expected(folder);
  for (const [key, value] of Object.entries(manifest)) {
    next[key] = value;
    if (key === 'license') Object.assign(next, fields);
  }
  if (!('license' in manifest)) next = { ...next, ...fields };
  for (const [key, value] of Object.entries(fields)) {
    if (JSON.stringify(manifest[key]) !== JSON.stringify(value)) {
      fix(`"${key}" should be ${JSON.stringify(value)}`, () => {});
    }
  }
  if (!Array.isArray(manifest.keywords) || manifest.keywords.length === 0) {
    fix('"keywords" is missing', () => {
      next.keywords = ['express', 'middleware', 'rest', 'api-guidelines'];
    });
  }
  if (manifest.engines?.node !== NODE_ENGINES) {
    fix(`"engines.node" should be "${NODE_ENGINES}" (what CI tests)`, () => {
      next.engines = { ...manifest.engines, node: NODE_ENGINES };
    });
  }
  if (!Array.isArray(manifest.files) || !manifest.files.includes('LICENSE')) {
    fix('"files" should list "LICENSE"', () => {
      next.files = [...(manifest.files ?? ['dist']), 'LICENSE'];
    });
  }
  const licenseFile = join(dir, 'LICENSE');
  if (!existsSync(licenseFile) || readFileSync(licenseFile, 'utf8') !== license) {
    fix('LICENSE should be a copy of the root LICENSE', () => {
      copyFileSync(join(root, 'LICENSE'), licenseFile);
    });
  }
  if (write) {
    const out = `${JSON.stringify(next, null, 2)}\n`;
    if (out !== text) {
      writeFileSync(file, out);
      console.log(`updated ${manifest.name}`);
    }
  }
}

if (problems.length > 0) {
  console.error(problems.map((p) => `  ${p}`).join('\n'));
  console.error(
    `\n${problems.length} metadata problem(s); \`node scripts/package-metadata.mjs --write\` fixes them.`,
  );
  process.exit(1);
}
console.log(`package metadata: ${checked} published packages ${write ? 'written' : 'complete'}`);
