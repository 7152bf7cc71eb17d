/**
 * @module A fake exec credential plugin: a real executable script (run by the proxies with
 * `execFile`, no shell) that counts its runs in a file, records what it was given
 * (`KUBERNETES_EXEC_INFO`, its arguments, chosen environment variables) and prints an
 * ExecCredential of the apiVersion it was asked for: a token `PREFIX-N` for run N expiring after
 * `--ttl` seconds, or a client certificate and key, or nothing and an exit code. Misbehaving
 * plugins on request: `--ignore-term` (SIGTERM does nothing), `--read-stdin` (answers only once
 * its stdin ends), `--stderr-bytes=N` (that much noise on stderr first), `--stdout-bytes=N`
 * (that many bytes of output that is not an ExecCredential instead).
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FakePlugin {
  /** Absolute path of the executable. */
  readonly command: string;
  /** How many times it has run. */
  runs(): number;
  /** What the last run was given. */
  lastRun(): { execInfo: unknown; args: string[]; env: Record<string, string | undefined> };
}

const SCRIPT = (countFile: string, seenFile: string) => `#!${process.execPath}
const fs = require('node:fs');
const args = process.argv.slice(2);
const option = (name, fallback) => {
  const found = args.find((arg) => arg.startsWith('--' + name + '='));
  return found === undefined ? fallback : found.slice(name.length + 3);
};
fs.appendFileSync(${JSON.stringify(countFile)}, 'run\\n');
const runs = fs.readFileSync(${JSON.stringify(countFile)}, 'utf8').split('\\n').length - 1;
const info = JSON.parse(process.env.KUBERNETES_EXEC_INFO || 'null');
fs.writeFileSync(${JSON.stringify(seenFile)}, JSON.stringify({
  execInfo: info,
  args,
  env: { FAKE_PLUGIN_ENV: process.env.FAKE_PLUGIN_ENV, HOME: process.env.HOME },
}));
const exitCode = Number(option('exit', '0'));
const delay = Number(option('delay-ms', '0'));
if (args.includes('--ignore-term')) process.on('SIGTERM', () => {});
const stderrBytes = Number(option('stderr-bytes', '0'));
if (stderrBytes > 0) process.stderr.write('e'.repeat(stderrBytes));
const answer = () => setTimeout(() => {
  const stdoutBytes = Number(option('stdout-bytes', '0'));
  if (stdoutBytes > 0) {
    process.stdout.write('o'.repeat(stdoutBytes));
    return;
  }
  if (exitCode !== 0) {
    process.stderr.write('fake plugin failing on purpose\\n');
    process.exit(exitCode);
  }
  const ttl = option('ttl', '');
  const status = {};
  if (option('cert', '') !== '') {
    status.clientCertificateData = fs.readFileSync(option('cert', ''), 'utf8');
    status.clientKeyData = fs.readFileSync(option('key', ''), 'utf8');
  } else {
    status.token = option('prefix', 'exec') + '-' + runs;
  }
  if (ttl !== '') status.expirationTimestamp = new Date(Date.now() + Number(ttl) * 1000).toISOString();
  process.stdout.write(JSON.stringify({
    apiVersion: info ? info.apiVersion : 'client.authentication.k8s.io/v1beta1',
    kind: 'ExecCredential',
    status,
  }));
}, delay);
if (args.includes('--read-stdin')) {
  process.stdin.resume();
  process.stdin.on('end', answer);
} else answer();
`;

/** Writes the plugin into `dir` (under `name`, so several can coexist). */
export function writeFakePlugin(dir: string, name = 'fake-plugin'): FakePlugin {
  const command = join(dir, name);
  const countFile = join(dir, `${name}.runs`);
  const seenFile = join(dir, `${name}.seen.json`);
  writeFileSync(countFile, '');
  writeFileSync(command, SCRIPT(countFile, seenFile));
  chmodSync(command, 0o755);
  return {
    command,
    runs: () => readFileSync(countFile, 'utf8').split('\n').length - 1,
    lastRun: () =>
      existsSync(seenFile)
        ? JSON.parse(readFileSync(seenFile, 'utf8'))
        : { execInfo: undefined, args: [], env: {} },
  };
}
