/**
 * @module Starting and stopping real HTTP servers on the loopback interface.
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import { type AddressInfo, connect } from 'node:net';

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

/**
 * A loopback port where a connection is refused, and stays refused for the test: a port freed
 * after `listen` can be handed to the next `listen(0)` of the same process (supertest's own app
 * server, another suite's), which then answers in place of the "dead" upstream. Ports below
 * 1024 are never given out for port 0 and only a privileged service binds them, so the first
 * of a few such ports that refuses a connection now is used.
 */
export async function refusedPort(): Promise<number> {
  for (const port of [9, 7, 13, 19, 37]) {
    if (!(await acceptsConnections(port))) return port;
  }
  throw new Error('refusedPort: every candidate port below 1024 accepts connections here.');
}

/** Whether a TCP connection to `port` on 127.0.0.1 is accepted (it is closed at once). */
export function acceptsConnections(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
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
