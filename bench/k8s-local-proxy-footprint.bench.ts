/**
 * Start-up time and resident memory of `k8s-local-proxy` (the built bin as users run it,
 * `bin/k8s-local-proxy.cjs` loading the one-file `dist/cli.cjs`; run `npx --yes pnpm@10 run
 * build` first) against `kubectl proxy`, on the same kubeconfig and TLS control-plane double: the
 * time from spawn to the `Starting to serve` line (median of 15 starts each, alternating with
 * kubectl's and with a bare Node process's), and VmRSS after 5 000 small GETs through each.
 * Reported as candidate / baseline ratios where lower is better. The bare Node process (loads
 * `node:http` and `node:https`, listens, prints the same line) is the floor any Node CLI starts
 * from. The kubectl here is a version dispatcher that calls `/version` before serving, which is
 * part of its start-up as users see it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  findKubectl,
  REPO_ROOT,
  type RunningProxy,
  startProcess,
} from '../packages/k8s-local-proxy/test/support/proxy-processes.js';
import { makeCertificates } from '../packages/k8s-service-proxy/test/support/certificates.js';
import { startControlPlane } from '../packages/k8s-service-proxy/test/support/control-plane-double.js';
import { writeKubeconfig } from '../packages/k8s-service-proxy/test/support/kubeconfig.js';
import type { Comparison } from './harness.js';

const BUILT_BIN = join(REPO_ROOT, 'packages', 'k8s-local-proxy', 'bin', 'k8s-local-proxy.cjs');
const BUILT_CLI = join(REPO_ROOT, 'packages', 'k8s-local-proxy', 'dist', 'cli.cjs');
const STARTS = 15;
const BARE_NODE = `require('node:https');require('node:http').createServer().listen(0,'127.0.0.1',function(){console.log('Starting to serve on 127.0.0.1:'+this.address().port)})`;
const REQUESTS = 5_000;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

function residentMiB(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kib / 1024;
}

export async function run(): Promise<Comparison[]> {
  const kubectl = findKubectl();
  if (kubectl === undefined || !existsSync(BUILT_CLI)) {
    console.log(
      'k8s-local-proxy footprint: needs kubectl and a built CLI (npx --yes pnpm@10 run build); nothing measured',
    );
    return [];
  }
  const certs = makeCertificates();
  const plane = await startControlPlane(certs);
  const kubeconfig = writeKubeconfig(certs.dir, {
    server: plane.url,
    caFile: certs.caFile,
    user: { token: 'test-token' },
  });
  const args = ['--port=0', `--kubeconfig=${kubeconfig}`];
  const startKubectl = () => startProcess(kubectl, ['proxy', ...args]);
  const startOurs = () => startProcess(process.execPath, [BUILT_BIN, ...args]);
  const startBareNode = () => startProcess(process.execPath, ['-e', BARE_NODE]);
  const timed = async (start: () => Promise<RunningProxy>) => {
    const began = performance.now();
    const proxy = await start();
    const elapsed = performance.now() - began;
    await proxy.stop();
    return elapsed;
  };
  const trim = setInterval(() => plane.requests.splice(0), 500);
  try {
    const kubectlStarts: number[] = [];
    const ourStarts: number[] = [];
    const bareStarts: number[] = [];
    // One start each first, so every measured one finds the files in the page cache.
    await timed(startKubectl);
    await timed(startOurs);
    await timed(startBareNode);
    for (let i = 0; i < STARTS; i++) {
      kubectlStarts.push(await timed(startKubectl));
      ourStarts.push(await timed(startOurs));
      bareStarts.push(await timed(startBareNode));
    }
    const startup: Comparison = {
      name: `k8s-local-proxy start-up time vs kubectl proxy (median ms; lower is better)`,
      baseline: Math.round(median(kubectlStarts)),
      candidate: Math.round(median(ourStarts)),
      ratio: median(ourStarts) / median(kubectlStarts),
    };
    console.log(
      `${startup.name}: ratio ${startup.ratio.toFixed(3)} (k8s-local-proxy ${startup.candidate} ms, kubectl proxy ${startup.baseline} ms)`,
    );
    const floor: Comparison = {
      name: `bare Node start (listen, print) vs kubectl proxy: the floor of the ratio above (median ms; lower is better)`,
      baseline: Math.round(median(kubectlStarts)),
      candidate: Math.round(median(bareStarts)),
      ratio: median(bareStarts) / median(kubectlStarts),
    };
    console.log(
      `${floor.name}: ratio ${floor.ratio.toFixed(3)} (bare node ${floor.candidate} ms, kubectl proxy ${floor.baseline} ms)`,
    );

    const memory = async (start: () => Promise<RunningProxy>) => {
      const proxy = await start();
      try {
        await autocannon({
          url: `http://127.0.0.1:${proxy.port}/api/v1/namespaces/default/services/web/proxy/items`,
          headers: { Host: 'localhost' },
          connections: 10,
          amount: REQUESTS,
        });
        return residentMiB(proxy.child.pid);
      } finally {
        await proxy.stop();
      }
    };
    const kubectlRss = await memory(startKubectl);
    const ourRss = await memory(startOurs);
    const rss: Comparison = {
      name: `k8s-local-proxy resident memory after ${REQUESTS} GETs vs kubectl proxy (MiB; lower is better)`,
      baseline: Math.round(kubectlRss),
      candidate: Math.round(ourRss),
      ratio: ourRss / kubectlRss,
    };
    console.log(
      `${rss.name}: ratio ${rss.ratio.toFixed(3)} (k8s-local-proxy ${ourRss.toFixed(1)} MiB, kubectl proxy ${kubectlRss.toFixed(1)} MiB)`,
    );
    return [startup, floor, rss];
  } finally {
    clearInterval(trim);
    await plane.close();
    certs.cleanup();
  }
}
