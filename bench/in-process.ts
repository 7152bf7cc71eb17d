/**
 * @module Requests answered in process, for CPU-per-request diagnostics (ablate-example.ts,
 * middleware-in-process.ts): each app gets one in-memory keep-alive connection; Node's HTTP
 * server parses the request bytes pushed into it and writes the answer back into it
 * (discarded), so what is measured is what a server does for a request on a kept-alive
 * connection, HTTP parsing and the response's writes included, the kernel's part excluded.
 * Requests go one at a time, as a client without pipelining sends them.
 */
import {
  createServer,
  type IncomingMessage,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';
import { Duplex } from 'node:stream';
import { median } from './harness.js';

export type Handler = (req: IncomingMessage, res: ServerResponse) => void;

class MemoryConnection extends Duplex {
  remoteAddress = '127.0.0.1';
  remotePort = 40000;
  encrypted = false;
  override _read(): void {}
  override _write(_chunk: unknown, _encoding: string, callback: () => void): void {
    callback();
  }
  override _writev(_chunks: unknown, callback: () => void): void {
    callback();
  }
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  setTimeout(): this {
    return this;
  }
}

export interface Client {
  /** Sends the request and resolves when its answer (a 200, else it throws) has been written. */
  send(): Promise<void>;
}

/**
 * `request`: the request's bytes, e.g. `GET /path HTTP/1.1\r\nHost: x\r\n\r\n`; `options`: the
 * server's (e.g. the request and response classes the example serves with).
 */
export function connect(handler: Handler, request: string, options: ServerOptions = {}): Client {
  const bytes = Buffer.from(request);
  const server = createServer(options, handler);
  let answered: (() => void) | undefined;
  server.on('request', function countAnswer(_req: IncomingMessage, res: ServerResponse) {
    res.on('finish', function answer() {
      if (res.statusCode !== 200) throw new Error(`in-process: answered ${res.statusCode}`);
      const done = answered!;
      answered = undefined;
      done();
    });
  });
  const connection = new MemoryConnection();
  server.emit('connection', connection);
  return {
    send() {
      return new Promise((resolve) => {
        answered = resolve;
        connection.push(bytes);
      });
    },
  };
}

/**
 * CPU µs per request of each client, in `rounds` alternating rounds of `roundMs` each (the
 * first two discarded: JIT warm-up), as lists of per-round figures in the clients' order.
 */
export async function cpuPerRequest(
  clients: readonly Client[],
  rounds: number,
  roundMs: number,
): Promise<number[][]> {
  const samples = clients.map((): number[] => []);
  const order = clients.map((_, index) => index);
  for (let round = 0; round < rounds; round++) {
    for (const index of round % 2 === 0 ? order : [...order].reverse()) {
      const client = clients[index]!;
      const before = process.cpuUsage();
      let requests = 0;
      const start = performance.now();
      // Bounded: roundMs of requests per client and round.
      while (performance.now() - start < roundMs) {
        for (let count = 0; count < 20; count++) await client.send();
        requests += 20;
      }
      const used = process.cpuUsage(before);
      if (round >= 2) samples[index]!.push((used.user + used.system) / requests);
    }
  }
  return samples;
}

/** The median of the rounds' ratios `values[round] / reference[round]`. */
export function pairedRatio(values: readonly number[], reference: readonly number[]): number {
  return median(values.map((value, round) => value / reference[round]!));
}
