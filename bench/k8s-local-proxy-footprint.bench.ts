/**
 * Start-up time and resident memory of `k8s-local-proxy` (the built bin as users run it,
 * `bin/k8s-local-proxy.cjs` loading the one-file `dist/cli.cjs`; run `npx --yes pnpm@10 run
 * build` first) against `kubectl proxy`, on the same kubeconfig and TLS control-plane double: the
 * time from spawn to the `Starting to serve` line (median of 15 starts each, alternating with
 * kubectl's and with a bare Node process's), and VmRSS after 5 000 small GETs through each
 * (median of three runs each).
 * Reported as candidate / baseline ratios where lower is better. The bare Node process (loads
 * `node:http` and `node:https`, listens, prints the same line) is the floor any Node CLI starts
 * from. The kubectl here is a version dispatcher that calls `/version` before serving, which is
 * part of its start-up as users see it. The floor of the memory ratio is a bare Node relay
 * (`BARE_RELAY`: an HTTP server piping each request to the double through one keep-alive
 * `https.Agent`, with the same young-generation setting as the bin), measured the same way.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import autocannon from 'autocannon';
import {
  findKubectl,
  REPO_ROOT,
  type RunningProxy,
  startProcess,
} from '../packages/k8s-local-proxy/test/support/proxy-processes.js';
import { makeCertificates } from '../packages/test-support/src/k8s/certificates.js';
import { startControlPlane } from '../packages/test-support/src/k8s/control-plane-double.js';
import { writeKubeconfig } from '../packages/test-support/src/kubeconfig.js';
import type { Comparison } from './harness.js';

const BUILT_BIN = join(REPO_ROOT, 'packages', 'k8s-local-proxy', 'bin', 'k8s-local-proxy.cjs');
const BUILT_CLI = join(REPO_ROOT, 'packages', 'k8s-local-proxy', 'dist', 'cli.cjs');
/**
 * `BENCH_K8S_OTHER_CLI=<another build of dist/cli.cjs>` adds that build's starts to the
 * alternation, each started as the bin stub starts dist/cli.cjs: a change's before and after in
 * one run. Keep the file in packages/k8s-local-proxy/dist/ so the packages it loads lazily
 * resolve as they do for the real bin.
 */
const OTHER_CLI = process.env.BENCH_K8S_OTHER_CLI;
const STARTS = 15;
const BARE_NODE = `require('node:https');require('node:http').createServer().listen(0,'127.0.0.1',function(){console.log('Starting to serve on 127.0.0.1:'+this.address().port)})`;
const REQUESTS = 5_000;
const MEMORY_RUNS = 3;
/**
 * The least any Node relay does: no kubeconfig, no checks, no header handling, one agent. The
 * bin's young-generation setting (see bin/k8s-local-proxy.cjs) is applied the same way, so the
 * difference from the bin is the bin's own code and modules.
 */
const BARE_RELAY = `const https=require('node:https'),{readFileSync}=require('node:fs');
const upstream=new URL(process.env.RELAY_SERVER);
const agent=new https.Agent({keepAlive:true,ca:readFileSync(process.env.RELAY_CA)});
require('node:http').createServer((req,res)=>{
  const headers={...req.headers,host:upstream.host,authorization:'Bearer '+process.env.RELAY_TOKEN};
  const out=https.request({host:upstream.hostname,port:upstream.port,method:req.method,path:req.url,headers,agent},(answer)=>{res.writeHead(answer.statusCode,answer.headers);answer.pipe(res);});
  out.on('error',()=>res.destroy());
  req.pipe(out);
}).listen(0,'127.0.0.1',function(){console.log('Starting to serve on 127.0.0.1:'+this.address().port)});
setImmediate(()=>require('node:v8').setFlagsFromString('--semi-space-growth-factor=1'));`;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** CPU time the process has used so far, all threads (scheduler nanoseconds, not clock ticks). */
function cpuMs(pid: number | undefined): number {
  let nanoseconds = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      nanoseconds += Number(
        readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0],
      );
    } catch {
      // The thread ended between the listing and the read; its time is gone with it.
    }
  }
  return nanoseconds / 1e6;
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
  // The bin stub's three lines, requiring the other build instead of ../dist/cli.cjs.
  const otherBin =
    OTHER_CLI === undefined ? undefined : join(dirname(resolve(OTHER_CLI)), 'bench-other-bin.cjs');
  if (otherBin !== undefined) {
    const stub = readFileSync(BUILT_BIN, 'utf8');
    const other = stub.replace(
      "require('../dist/cli.cjs');",
      `require(${JSON.stringify(resolve(OTHER_CLI as string))});`,
    );
    if (other === stub) throw new Error(`${BUILT_BIN} no longer requires ../dist/cli.cjs`);
    writeFileSync(otherBin, other);
  }
  const startOther = () => startProcess(process.execPath, [otherBin as string, ...args]);
  const startBareRelay = () =>
    startProcess(process.execPath, ['-e', BARE_RELAY], {
      RELAY_SERVER: plane.url,
      RELAY_CA: certs.caFile,
      RELAY_TOKEN: 'test-token',
    });
  /** Wall time to the serve line, and the CPU time (all threads) spent by then. */
  const timed = async (start: () => Promise<RunningProxy>) => {
    const began = performance.now();
    const proxy = await start();
    const elapsed = performance.now() - began;
    const cpu = cpuMs(proxy.child.pid);
    await proxy.stop();
    return { elapsed, cpu };
  };
  const trim = setInterval(() => plane.requests.splice(0), 500);
  try {
    const kubectlStarts: number[] = [];
    const ourStarts: number[] = [];
    const bareStarts: number[] = [];
    const kubectlCpu: number[] = [];
    const ourCpu: number[] = [];
    const bareCpu: number[] = [];
    const otherStarts: number[] = [];
    const otherCpu: number[] = [];
    const sides = [
      [startKubectl, kubectlStarts, kubectlCpu],
      [startOurs, ourStarts, ourCpu],
      [startBareNode, bareStarts, bareCpu],
      ...(otherBin === undefined ? [] : [[startOther, otherStarts, otherCpu] as const]),
    ] as const;
    // One start each first, so every measured one finds the files in the page cache.
    for (const [start] of sides) await timed(start);
    for (let i = 0; i < STARTS; i++) {
      for (const [start, times, cpus] of sides) {
        const { elapsed, cpu } = await timed(start);
        times.push(elapsed);
        cpus.push(cpu);
      }
    }
    if (otherBin !== undefined) {
      const paired = ourCpu.map((cpu, index) => cpu - (otherCpu[index] ?? 0));
      console.log(
        `start-up CPU time of ${OTHER_CLI} (median ms): ${median(otherCpu).toFixed(1)}; k8s-local-proxy / it ${(median(ourCpu) / median(otherCpu)).toFixed(3)}, per-start difference (median of pairs) ${median(paired).toFixed(1)} ms`,
      );
    }
    // The machine's load stretches wall times; CPU time until the serve line much less.
    console.log(
      `start-up CPU time (all threads, median ms): k8s-local-proxy ${median(ourCpu).toFixed(1)}, kubectl proxy ${median(kubectlCpu).toFixed(1)}, bare Node ${median(bareCpu).toFixed(1)}; ratios ${(median(ourCpu) / median(kubectlCpu)).toFixed(3)} and ${(median(bareCpu) / median(kubectlCpu)).toFixed(3)}`,
    );
    const startup: Comparison = {
      name: `k8s-local-proxy start-up time vs kubectl proxy (median ms; lower is better)`,
      baseline: Math.round(median(kubectlStarts)),
      candidate: Math.round(median(ourStarts)),
      ratio: median(ourStarts) / median(kubectlStarts),
      goal: { atMost: 1, source: '#17' },
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
        const result = await autocannon({
          url: `http://127.0.0.1:${proxy.port}/api/v1/namespaces/default/services/web/proxy/items`,
          headers: { Host: 'localhost' },
          connections: 10,
          amount: REQUESTS,
        });
        if (result.non2xx > 0 || result.errors > 0) {
          throw new Error(`${result.non2xx} non-2xx answers and ${result.errors} errors`);
        }
        return residentMiB(proxy.child.pid);
      } finally {
        await proxy.stop();
      }
    };
    // Resident memory varies by a few MiB between identical runs (which pages the threads'
    // malloc arenas keep): the median of three runs each, alternating.
    const kubectlRuns: number[] = [];
    const ourRuns: number[] = [];
    const bareRelayRuns: number[] = [];
    for (let i = 0; i < MEMORY_RUNS; i++) {
      kubectlRuns.push(await memory(startKubectl));
      ourRuns.push(await memory(startOurs));
      bareRelayRuns.push(await memory(startBareRelay));
    }
    const kubectlRss = median(kubectlRuns);
    const ourRss = median(ourRuns);
    const bareRelayRss = median(bareRelayRuns);
    const rss: Comparison = {
      name: `k8s-local-proxy resident memory after ${REQUESTS} GETs vs kubectl proxy (MiB; lower is better)`,
      baseline: Math.round(kubectlRss),
      candidate: Math.round(ourRss),
      ratio: ourRss / kubectlRss,
      goal: { atMost: 1.5, source: '#17' },
    };
    console.log(
      `${rss.name}: ratio ${rss.ratio.toFixed(3)} (k8s-local-proxy ${ourRss.toFixed(1)} MiB, kubectl proxy ${kubectlRss.toFixed(1)} MiB)`,
    );
    const rssFloor: Comparison = {
      name: `bare Node relay resident memory after ${REQUESTS} GETs vs kubectl proxy: the floor of the ratio above (MiB; lower is better)`,
      baseline: Math.round(kubectlRss),
      candidate: Math.round(bareRelayRss),
      ratio: bareRelayRss / kubectlRss,
    };
    console.log(
      `${rssFloor.name}: ratio ${rssFloor.ratio.toFixed(3)} (bare relay ${bareRelayRss.toFixed(1)} MiB, kubectl proxy ${kubectlRss.toFixed(1)} MiB)`,
    );
    return [startup, floor, rss, rssFloor];
  } finally {
    if (otherBin !== undefined) rmSync(otherBin, { force: true });
    clearInterval(trim);
    await plane.close();
    certs.cleanup();
  }
}
