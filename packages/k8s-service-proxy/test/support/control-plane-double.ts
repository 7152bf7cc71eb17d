/**
 * @module A stand-in for a cluster control plane over real TLS: answers `/api` discovery and the
 * service proxy path, checks the bearer token (or a client certificate), and records every
 * request it receives, so tests can compare what two proxies sent upstream.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { TestCertificates } from './certificates.js';

export interface RecordedRequest {
  readonly method: string;
  /** The request target exactly as it arrived (path and query, still encoded). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** `bearer` with a known token, `client-certificate`, or `none`. */
  readonly auth: 'bearer' | 'client-certificate' | 'none';
  readonly upgrade: boolean;
}

export interface ControlPlaneDouble {
  readonly server: Server;
  readonly port: number;
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** Tokens the double accepts; change it during a test to simulate rotation. */
  readonly tokens: Set<string>;
  close(): Promise<void>;
}

const SERVICE_PATH =
  /^\/api\/v1\/namespaces\/([a-z0-9-]+)\/services\/([^/]+)\/proxy(\/[^?]*)?(?:\?(.*))?$/;

function status(res: ServerResponse, code: number, reason: string, message: string): void {
  res.writeHead(code, { 'Content-Type': 'application/json' });
  res.end(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message,
      reason,
      code,
    }),
  );
}

function authOf(req: IncomingMessage, tokens: ReadonlySet<string>): RecordedRequest['auth'] {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer (.+)$/.exec(header);
    return match?.[1] !== undefined && tokens.has(match[1]) ? 'bearer' : 'none';
  }
  return (req.socket as TLSSocket).authorized ? 'client-certificate' : 'none';
}

/** What the double, playing the service behind the proxy path, answers for a suffix. */
function answerService(
  req: IncomingMessage,
  res: ServerResponse,
  namespace: string,
  service: string,
  suffix: string,
  body: string,
): void {
  const prefix = `/api/v1/namespaces/${namespace}/services/${service}/proxy`;
  if (suffix === '/redirect') {
    res.writeHead(302, { Location: `${prefix}/landing?from=redirect` });
    res.end();
    return;
  }
  if (suffix === '/html') {
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    res.end(
      `<html><head><link href="${prefix}/style.css"></head>` +
        `<body><a href="${prefix}/next">next</a><a href="https://example.com/x">out</a></body></html>`,
    );
    return;
  }
  if (suffix === '/stream') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    let sent = 0;
    const timer = setInterval(() => {
      sent += 1;
      res.write(`chunk ${sent}\n`);
      if (sent === 3) {
        clearInterval(timer);
        res.end();
      }
    }, 20);
    return;
  }
  if (suffix === '/hang') return; // never answers: for timeouts
  if (suffix === '/set-cookie') {
    res.writeHead(200, { 'Set-Cookie': 'upstream=1; Path=/', 'Content-Type': 'text/plain' });
    res.end('ok');
    return;
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'X-Served-By': 'double' });
  res.end(JSON.stringify({ namespace, service, suffix, method: req.method, url: req.url, body }));
}

/** Starts the double on 127.0.0.1 with the given certificates and accepted tokens. */
export async function startControlPlane(
  certs: TestCertificates,
  options: { tokens?: readonly string[] } = {},
): Promise<ControlPlaneDouble> {
  const requests: RecordedRequest[] = [];
  const tokens = new Set(options.tokens ?? ['test-token']);
  const sockets = new Set<Socket>();
  let port = 0;

  const server = createServer(
    {
      key: certs.serverKey,
      cert: certs.serverCert,
      ca: certs.ca,
      requestCert: true,
      rejectUnauthorized: false,
    },
    (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const auth = authOf(req, tokens);
        requests.push({
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body,
          auth,
          upgrade: false,
        });
        if (auth === 'none') {
          status(res, 401, 'Unauthorized', 'Unauthorized');
          return;
        }
        const url = req.url ?? '/';
        if (url === '/api' || url === '/api/') {
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify({
              kind: 'APIVersions',
              versions: ['v1'],
              serverAddressByClientCIDRs: [
                { clientCIDR: '0.0.0.0/0', serverAddress: `127.0.0.1:${port}` },
              ],
            }),
          );
          return;
        }
        const match = SERVICE_PATH.exec(url);
        if (match) {
          answerService(req, res, match[1] ?? '', match[2] ?? '', match[3] ?? '', body);
          return;
        }
        status(res, 404, 'NotFound', 'the server could not find the requested resource');
      });
    },
  );

  // Upgrades: answer 101 and echo every byte back, prefixed, like a tiny WebSocket-less echo.
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const auth = authOf(req, tokens);
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: '',
      auth,
      upgrade: true,
    });
    if (auth === 'none') {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      return;
    }
    socket.write(
      'HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n',
    );
    if (head.length > 0) socket.write(Buffer.concat([Buffer.from('echo:'), head]));
    socket.on('data', (data: Buffer) => socket.write(Buffer.concat([Buffer.from('echo:'), data])));
    socket.on('error', () => socket.destroy());
  });

  server.on('secureConnection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;

  return {
    server,
    port,
    url: `https://127.0.0.1:${port}`,
    requests,
    tokens,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
