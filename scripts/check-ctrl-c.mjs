#!/usr/bin/env node
/**
 * The README's run command, stopped as a newcomer stops it: started in a process group of its own
 * with the default signal dispositions (as a terminal runs it), then SIGINT to the whole group
 * (what Ctrl-C does). A clean shutdown must look clean:
 *  - `npx --yes pnpm@10 start` prints no failure report (ERR_PNPM_…, ELIFECYCLE);
 *  - `pnpm start` (the same script without npx's wrapper) exits 0. npx itself runs pnpm through
 *    `sh -c`, and Debian's sh (dash) dies of the terminal's SIGINT whatever its child does, so
 *    npx ends by that signal, silently, as any command stopped with Ctrl-C.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;

async function ctrlC(command, args) {
  const child = spawn(command, args, {
    cwd: root,
    detached: true, // a process group of its own, like a terminal's foreground job
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise((done) => child.on('exit', (code, signal) => done({ code, signal })));
  const started = new Promise((done) => {
    const onData = (chunk) => {
      output += chunk;
      if (output.includes('listening on')) done(true);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    exited.then(() => done(false));
    setTimeout(() => done(false), 60_000).unref();
  });
  const ok = await started;
  process.kill(-child.pid, ok ? 'SIGINT' : 'SIGKILL');
  const timer = setTimeout(() => process.kill(-child.pid, 'SIGKILL'), 15_000);
  const { code, signal } = await exited;
  clearTimeout(timer);
  await new Promise((done) => setTimeout(done, 300)); // the group's last words
  return { started: ok, code, signal, output: output.replace(/^npm warn .*\n/gm, '') };
}

let failed = false;
const failureReport = /ERR_PNPM|ELIFECYCLE|Command failed/;

const npx = await ctrlC('npx', ['--yes', 'pnpm@10', 'start']);
if (!npx.started || failureReport.test(npx.output) || !/closing/.test(npx.output)) {
  console.error(
    `${npx.output}\nnpx --yes pnpm@10 start: not started, not closed, or a failure report`,
  );
  failed = true;
} else {
  console.log('npx --yes pnpm@10 start, then Ctrl-C: the service closed, no failure report');
}

const pnpm = await ctrlC(join(root, 'node_modules', '.bin', 'pnpm'), ['start']);
if (!pnpm.started || pnpm.code !== 0 || failureReport.test(pnpm.output)) {
  console.error(`${pnpm.output}\npnpm start, then Ctrl-C: exit ${pnpm.code ?? pnpm.signal}`);
  failed = true;
} else {
  console.log('pnpm start, then Ctrl-C: exit status 0');
}
process.exit(failed ? 1 : 0);
