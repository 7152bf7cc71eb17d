/**
 * @module The load generator, in a worker thread of its own: autocannon's event loop and
 * garbage collection run on the other core instead of taking turns with the server's on one.
 * It receives one run's settings (`WorkerRun` in harness.ts), answers with the figures the
 * harness compares (`WorkerResult`), and exits. Plain JavaScript: worker threads do not inherit
 * the tsx loader.
 *
 * Started as a process of its own (`node load-worker.mjs '<settings as JSON>'`, as the
 * Kubernetes curve does, whose servers are processes too), it prints the figures as JSON.
 */
import { randomUUID } from 'node:crypto';
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';

const run = isMainThread ? JSON.parse(process.argv[2]) : workerData;
const uniqueHeader = run.uniqueHeader;
const options = {
  url: run.url,
  method: run.method,
  headers: run.headers,
  body: run.body,
  duration: run.duration,
  connections: run.connections,
  overallRate: run.overallRate,
  // Aggregated below in both modes (autocannon aggregates by itself only on a main thread).
  skipAggregateResult: true,
  requests:
    uniqueHeader === undefined
      ? undefined
      : [
          {
            setupRequest: (request) => ({
              ...request,
              headers: { ...request.headers, [uniqueHeader]: randomUUID() },
            }),
          },
        ],
};
// autocannon's latency histogram counts whole milliseconds, so at the 1–3 ms these servers
// answer in, one queued request moves a p99 ratio by 0.3–1.0. Each 2xx answer's own time
// (hrtime, in fractional milliseconds) is kept instead, at most MAX_SAMPLES of them.
const MAX_SAMPLES = 2_000_000;
const latencies = [];
// At a fixed offered rate, a connection waiting on a slow answer sends its next requests late,
// and their wait would go unrecorded (coordinated omission). As HdrHistogram's
// recordValueWithExpectedInterval does, a sample longer than the connection's interval also
// counts the requests that should have been sent meanwhile. autocannon's own correction uses
// 1 ms as the interval whatever the rate; a connection's interval is connections / rate.
const connections = run.overallRate ? Math.min(run.connections, run.overallRate) : run.connections;
const expectedInterval = run.overallRate ? (1000 * connections) / run.overallRate : undefined;
const instance = autocannon(options);
instance.on('response', (_client, statusCode, _bytes, responseTime) => {
  if (statusCode < 200 || statusCode >= 300) return;
  record(responseTime);
  if (expectedInterval === undefined) return;
  for (
    let missed = responseTime - expectedInterval;
    missed >= expectedInterval;
    missed -= expectedInterval
  ) {
    record(missed);
  }
});

function record(milliseconds) {
  if (latencies.length < MAX_SAMPLES) latencies.push(milliseconds);
}
const result = autocannon.aggregateResult([await instance], options);
latencies.sort((a, b) => a - b);
const figures = {
  // Requests completed over the run's length (autocannon's mean of per-second samples drops
  // the last partial second).
  requestsPerSecond: result.requests.total / (result.duration || run.duration),
  requests: result.requests.total,
  p50: percentile(latencies, 0.5) ?? result.latency.p50,
  p99: percentile(latencies, 0.99) ?? result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
};
if (isMainThread) process.stdout.write(`${JSON.stringify(figures)}\n`);
else parentPort.postMessage(figures);

/** Nearest-rank percentile of sorted samples; undefined when there are none. */
function percentile(sorted, fraction) {
  if (sorted.length === 0) return undefined;
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}
