/**
 * @module Starting and stopping real HTTP servers on the loopback interface.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RunningServer {
  readonly server: Server;
  readonly port: number;
  /** `http://127.0.0.1:PORT`, without a trailing slash. */
  readonly url: string;
  /** Closes the server and every open connection, including idle keep-alive ones. */
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 on a free port. Accepts an Express app or any request listener. */
export async function listen(handler: RequestListener | Server): Promise<RunningServer> {
  const server = typeof handler === 'function' ? createServer(handler as RequestListener) : handler;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    close: () => closeServer(server),
  };
}

export function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) {
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A port that was free a moment ago on 127.0.0.1 (for programs that need a port up front). */
export async function freePort(): Promise<number> {
  const probe = await listen(createServer());
  await probe.close();
  return probe.port;
}

/** Polls `check` until it returns true; rejects after `timeoutMs`. Every loop here is bounded. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
