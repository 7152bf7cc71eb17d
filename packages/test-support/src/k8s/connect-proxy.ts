/**
 * @module A forward proxy on 127.0.0.1 that accepts `CONNECT host:port` (RFC 9110 §9.3.6),
 * records each tunnel, and connects it to the named host, or to 127.0.0.1 for the host names in
 * `aliases` (so a test can use a control-plane name that is not loopback, which is never
 * proxied from the environment). Answers 407 without the expected `Proxy-Authorization`. With
 * `tls`, clients reach it over TLS (an `https://` proxy URL).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';

export interface RecordedTunnel {
  /** The CONNECT target, `host:port`. */
  readonly authority: string;
  readonly proxyAuthorization: string | undefined;
}

export interface ConnectProxy {
  readonly url: string;
  readonly tunnels: RecordedTunnel[];
  close(): Promise<void>;
}

export async function startConnectProxy(
  options: {
    aliases?: readonly string[];
    proxyAuthorization?: string;
    /** The proxy's own certificate and key: clients then speak TLS to it. */
    tls?: { cert: string; key: string };
  } = {},
): Promise<ConnectProxy> {
  const tunnels: RecordedTunnel[] = [];
  const sockets = new Set<Socket>();
  const refuse = (_req: IncomingMessage, res: ServerResponse) => {
    res.writeHead(405, { Connection: 'close' }).end();
  };
  const server =
    options.tls === undefined ? createServer(refuse) : createTlsServer(options.tls, refuse);
  server.on(options.tls === undefined ? 'connection' : 'secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const authority = req.url ?? '';
    tunnels.push({ authority, proxyAuthorization: req.headers['proxy-authorization'] });
    if (
      options.proxyAuthorization !== undefined &&
      req.headers['proxy-authorization'] !== options.proxyAuthorization
    ) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const colon = authority.lastIndexOf(':');
    const host = authority.slice(0, colon).replace(/^\[|\]$/g, '');
    const port = Number(authority.slice(colon + 1));
    const upstream = connect(port, options.aliases?.includes(host) ? '127.0.0.1' : host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length > 0) upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    sockets.add(upstream);
    upstream.on('close', () => {
      sockets.delete(upstream);
      client.destroy();
    });
    upstream.on('error', () => client.destroy());
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${(server.address() as AddressInfo).port}`,
    tunnels,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
