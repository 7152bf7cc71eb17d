/**
 * @module A SOCKS5 proxy on 127.0.0.1 (RFC 1928: no authentication, the CONNECT command, IPv4,
 * domain-name and IPv6 addresses) that records each connection's destination as the client sent
 * it (a host name stays a name: the proxy resolves it) and connects it, mapping the names in
 * `aliases` to 127.0.0.1. Hand-written because no maintained npm package serves SOCKS5; only
 * tests use it.
 */
import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

export interface Socks5Proxy {
  /** `socks5://127.0.0.1:PORT`. */
  readonly url: string;
  /** Each CONNECT's destination, `host:port`, as the client sent it. */
  readonly connections: string[];
  close(): Promise<void>;
}

const VERSION = 0x05;
const NO_AUTHENTICATION = 0x00;
const CONNECT = 0x01;
const IPV4 = 0x01;
const DOMAIN_NAME = 0x03;
const IPV6 = 0x04;
const SUCCEEDED = 0x00;
const HOST_UNREACHABLE = 0x04;
const COMMAND_NOT_SUPPORTED = 0x07;

function reply(code: number): Buffer {
  return Buffer.from([VERSION, code, 0x00, IPV4, 0, 0, 0, 0, 0, 0]);
}

/** The destination of a CONNECT request, or `undefined` until all of it has arrived. */
function parseRequest(data: Buffer): { host: string; port: number; length: number } | undefined {
  if (data.length < 5) return undefined;
  const type = data[3];
  let host: string;
  let at: number;
  if (type === IPV4) {
    if (data.length < 10) return undefined;
    host = [...data.subarray(4, 8)].join('.');
    at = 8;
  } else if (type === DOMAIN_NAME) {
    const length = data[4] ?? 0;
    if (data.length < 5 + length + 2) return undefined;
    host = data.subarray(5, 5 + length).toString('latin1');
    at = 5 + length;
  } else if (type === IPV6) {
    if (data.length < 22) return undefined;
    const groups: string[] = [];
    for (let i = 4; i < 20; i += 2) groups.push(data.readUInt16BE(i).toString(16));
    host = groups.join(':');
    at = 20;
  } else {
    return { host: '', port: 0, length: -1 };
  }
  return { host, port: data.readUInt16BE(at), length: at + 2 };
}

export async function startSocks5Proxy(
  options: { aliases?: readonly string[] } = {},
): Promise<Socks5Proxy> {
  const connections: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => client.destroy());
    let buffered = Buffer.alloc(0);
    let greeted = false;
    const onData = (data: Buffer) => {
      buffered = Buffer.concat([buffered, data]);
      if (!greeted) {
        const count = buffered[1];
        if (count === undefined || buffered.length < 2 + count) return;
        const methods = buffered.subarray(2, 2 + count);
        buffered = buffered.subarray(2 + count);
        greeted = true;
        client.write(Buffer.from([VERSION, methods.includes(NO_AUTHENTICATION) ? 0x00 : 0xff]));
        if (!methods.includes(NO_AUTHENTICATION)) {
          client.end();
          return;
        }
      }
      const request = parseRequest(buffered);
      if (request === undefined) return;
      client.off('data', onData);
      if (buffered[1] !== CONNECT || request.length < 0) {
        client.end(reply(COMMAND_NOT_SUPPORTED));
        return;
      }
      const rest = buffered.subarray(request.length);
      connections.push(`${request.host}:${request.port}`);
      const target = options.aliases?.includes(request.host) ? '127.0.0.1' : request.host;
      const upstream = connect(request.port, target, () => {
        client.write(reply(SUCCEEDED));
        if (rest.length > 0) upstream.write(rest);
        upstream.pipe(client).pipe(upstream);
      });
      sockets.add(upstream);
      upstream.on('error', () => {
        if (client.writable) client.end(reply(HOST_UNREACHABLE));
      });
      upstream.on('close', () => {
        sockets.delete(upstream);
        client.destroy();
      });
      client.on('close', () => upstream.destroy());
    };
    client.on('data', onData);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `socks5://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
