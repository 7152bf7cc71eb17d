/**
 * `k8s-local-proxy` (candidate) against `kubectl proxy` (baseline) relaying small GETs through
 * the service proxy path to the same TLS control-plane double, at 1, 10, 32 and 64 connections.
 * Four processes, so the figures are the proxies' and not the double's or the load generator's:
 * the double (this file run with `--control-plane`), the two proxies, and the load generator
 * (`load-worker.mjs`, autocannon, started as a process of its own), one run at a time. Each concurrency is measured in `BENCH_ROUNDS`
 * (default 5) rounds after one warm-up pair; a round runs kubectl then ours, or ours then kubectl
 * (alternating), for `BENCH_SECONDS` (default 3) each. Reported per concurrency: the ratio of the
 * mean throughputs, the median and the range of the per-round ratios (the noise), each proxy's
 * median p99 latency (fractional milliseconds, from each answer's own time) and CPU time per
 * request. The goal (#19) is ≥ 1.0 in throughput and CPU with a p99 no worse, at every
 * concurrency. The control plane speaks HTTP/1.1 (both proxies then keep
 * HTTP/1.1 connections alive); `BENCH_K8S_HTTP2=1` lets it offer HTTP/2, which kubectl takes.
 * `BENCH_CONNECTIONS=1,10` measures only those concurrencies.
 *
 * ```sh
 * cd bench && node --conditions=source --import tsx run-all.ts k8s-local-proxy-curve
 * ```
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import {
  findKubectl,
  type RunningProxy,
  startKubectlProxy,
  startProcess,
} from '../packages/k8s-local-proxy/test/support/proxy-processes.js';
import type { Comparison } from './harness.js';

const here = fileURLToPath(import.meta.url);
const CONCURRENCIES = (process.env.BENCH_CONNECTIONS ?? '1,10,32,64').split(',').map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const HTTP2 = process.env.BENCH_K8S_HTTP2 === '1';
const PATH = '/api/v1/namespaces/default/services/web:http/proxy/items?page=1';
const LOAD_WORKER = fileURLToPath(new URL('./load-worker.mjs', import.meta.url));

/** One concurrency's figures; `ratio` is candidate / baseline mean throughput. */
export interface CurvePoint extends Comparison {
  readonly connections: number;
  /** Median and range of the per-round throughput ratios, and how many rounds were ≥ 1. */
  readonly roundRatios: { median: number; min: number; max: number; atLeastOne: number };
  /** Median over the rounds of each proxy's p99 latency, in ms. */
  readonly p99: { baseline: number; candidate: number };
  /** CPU time (user + system) each proxy process used per request, in µs (lower is better). */
  readonly cpuPerRequestUs: { baseline: number; candidate: number };
}

interface Run {
  requestsPerSecond: number;
  p99: number;
  cpuPerRequestUs: number;
  non2xx: number;
  errors: number;
}

/** The double in a process of its own: prints `{ url, kubeconfig }`, serves until SIGTERM. */
async function serveControlPlane(): Promise<void> {
  const { makeCertificates } = await import('../packages/test-support/src/k8s/certificates.js');
  const { startControlPlane } = await import(
    '../packages/test-support/src/k8s/control-plane-double.js'
  );
  const { writeKubeconfig } = await import('../packages/test-support/src/kubeconfig.js');
  const certs = makeCertificates();
  const plane = await startControlPlane(certs, { http2: HTTP2 });
  const kubeconfig = writeKubeconfig(certs.dir, {
    server: plane.url,
    caFile: certs.caFile,
    user: { token: 'test-token' },
  });
  // The double records every request; keep its memory flat during the runs.
  const trim = setInterval(() => plane.requests.splice(0), 500);
  const stop = () => {
    clearInterval(trim);
    plane.close().finally(() => {
      certs.cleanup();
      process.exit(0);
    });
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.stdout.write(`${JSON.stringify({ url: plane.url, kubeconfig })}\n`);
}

function startControlPlaneProcess(): Promise<{ child: ChildProcess; kubeconfig: string }> {
  const child = spawn(process.execPath, [...process.execArgv, here, '--control-plane'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.on('exit', (code) => reject(new Error(`the control-plane double exited (${code})`)));
    child.stdout?.on('data', (data: Buffer) => {
      out += data.toString('utf8');
      const line = out.split('\n')[0] ?? '';
      if (!out.includes('\n')) return;
      const { kubeconfig } = JSON.parse(line) as { kubeconfig: string };
      resolve({ child, kubeconfig });
    });
  });
}

/** User + system CPU time of a process so far, in µs (Linux `/proc`; clock ticks of 10 ms). */
function cpuMicros(pid: number | undefined): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/** The load generator in its own process; it prints throughput, p99 and the request count. */
function loadRun(proxy: RunningProxy, connections: number): Promise<Run> {
  const cpuBefore = cpuMicros(proxy.child.pid);
  const settings = {
    url: `http://127.0.0.1:${proxy.port}${PATH}`,
    method: 'GET',
    headers: { host: 'localhost' },
    connections,
    duration: SECONDS,
  };
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [LOAD_WORKER, JSON.stringify(settings)], (error, stdout) => {
      if (error) {
        reject(error);
        return;
      }
      const result = JSON.parse(stdout) as {
        requestsPerSecond: number;
        requests: number;
        p99: number;
        non2xx: number;
        errors: number;
      };
      resolve({
        requestsPerSecond: result.requestsPerSecond,
        p99: result.p99,
        cpuPerRequestUs: (cpuMicros(proxy.child.pid) - cpuBefore) / result.requests,
        non2xx: result.non2xx,
        errors: result.errors,
      });
    });
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1
    ? (sorted[Math.floor(middle)] ?? 0)
    : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

async function measure(
  connections: number,
  kubectl: RunningProxy,
  ours: RunningProxy,
): Promise<CurvePoint> {
  const check = (who: string, run: Run) => {
    if (run.errors > 0 || run.non2xx > 0) {
      throw new Error(`${who}: ${run.errors} errors, ${run.non2xx} non-2xx answers`);
    }
    return run;
  };
  await loadRun(kubectl, connections);
  await loadRun(ours, connections);
  const baseline: Run[] = [];
  const candidate: Run[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // Alternate which goes first, so a drift in the machine's load hits both alike.
    if (round % 2 === 0) {
      baseline.push(check('kubectl proxy', await loadRun(kubectl, connections)));
      candidate.push(check('k8s-local-proxy', await loadRun(ours, connections)));
    } else {
      candidate.push(check('k8s-local-proxy', await loadRun(ours, connections)));
      baseline.push(check('kubectl proxy', await loadRun(kubectl, connections)));
    }
  }
  const total = (runs: Run[]) => runs.reduce((sum, run) => sum + run.requestsPerSecond, 0);
  const ratios = candidate.map(
    (run, i) => run.requestsPerSecond / (baseline[i]?.requestsPerSecond ?? Number.NaN),
  );
  const p99 = {
    baseline: median(baseline.map((run) => run.p99)),
    candidate: median(candidate.map((run) => run.p99)),
  };
  const cpuPerRequestUs = {
    baseline: median(baseline.map((run) => run.cpuPerRequestUs)),
    candidate: median(candidate.map((run) => run.cpuPerRequestUs)),
  };
  const point: CurvePoint = {
    name: `k8s-local-proxy vs kubectl proxy, small GET via the service proxy path, ${connections} connection${connections === 1 ? '' : 's'}${HTTP2 ? ', control plane offering HTTP/2' : ''}`,
    connections,
    baseline: Math.round(total(baseline) / ROUNDS),
    candidate: Math.round(total(candidate) / ROUNDS),
    ratio: total(candidate) / total(baseline),
    roundRatios: {
      median: median(ratios),
      min: Math.min(...ratios),
      max: Math.max(...ratios),
      atLeastOne: ratios.filter((ratio) => ratio >= 1).length,
    },
    spread: [Math.min(...ratios), Math.max(...ratios)],
    p99,
    p99Ratio: p99.candidate / p99.baseline,
    cpuPerRequestUs,
    cpuRatio: cpuPerRequestUs.baseline / cpuPerRequestUs.candidate,
    goal: { atLeast: 1, p99AtMost: 1, source: '#19' },
  };
  console.log(
    `${point.name}: ratio ${point.ratio.toFixed(3)} (rounds: median ${point.roundRatios.median.toFixed(3)}, ${point.roundRatios.min.toFixed(3)}–${point.roundRatios.max.toFixed(3)}, ${point.roundRatios.atLeastOne} of ${ROUNDS} ≥ 1; ` +
      `${point.candidate} vs ${point.baseline} req/s; p99 ${p99.candidate.toFixed(2)} ms vs ${p99.baseline.toFixed(2)} ms; ` +
      `CPU ${Math.round(cpuPerRequestUs.candidate)} µs vs ${Math.round(cpuPerRequestUs.baseline)} µs per request)`,
  );
  return point;
}

export async function run(): Promise<CurvePoint[]> {
  const kubectlPath = findKubectl();
  if (kubectlPath === undefined) {
    console.log('k8s-local-proxy curve: kubectl is not installed; no baseline, nothing measured');
    return [];
  }
  const plane = await startControlPlaneProcess();
  const args = [`--kubeconfig=${plane.kubeconfig}`];
  const built = createRequire(import.meta.url).resolve(
    '../packages/k8s-local-proxy/bin/k8s-local-proxy.cjs',
  );
  const [kubectl, ours] = await Promise.all([
    startKubectlProxy(kubectlPath, args),
    // The built bin when there is one (what users run), else the sources through tsx.
    startProcess(process.execPath, [built, '--port=0', ...args]).catch(() =>
      startProcess(
        process.execPath,
        [
          '--conditions=source',
          '--import',
          'tsx',
          fileURLToPath(new URL('../packages/k8s-local-proxy/src/cli.ts', import.meta.url)),
          '--port=0',
          ...args,
        ],
        {},
      ),
    ),
  ]);
  try {
    const points: CurvePoint[] = [];
    for (const connections of CONCURRENCIES) {
      points.push(await measure(connections, kubectl, ours));
    }
    return points;
  } finally {
    await Promise.all([kubectl.stop(), ours.stop()]);
    plane.child.kill('SIGTERM');
  }
}

if (process.argv.includes('--control-plane') && process.argv[1] === here) {
  await serveControlPlane();
}
