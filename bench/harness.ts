/**
 * @module Load-run helpers for the benchmarks. Figures are reported as ratios against a baseline
 * measured in the same process and the same run, because these machines are noisy: baseline
 * and candidate alternate round by round (B C, C B, B C, …) after a discarded warm-up, and the
 * ratio reported is the median of the per-round ratios, with their spread. The load generator
 * (autocannon) runs in a worker thread, so it does not take turns with the server on one core.
 * Every run is bounded in time and targets 127.0.0.1 only.
 *
 * `BENCH_QUICK=1` runs one short round of each (a smoke run: the figures mean nothing);
 * `BENCH_ROUNDS` and `BENCH_SECONDS` override the defaults below.
 */
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import { Worker } from 'node:worker_threads';
import { listen } from '@resourceful/test-support';
import autocannon from 'autocannon';

/** A smoke run: one short measured round per comparison. */
export const QUICK = process.env.BENCH_QUICK === '1';
/** Measured rounds of each side per comparison (after one discarded warm-up round). */
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 7));
/** Seconds per measurement: short rounds keep each pair close in time on a drifting machine. */
export const SECONDS = Number(process.env.BENCH_SECONDS ?? (QUICK ? 0.5 : 1.5));
/** Only the comparisons whose name contains this text are measured (the others are skipped). */
export const ONLY = process.env.BENCH_ONLY;

/** What load-worker.mjs is given. */
interface WorkerRun {
  url: string;
  method: string;
  headers?: Record<string, string>;
  body?: string;
  duration: number;
  connections: number;
  overallRate?: number;
  uniqueHeader?: string;
}

export interface LoadRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** A header sent with a fresh UUID on every request (for instance Service-Request-Id). */
  uniqueHeader?: string;
  /**
   * Called per request to vary it. A function cannot cross to the load worker, so a request
   * with one is loaded from this thread (sharing the server's core); prefer `uniqueHeader`.
   */
  setupRequest?: (request: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
  }) => { method?: string; path: string; headers?: Record<string, string>; body?: string };
}

export interface LoadOptions {
  /** Seconds per measured run. @default SECONDS (1.5; 0.5 in quick mode) */
  duration?: number;
  /** @default 32 */
  connections?: number;
  /** Offered load in requests per second over all connections; unset: as fast as answered. */
  overallRate?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  /**
   * CPU milliseconds this process's main thread (where the benchmarks' servers run) spent per
   * request; undefined where it cannot be read (not Linux) or the server is another process.
   */
  serverCpuPerRequest?: number;
  /**
   * Latency percentiles in milliseconds, from each answer's own time (load-worker.mjs);
   * autocannon's whole milliseconds for a request loaded from this thread.
   */
  p50?: number;
  p99?: number;
  non2xx: number;
  errors: number;
}

/** Runs autocannon (in a worker thread) against an already listening URL. */
export async function loadUrl(
  url: string,
  request: LoadRequest,
  options: LoadOptions = {},
): Promise<LoadResult> {
  const run: WorkerRun = {
    url: url + request.path,
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
    duration: options.duration ?? SECONDS,
    connections: options.connections ?? 32,
    overallRate: options.overallRate,
    uniqueHeader: request.uniqueHeader,
  };
  if (request.setupRequest) return loadInThisThread(run, request.setupRequest);
  const cpuBefore = mainThreadCpuMs();
  const result = await new Promise<LoadResult>((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.mjs', import.meta.url), { workerData: run });
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`load worker exited with ${code}`)));
  });
  const cpuAfter = mainThreadCpuMs();
  const requests = result.requestsPerSecond * run.duration;
  // Below 10 ticks the server was not in this thread (or did nothing): no figure.
  if (cpuBefore !== undefined && cpuAfter !== undefined && cpuAfter - cpuBefore >= 100) {
    result.serverCpuPerRequest = (cpuAfter - cpuBefore) / requests;
  }
  return result;
}

/**
 * User + system CPU time of this process's main thread in milliseconds, from
 * /proc/self/task/<pid>/stat (clock ticks of 10 ms). It measures what the server costs per
 * request whatever share of the cores other processes take, unlike throughput.
 */
function mainThreadCpuMs(): number | undefined {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces, hence the last ')').
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function loadInThisThread(
  run: WorkerRun,
  setupRequest: NonNullable<LoadRequest['setupRequest']>,
): Promise<LoadResult> {
  const result = await autocannon({
    ...run,
    method: run.method as 'GET',
    requests: [{ setupRequest: setupRequest as never }],
  });
  return {
    requestsPerSecond: result.requests.total / (result.duration || run.duration),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** Starts the handler on 127.0.0.1, loads it, closes it. */
export async function load(
  handler: RequestListener,
  request: LoadRequest,
  options?: LoadOptions,
): Promise<LoadResult> {
  const server = await listen(handler);
  try {
    return await loadUrl(server.url, request, options);
  } finally {
    await server.close();
  }
}

/** What a comparison must reach, from the issue that set it. */
export interface Goal {
  /** The ratio must be at least this (throughput-like: higher is better). */
  atLeast?: number;
  /** The ratio must be at most this (cost-like: lower is better). */
  atMost?: number;
  /** Beside a throughput goal, the p99 ratio must be at most this ("p99 no worse": 1). */
  p99AtMost?: number;
  /** Where the goal comes from, e.g. `#19`. */
  source?: string;
}

export interface Comparison {
  name: string;
  baseline: number;
  candidate: number;
  /** candidate / baseline throughput (the median of the rounds' ratios). */
  ratio: number;
  /** Lowest and highest of the rounds' ratios. */
  spread?: [number, number];
  /** candidate / baseline p99 latency (median of the rounds'), where measured. */
  p99Ratio?: number;
  /**
   * baseline / candidate server CPU time per request (median of the rounds'): the throughput
   * ratio the server would show on a core of its own; steadier than `ratio` on a busy machine.
   */
  cpuRatio?: number;
  goal?: Goal;
  /** Which figure the goal is checked against. @default 'ratio' */
  goalOn?: 'ratio' | 'p99Ratio';
  /** Not measured in this run (`BENCH_ONLY` named others); left out of the summary. */
  skipped?: boolean;
}

export interface CompareOptions {
  /** Measured rounds per side. @default ROUNDS (7; 1 in quick mode) */
  rounds?: number;
  goal?: Goal;
  goalOn?: Comparison['goalOn'];
  /**
   * Whether the servers compared run in this process's main thread, so that its CPU time per
   * request means something. Pass false when they are processes of their own.
   * @default true
   */
  serverInThisThread?: boolean;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/**
 * Measures baseline and candidate alternately after a discarded warm-up of each: round r runs
 * B then C when r is even and C then B when odd, so neither side always goes first into a
 * machine whose load drifts. Reports the median of the per-round ratios (robust to one round
 * hit by another process) and their spread.
 */
export async function compare(
  name: string,
  baseline: () => Promise<LoadResult>,
  candidate: () => Promise<LoadResult>,
  options: CompareOptions = {},
): Promise<Comparison> {
  const rounds = options.rounds ?? ROUNDS;
  if (ONLY !== undefined && !name.includes(ONLY)) {
    return { name, baseline: 0, candidate: 0, ratio: Number.NaN, skipped: true };
  }
  await baseline();
  await candidate();
  const ratios: number[] = [];
  const p99Ratios: number[] = [];
  const cpuRatios: number[] = [];
  const baselines: number[] = [];
  const candidates: number[] = [];
  for (let round = 0; round < rounds; round++) {
    let b: LoadResult;
    let c: LoadResult;
    if (round % 2 === 0) {
      b = await baseline();
      c = await candidate();
    } else {
      c = await candidate();
      b = await baseline();
    }
    if (b.errors + c.errors > 0) throw new Error(`${name}: connection errors during the run`);
    // Both sides answer alike (a 404 benchmark answers 404 on both); one side failing where
    // the other does not makes the ratio meaningless.
    if (b.non2xx > 0 !== c.non2xx > 0) {
      throw new Error(`${name}: non-2xx answers, baseline ${b.non2xx}, candidate ${c.non2xx}`);
    }
    baselines.push(b.requestsPerSecond);
    candidates.push(c.requestsPerSecond);
    ratios.push(c.requestsPerSecond / b.requestsPerSecond);
    if (b.p99 && c.p99) p99Ratios.push(c.p99 / b.p99);
    if (b.serverCpuPerRequest && c.serverCpuPerRequest) {
      cpuRatios.push(b.serverCpuPerRequest / c.serverCpuPerRequest);
    }
  }
  const comparison: Comparison = {
    name,
    baseline: Math.round(median(baselines)),
    candidate: Math.round(median(candidates)),
    ratio: median(ratios),
    spread: [Math.min(...ratios), Math.max(...ratios)],
    p99Ratio: p99Ratios.length === rounds ? median(p99Ratios) : undefined,
    cpuRatio:
      options.serverInThisThread !== false && cpuRatios.length === rounds
        ? median(cpuRatios)
        : undefined,
    goal: options.goal,
    goalOn: options.goalOn,
  };
  report(comparison);
  return comparison;
}

export function report(comparison: Comparison): void {
  const { name, baseline, candidate, ratio, spread, p99Ratio, cpuRatio } = comparison;
  const range = spread ? ` [${spread[0].toFixed(3)}–${spread[1].toFixed(3)}]` : '';
  const p99 = p99Ratio === undefined ? '' : `, p99 ratio ${p99Ratio.toFixed(3)}`;
  const cpu = cpuRatio === undefined ? '' : `, CPU-per-request ratio ${cpuRatio.toFixed(3)}`;
  console.log(
    `${name}: ratio ${ratio.toFixed(3)}${range}${p99}${cpu} (candidate ${candidate} req/s, baseline ${baseline} req/s)`,
  );
}

/**
 * `pass`, `FAIL`, or `-` when the comparison has no goal. A throughput goal passes when both
 * the throughput ratio and (where measured) the CPU-per-request ratio meet it.
 */
export function verdict(comparison: Comparison): string {
  const { goal } = comparison;
  if (goal === undefined) return '-';
  // Throughput goals are also checked against the CPU-per-request ratio where it was measured:
  // on a shared machine a burst of another process can lift one side's throughput by chance,
  // and a goal should not pass on such luck.
  const values =
    comparison.goalOn === 'p99Ratio'
      ? [comparison.p99Ratio]
      : [comparison.ratio, ...(comparison.cpuRatio === undefined ? [] : [comparison.cpuRatio])];
  for (const value of values) {
    if (value === undefined) return 'FAIL';
    if (goal.atLeast !== undefined && value < goal.atLeast) return 'FAIL';
    if (goal.atMost !== undefined && value > goal.atMost) return 'FAIL';
  }
  if (goal.p99AtMost !== undefined) {
    if (comparison.p99Ratio === undefined || comparison.p99Ratio > goal.p99AtMost) return 'FAIL';
  }
  return 'pass';
}

export function goalText(comparison: Comparison): string {
  const { goal } = comparison;
  if (goal === undefined) return '';
  const on = comparison.goalOn === 'p99Ratio' ? 'p99 ' : '';
  const bounds = [
    goal.atLeast === undefined ? '' : `≥ ${goal.atLeast}`,
    goal.atMost === undefined ? '' : `≤ ${goal.atMost}`,
    goal.p99AtMost === undefined ? '' : `p99 ≤ ${goal.p99AtMost}`,
  ]
    .filter(Boolean)
    .join(' and ');
  return `${on}${bounds}${goal.source ? ` (${goal.source})` : ''}`;
}
