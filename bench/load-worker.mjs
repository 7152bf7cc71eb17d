/**
 * @module The load generator, in a worker thread of its own: autocannon's event loop and
 * garbage collection run on the other core instead of taking turns with the server's on one.
 * It receives one run's settings (`WorkerRun` in harness.ts), answers with the figures the
 * harness compares (`WorkerResult`), and exits. Plain JavaScript: worker threads do not inherit
 * the tsx loader.
 */
import { randomUUID } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import autocannon from 'autocannon';

const run = workerData;
const uniqueHeader = run.uniqueHeader;
const options = {
  url: run.url,
  method: run.method,
  headers: run.headers,
  body: run.body,
  duration: run.duration,
  connections: run.connections,
  overallRate: run.overallRate,
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
// Off the main thread autocannon answers its raw per-worker figures; aggregate them as it
// does on the main thread.
const result = autocannon.aggregateResult([await autocannon(options)], options);
parentPort.postMessage({
  // Requests completed over the run's length (autocannon's mean of per-second samples drops
  // the last partial second).
  requestsPerSecond: result.requests.total / (result.duration || run.duration),
  p50: result.latency.p50,
  p99: result.latency.p99,
  non2xx: result.non2xx,
  errors: result.errors,
});
