#!/usr/bin/env node
/**
 * The packages as users get them, after `pnpm build`:
 *  - `pnpm pack` every published package (packages/*, not private) and check each tarball's
 *    manifest (no workspace-private package or `workspace:` range named, a LICENSE shipped) and
 *    files (every file is reachable from the exports, main, types or bin: no unused build output);
 *  - install the tarballs with npm into fresh projects in a temporary folder, outside the
 *    workspace: CommonJS + Express 4, and ESM + Express 5 written in TypeScript (`module:
 *    NodeNext`, strict, `skipLibCheck: false`), type-checked by the repository's TypeScript and by
 *    the newest TypeScript on npm;
 *  - run each package README's usage examples there, taken from the README itself (in "## Usage",
 *    the first ```ts block of an ES module is the ESM example, or else the first ```js one; the
 *    first ```js block with `require(` is the CommonJS one), so the READMEs cannot drift from
 *    what works: each example must start its
 *    server (moved to a loopback port), answer the README's first `GET /path` (or `/`) without a
 *    5xx, and stop on SIGTERM; an example that starts no server must exit 0;
 *  - run every package's bin from the installed tarball (`--help`; a `kubectl proxy` compatible
 *    bin also relays a request to a stand-in control plane).
 *
 *   node scripts/consumer-test.mjs [--node=<path to a node binary>]... [--keep]
 *
 * Installs and type checks run once; the examples and bins run on every `--node` given (default:
 * the Node running this script). Exits 1 if any check fails.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const argv = process.argv.slice(2);
const nodes = argv.flatMap((arg, i) => {
  if (arg === '--node') return [argv[i + 1]];
  return arg.startsWith('--node=') ? [arg.slice('--node='.length)] : [];
});
if (nodes.length === 0) nodes.push(process.execPath);
const keep = argv.includes('--keep');

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const started = Date.now();
const seconds = () => `${Math.round((Date.now() - started) / 1000)}s`;

let passed = 0;
let failed = 0;
function record(ok, label, detail = '') {
  if (ok) passed++;
  else failed++;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${label}${detail ? `: ${detail}` : ''}`);
}

// ---------------------------------------------------------------------------------------------
// The workspace: which packages are published, which are private, which versions it pins.

const workspace = readdirSync(join(root, 'packages'))
  .sort()
  .map((folder) => ({ folder, dir: join(root, 'packages', folder) }))
  .filter(({ dir }) => existsSync(join(dir, 'package.json')))
  .map((p) => ({ ...p, manifest: readJson(join(p.dir, 'package.json')) }));
const privateNames = new Set(
  workspace.filter((p) => p.manifest.private).map((p) => p.manifest.name),
);
const published = workspace.filter((p) => !p.manifest.private);

const workspaceManifests = [
  readJson(join(root, 'package.json')),
  ...workspace.map((p) => p.manifest),
  ...readdirSync(join(root, 'examples'))
    .map((name) => join(root, 'examples', name, 'package.json'))
    .filter(existsSync)
    .map(readJson),
];
/** The range the workspace itself uses for a third-party package, so consumers get the same. */
function workspaceRange(name) {
  for (const m of workspaceManifests) {
    for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
      const range = m[field]?.[name];
      if (range && !range.startsWith('workspace:') && !range.startsWith('npm:')) return range;
    }
  }
  return 'latest';
}

// ---------------------------------------------------------------------------------------------
// The README examples.

function usageSection(readme) {
  const match = /^## Usage[^\n]*\n([\s\S]*?)(?=^## |(?![\s\S]))/m.exec(readme);
  return match ? match[1] : '';
}

function readmeExamples({ folder, dir }) {
  const usage = usageSection(readFileSync(join(dir, 'README.md'), 'utf8'));
  const blocks = [...usage.matchAll(/^```(\w*)[^\n]*\n([\s\S]*?)^```/gm)].map((m) => ({
    lang: m[1],
    code: m[2],
  }));
  const isModule = (b) => /^import\s/m.test(b.code) && !/\brequire\(/.test(b.code);
  const esmBlock =
    blocks.find((b) => ['ts', 'typescript'].includes(b.lang) && isModule(b)) ??
    blocks.find((b) => ['js', 'mjs', 'javascript'].includes(b.lang) && isModule(b));
  const cjs = blocks.find(
    (b) => ['js', 'cjs', 'javascript'].includes(b.lang) && /\brequire\(/.test(b.code),
  )?.code;
  const get = /\bGET (\/[^\s`]*)/.exec(usage)?.[1] ?? '/';
  // A TypeScript example is type-checked, then run compiled; a JavaScript one is run as written.
  const esmTyped = esmBlock ? ['ts', 'typescript'].includes(esmBlock.lang) : false;
  return { folder, esm: esmBlock?.code, esmTyped, cjs, get };
}

const builtins = new Set(builtinModules);
/** Third-party packages an example imports (the workspace's packages come from the tarballs). */
function thirdParty(code) {
  const names = new Set();
  for (const m of code.matchAll(
    /(?:\bfrom\s+|\brequire\(\s*|\bimport\(\s*|^import\s+)['"]([^'"]+)['"]/gm,
  )) {
    const spec = m[1];
    if (spec.startsWith('.') || spec.startsWith('node:') || builtins.has(spec)) continue;
    const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    if (!name.startsWith('@resourceful/') && name !== 'express') names.add(name);
  }
  return names;
}

// ---------------------------------------------------------------------------------------------
// Packing and checking the tarballs.

const work = mkdtempSync(join(tmpdir(), 'resourceful-consumers-'));
const tarballDir = join(work, 'tarballs');
mkdirSync(tarballDir);
const pnpm = join(root, 'node_modules', '.bin', 'pnpm');
const quiet = { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' };

console.log(`consumer projects in ${work}`);
const tarballs = new Map();
for (const p of published) {
  const before = new Set(readdirSync(tarballDir));
  execFileSync(pnpm, ['pack', '--pack-destination', tarballDir], { ...quiet, cwd: p.dir });
  const file = readdirSync(tarballDir).find((f) => !before.has(f));
  tarballs.set(p.manifest.name, join(tarballDir, file));
  const unpacked = join(work, 'unpacked', p.folder);
  mkdirSync(unpacked, { recursive: true });
  execFileSync('tar', ['-xzf', join(tarballDir, file), '-C', unpacked]);
  checkTarball(p.manifest.name, join(unpacked, 'package'));
}

function checkTarball(name, dir) {
  const manifest = readJson(join(dir, 'package.json'));
  const named = [];
  for (const field of [
    'dependencies',
    'peerDependencies',
    'optionalDependencies',
    'devDependencies',
    'peerDependenciesMeta',
  ]) {
    for (const [dep, range] of Object.entries(manifest[field] ?? {})) {
      if (privateNames.has(dep)) named.push(`${field} names the private ${dep}`);
      if (typeof range === 'string' && range.startsWith('workspace:')) {
        named.push(`${field}.${dep} is "${range}"`);
      }
    }
  }
  record(named.length === 0, `${name} manifest names no private package`, named.join('; '));
  record(existsSync(join(dir, 'LICENSE')), `${name} ships LICENSE`);
  const unused = unreachableFiles(dir, manifest);
  record(unused.length === 0, `${name} ships no unused build output`, unused.join(', '));
}

/** Files no entry point leads to (following imports, requires and source maps). */
function unreachableFiles(dir, manifest) {
  const entries = [];
  const collect = (value) => {
    if (typeof value === 'string') entries.push(value);
    else if (value && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect(manifest.exports);
  collect(manifest.bin);
  for (const field of ['main', 'module', 'types']) collect(manifest[field]);
  const reached = new Set();
  const queue = entries.map((entry) => resolve(dir, entry));
  while (queue.length > 0) {
    const file = queue.pop();
    if (reached.has(file) || !existsSync(file) || statSync(file).isDirectory()) continue;
    reached.add(file);
    if (!/\.(c|m)?(js|ts)$/.test(file)) continue;
    const text = readFileSync(file, 'utf8');
    const refs = [
      ...text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\(\s*)["'](\.{1,2}\/[^"']+)["']/g),
      ...text.matchAll(/[#@] sourceMappingURL=(\S+)/g),
    ];
    for (const m of refs) {
      const target = resolve(dirname(file), m[1]);
      // Declarations import their shared chunks by the .js name of the code they describe.
      queue.push(
        target,
        target.replace(/\.js$/, '.d.ts'),
        target.replace(/\.cjs$/, '.d.cts'),
        target.replace(/\.mjs$/, '.d.mts'),
      );
    }
  }
  const always = /^(package\.json|README(\..*)?|LICENSE(\..*)?|CHANGELOG(\..*)?)$/i;
  const unused = [];
  const walk = (folder) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (!reached.has(path) && !(folder === dir && always.test(entry.name))) {
        unused.push(relative(dir, path));
      }
    }
  };
  walk(dir);
  return unused;
}

// ---------------------------------------------------------------------------------------------
// The consumer projects.

const examples = published.map(readmeExamples);
for (const e of examples) {
  record(Boolean(e.esm), `${e.folder} README has an ESM example (\`\`\`ts in ## Usage)`);
  record(Boolean(e.cjs), `${e.folder} README has a CommonJS example (\`\`\`js with require)`);
}

function dependencies(codes, express) {
  const deps = {};
  for (const [name, file] of tarballs) deps[name] = `file:${file}`;
  deps.express = express;
  for (const code of codes) for (const name of thirdParty(code)) deps[name] = workspaceRange(name);
  return deps;
}

function npmInstall(dir) {
  const t = Date.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    ...quiet,
    cwd: dir,
  });
  console.log(`npm install in ${relative(work, dir)}: ${Math.round((Date.now() - t) / 1000)}s`);
}

function camel(folder) {
  return folder.replace(/-(\w)/g, (_, c) => c.toUpperCase());
}

// CommonJS + Express 4.
const cjsDir = join(work, 'cjs-express4');
mkdirSync(join(cjsDir, 'examples'), { recursive: true });
const cjsExamples = examples.filter((e) => e.cjs);
writeFileSync(
  join(cjsDir, 'package.json'),
  JSON.stringify({
    name: 'consumer-cjs-express4',
    private: true,
    type: 'commonjs',
    dependencies: dependencies(
      cjsExamples.map((e) => e.cjs),
      '^4.21.2',
    ),
  }),
);
for (const e of cjsExamples) writeFileSync(join(cjsDir, 'examples', `${e.folder}.cjs`), e.cjs);

// ESM + Express 5, in TypeScript.
const tsDir = join(work, 'ts-esm-express5');
mkdirSync(join(tsDir, 'src', 'examples'), { recursive: true });
const esmExamples = examples.filter((e) => e.esm);
const typescriptVersion = readJson(
  join(root, 'node_modules', 'typescript', 'package.json'),
).version;
writeFileSync(
  join(tsDir, 'package.json'),
  JSON.stringify({
    name: 'consumer-ts-esm-express5',
    private: true,
    type: 'module',
    dependencies: dependencies(
      esmExamples.map((e) => e.esm),
      '^5.1.0',
    ),
    devDependencies: {
      // Types of third-party packages the examples import, where the workspace uses them too
      // (`pg` ships none: a TypeScript user installs @types/pg).
      ...Object.fromEntries(
        esmExamples
          .flatMap((e) => [...thirdParty(e.esm)])
          .map((name) => `@types/${name.replace(/^@([^/]+)\//, '$1__')}`)
          .filter((types) => workspaceRange(types) !== 'latest')
          .map((types) => [types, workspaceRange(types)]),
      ),
      typescript: typescriptVersion,
      '@types/express': workspaceRange('@types/express'),
      '@types/node': workspaceRange('@types/node'),
    },
  }),
);
writeFileSync(
  join(tsDir, 'tsconfig.json'),
  JSON.stringify({
    compilerOptions: {
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      target: 'ES2022',
      strict: true,
      skipLibCheck: false,
      types: ['node'],
      rootDir: 'src',
      outDir: 'dist',
      noEmitOnError: true,
    },
    include: ['src'],
  }),
);
mkdirSync(join(tsDir, 'js-examples'));
for (const e of esmExamples) {
  if (e.esmTyped) writeFileSync(join(tsDir, 'src', 'examples', `${e.folder}.ts`), e.esm);
  else writeFileSync(join(tsDir, 'js-examples', `${e.folder}.mjs`), e.esm);
}
// Every package through `require` (its .d.cts types) and through `import` (its .d.ts types).
writeFileSync(
  join(tsDir, 'src', 'require-all.cts'),
  `${published.map((p) => `import ${camel(p.folder)} = require('${p.manifest.name}');`).join('\n')}
const loaded: Record<string, object> = { ${published.map((p) => camel(p.folder)).join(', ')} };
for (const [name, value] of Object.entries(loaded)) {
  if (Object.keys(value).length === 0) throw new Error(\`require: \${name} exports nothing\`);
}
`,
);
writeFileSync(
  join(tsDir, 'src', 'import-all.ts'),
  `${published.map((p) => `import * as ${camel(p.folder)} from '${p.manifest.name}';`).join('\n')}
const loaded: Record<string, object> = { ${published.map((p) => camel(p.folder)).join(', ')} };
for (const [name, value] of Object.entries(loaded)) {
  if (Object.keys(value).length === 0) throw new Error(\`import: \${name} exports nothing\`);
}
`,
);

// Types without Express's: every package's declarations compile with only @types/node, as their
// optional `express` peer promises (versioned-router's required peer installs express itself,
// still without types).
const bareDir = join(work, 'ts-without-express-types');
mkdirSync(join(bareDir, 'src'), { recursive: true });
writeFileSync(
  join(bareDir, 'package.json'),
  JSON.stringify({
    name: 'consumer-ts-without-express-types',
    private: true,
    type: 'module',
    dependencies: Object.fromEntries([...tarballs].map(([name, file]) => [name, `file:${file}`])),
    devDependencies: { '@types/node': workspaceRange('@types/node') },
  }),
);
writeFileSync(join(bareDir, 'tsconfig.json'), readFileSync(join(tsDir, 'tsconfig.json'), 'utf8'));
for (const file of ['require-all.cts', 'import-all.ts']) {
  writeFileSync(join(bareDir, 'src', file), readFileSync(join(tsDir, 'src', file), 'utf8'));
}

// The newest TypeScript on npm, type-checking the same project.
const tsLatestDir = join(work, 'typescript-latest');
mkdirSync(tsLatestDir);
writeFileSync(
  join(tsLatestDir, 'package.json'),
  JSON.stringify({
    name: 'typescript-latest',
    private: true,
    dependencies: { typescript: 'latest' },
  }),
);

npmInstall(cjsDir);
npmInstall(tsDir);
npmInstall(tsLatestDir);
npmInstall(bareDir);

function typeCheck(label, tscDir, project, extra) {
  const version = readJson(join(tscDir, 'node_modules', 'typescript', 'package.json')).version;
  const what = `TypeScript ${version} (${label}) ${relative(work, project)}`;
  try {
    execFileSync(
      process.execPath,
      [join(tscDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project, ...extra],
      quiet,
    );
    record(true, `${what} compiles (NodeNext, strict, skipLibCheck false)`);
  } catch (error) {
    record(false, `${what} compiles`, `\n${error.stdout}`);
  }
}
typeCheck("the repository's", tsDir, tsDir, []);
typeCheck('newest on npm', tsLatestDir, tsDir, ['--noEmit']);
typeCheck("the repository's", tsDir, bareDir, ['--noEmit']);

// ---------------------------------------------------------------------------------------------
// Running the examples and bins on every Node.

const preload = join(work, 'loopback-listen.cjs');
writeFileSync(
  preload,
  `// Loaded before a README example: whatever port the example asks for (the README says 3000),
// its servers listen on an ephemeral loopback port, announced on stderr for the test.
const net = require('node:net');
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function loopbackListen(...args) {
  const callback = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : undefined;
  this.once('listening', () => process.stderr.write('\\nconsumer-test listening ' + this.address().port + '\\n'));
  return callback ? listen.call(this, 0, '127.0.0.1', callback) : listen.call(this, 0, '127.0.0.1');
};
`,
);
// Examples and bins that need a cluster find one: ~/.kube/config names a stand-in control plane
// (below), reached over plain HTTP with a bearer token.
const home = join(work, 'home');
mkdirSync(join(home, '.kube'), { recursive: true });

function childEnv(node) {
  const env = { ...process.env, HOME: home, PATH: `${dirname(node)}:${process.env.PATH}` };
  for (const name of [
    'KUBECONFIG',
    'KUBERNETES_SERVICE_HOST',
    'REDIS_URL',
    'DATABASE_URL',
    'PORT',
  ]) {
    delete env[name];
  }
  return env;
}

/** Starts a process; resolves once `ready(output)` matches, or it exits, or time runs out. */
function start(node, args, cwd, ready, timeoutMs = 20_000) {
  const child = spawn(node, args, { cwd, env: childEnv(node), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));
  const readyOrExit = new Promise((done) => {
    const timer = setTimeout(() => done({ timeout: true }), timeoutMs);
    const onData = (chunk) => {
      output += chunk;
      const match = ready(output);
      if (match) {
        clearTimeout(timer);
        done({ match });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then((exit) => {
      clearTimeout(timer);
      done({ exit });
    });
  });
  return { child, exited, readyOrExit, output: () => output };
}

async function stop(run) {
  if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill('SIGTERM');
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 5_000);
  const exit = await run.exited;
  clearTimeout(timer);
  return exit;
}

async function runExample(node, label, cwd, file, path) {
  const run = start(node, ['--require', preload, file], cwd, (out) =>
    /consumer-test listening (\d+)/.exec(out),
  );
  const state = await run.readyOrExit;
  if (state.timeout) {
    await stop(run);
    return record(false, label, `neither listened nor exited in 20s\n${run.output()}`);
  }
  if (state.exit) {
    const ok = state.exit.code === 0;
    return record(ok, label, ok ? 'ran to completion' : `exit ${state.exit.code}\n${run.output()}`);
  }
  let detail;
  let ok = false;
  try {
    const response = await fetch(`http://127.0.0.1:${state.match[1]}${path}`, {
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    ok = response.status < 500;
    detail = `GET ${path} → ${response.status}`;
  } catch (error) {
    detail = `GET ${path} failed: ${error.message}`;
  }
  const exit = await stop(run);
  if (exit.code !== null && exit.code !== 0) {
    ok = false;
    detail += `; exit ${exit.code}`;
  }
  record(ok, label, ok ? detail : `${detail}\n${run.output()}`);
}

async function runScript(node, label, cwd, file) {
  const run = start(node, [file], cwd, () => null);
  const state = await run.readyOrExit;
  if (state.timeout) await stop(run);
  const ok = Boolean(state.exit && state.exit.code === 0);
  record(ok, label, ok ? '' : run.output());
}

/** A stand-in control plane: answers any proxied path with who asked for what. */
function controlPlane() {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ path: req.url, authorization: req.headers.authorization ?? null }));
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => done(server)));
}

async function runBins(node, version) {
  for (const p of published) {
    const installed = join(cjsDir, 'node_modules', p.manifest.name);
    const { bin } = readJson(join(installed, 'package.json'));
    const bins = typeof bin === 'string' ? { [p.folder]: bin } : (bin ?? {});
    for (const [name, target] of Object.entries(bins)) {
      const file = join(installed, target);
      const help = start(node, [file, '--help'], cjsDir, () => null);
      const state = await help.readyOrExit;
      if (state.timeout) await stop(help);
      record(
        state.exit?.code === 0 && /usage/i.test(help.output()),
        `node ${version}  bin ${name} --help`,
        state.exit?.code === 0 ? '' : help.output(),
      );
      if (!/proxy/.test(name)) continue;
      // `kubectl proxy` compatible: serve on a free port, relay to the control plane.
      const run = start(
        node,
        [file, '--port=0', `--server=${controlPlaneUrl}`, '--token=consumer-test'],
        cjsDir,
        (out) => /Starting to serve on ([\d.]+:\d+)/.exec(out),
      );
      const ready = await run.readyOrExit;
      let ok = false;
      let detail = run.output();
      if (ready.match) {
        try {
          const path = '/api/v1/namespaces/default/services/web:http/proxy/hello';
          const response = await fetch(`http://${ready.match[1]}${path}`, {
            signal: AbortSignal.timeout(10_000),
          });
          const body = await response.json();
          // The stand-in speaks plain HTTP, over which kubectl (and these bins) send no
          // credential at all: the token must not leak there.
          ok = response.status === 200 && body.path === path && body.authorization === null;
          detail = `GET ${path} → ${response.status} ${JSON.stringify(body)}`;
        } catch (error) {
          detail = `${error.message}\n${run.output()}`;
        }
      }
      await stop(run);
      record(ok, `node ${version}  bin ${name} relays to the control plane`, ok ? '' : detail);
    }
  }
}

const upstream = await controlPlane();
const controlPlaneUrl = `http://127.0.0.1:${upstream.address().port}`;
writeFileSync(
  join(home, '.kube', 'config'),
  `apiVersion: v1
kind: Config
clusters:
  - name: stand-in
    cluster: { server: '${controlPlaneUrl}' }
users:
  - name: consumer-test
    user: { token: consumer-test }
contexts:
  - name: stand-in
    context: { cluster: stand-in, user: consumer-test, namespace: default }
current-context: stand-in
`,
);

for (const node of nodes) {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
  console.log(`\n== consumers on Node ${version} (${seconds()})`);
  for (const e of cjsExamples) {
    await runExample(
      node,
      `node ${version}  cjs+express4  ${e.folder} README example`,
      cjsDir,
      join('examples', `${e.folder}.cjs`),
      e.get,
    );
  }
  for (const e of esmExamples) {
    await runExample(
      node,
      `node ${version}  esm+express5  ${e.folder} README example`,
      tsDir,
      e.esmTyped
        ? join('dist', 'examples', `${e.folder}.js`)
        : join('js-examples', `${e.folder}.mjs`),
      e.get,
    );
  }
  await runScript(
    node,
    `node ${version}  require() of every package`,
    tsDir,
    'dist/require-all.cjs',
  );
  await runScript(node, `node ${version}  import of every package`, tsDir, 'dist/import-all.js');
  await runBins(node, version);
}

upstream.close();
if (!keep) rmSync(work, { recursive: true, force: true });
console.log(
  `\nconsumer checks: ${passed} passed, ${failed} failed (${published.length} packages, Node ${nodes.length === 1 ? 'x1' : `x${nodes.length}`}, ${seconds()})`,
);
process.exit(failed > 0 ? 1 : 0);
