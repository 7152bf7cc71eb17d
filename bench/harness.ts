/**
 * @module Load-run helpers for the benchmarks. Figures are reported as ratios against a baseline
 * measured in the same process and the same run, because these machines are noisy. Every run
 * is bounded in time and targets 127.0.0.1 only.
 */
import type { RequestListener } from 'node:http';
import { listen } from '@resourceful/test-support';
import autocannon from 'autocannon';

export interface LoadRequest {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
  /** Called per request to vary it (for instance a fresh Service-Request-Id). */
  setupRequest?: (request: {
    method?: string;
    path: string;
    headers?: Record<string, string>;
    body?: string;
  }) => { method?: string; path: string; headers?: Record<string, string>; body?: string };
}

export interface LoadOptions {
  /** Seconds per measured run. @default 4 */
  duration?: number;
  /** @default 10 */
  connections?: number;
}

export interface LoadResult {
  requestsPerSecond: number;
  non2xx: number;
  errors: number;
}

/** Runs autocannon against an already listening URL. */
export async function loadUrl(
  url: string,
  request: LoadRequest,
  options: LoadOptions = {},
): Promise<LoadResult> {
  const result = await autocannon({
    url: url + request.path,
    method: (request.method ?? 'GET') as 'GET',
    headers: request.headers,
    body: request.body,
    duration: options.duration ?? 4,
    connections: options.connections ?? 10,
    requests: request.setupRequest ? [{ setupRequest: request.setupRequest as never }] : undefined,
  });
  return {
    requestsPerSecond: result.requests.average,
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

export interface Comparison {
  name: string;
  baseline: number;
  candidate: number;
  /** candidate / baseline throughput. */
  ratio: number;
}

/**
 * Measures baseline and candidate alternately (B, C, B, C) after a warm-up, so drift in the
 * machine's load hits both, and reports the ratio of the means.
 */
export async function compare(
  name: string,
  baseline: () => Promise<LoadResult>,
  candidate: () => Promise<LoadResult>,
  { rounds = 2 } = {},
): Promise<Comparison> {
  await baseline();
  await candidate();
  let baselineTotal = 0;
  let candidateTotal = 0;
  for (let round = 0; round < rounds; round++) {
    const b = await baseline();
    const c = await candidate();
    if (b.errors + c.errors > 0) throw new Error(`${name}: connection errors during the run`);
    baselineTotal += b.requestsPerSecond;
    candidateTotal += c.requestsPerSecond;
  }
  const comparison = {
    name,
    baseline: Math.round(baselineTotal / rounds),
    candidate: Math.round(candidateTotal / rounds),
    ratio: candidateTotal / baselineTotal,
  };
  report(comparison);
  return comparison;
}

export function report({ name, baseline, candidate, ratio }: Comparison): void {
  console.log(
    `${name}: ratio ${ratio.toFixed(3)} (candidate ${candidate} req/s, baseline ${baseline} req/s)`,
  );
}
