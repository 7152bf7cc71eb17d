/**
 * @module A stand-in for a cluster control plane over real TLS: answers `/api` discovery and the
 * service proxy path, checks the bearer token (or a client certificate), and records every
 * request it receives, so tests can compare what two proxies sent upstream. With `http2: true`
 * it offers HTTP/2 by ALPN as a real API server does (`h2`, still accepting HTTP/1.1 and its
 * upgrades), and records which version each request came over.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import {
  createSecureServer,
  type Http2ServerRequest,
  type Http2ServerResponse,
  type Http2Session,
} from 'node:http2';
import { createServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Server, TLSSocket } from 'node:tls';
import type { TestCertificates } from './certificates.js';

type AnyRequest = IncomingMessage | Http2ServerRequest;
type AnyResponse = ServerResponse | Http2ServerResponse;

export interface ControlPlaneOptions {
  /** Bearer tokens accepted. @default ['test-token'] */
  tokens?: readonly string[];
  /** Basic credentials accepted, as `user:password`. @default [] */
  basic?: readonly string[];
  /** Offer HTTP/2 (ALPN `h2`, with HTTP/1.1 still allowed). @default false */
  http2?: boolean;
  /** HTTP/2 `SETTINGS_MAX_CONCURRENT_STREAMS` the double announces. */
  maxConcurrentStreams?: number;
}

export interface RecordedRequest {
  readonly method: string;
  /** The request target exactly as it arrived (path and query, still encoded). */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /**
   * `bearer` with a known token, `basic` with known basic credentials, `client-certificate`
   * (no `Authorization`, a certificate the CA signed), or `none`.
   */
  readonly auth: 'bearer' | 'basic' | 'client-certificate' | 'none';
  /**
   * The common name of the client certificate presented on the connection and verified
   * against the CA, whatever `Authorization` says (a client may send both).
   */
  readonly clientCertificate: string | undefined;
  readonly upgrade: boolean;
  /** `1.1` or `2.0`. */
  readonly httpVersion: string;
  /** Which TLS connection (HTTP/1.1) or HTTP/2 session carried it, numbered from 1. */
  readonly connection: number;
}

export interface ControlPlaneDouble {
  readonly server: Server;
  readonly port: number;
  /** `https://127.0.0.1:PORT`. */
  readonly url: string;
  readonly requests: RecordedRequest[];
  /** HTTP/2 sessions opened so far. */
  readonly sessions: () => number;
  /** Tokens the double accepts; change it during a test to simulate rotation. */
  readonly tokens: Set<string>;
  /** Basic `user:password` pairs the double accepts. */
  readonly basic: Set<string>;
  /** Cuts every open connection (the server keeps listening). */
  dropConnections(): void;
  close(): Promise<void>;
}

const SERVICE_PATH =
  /^\/api\/v1\/namespaces\/([a-z0-9-]+)\/services\/([^/]+)\/proxy(\/[^?]*)?(?:\?(.*))?$/;

function status(res: AnyResponse, code: number, reason: string, message: string): void {
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

function authOf(
  req: AnyRequest,
  tokens: ReadonlySet<string>,
  basic: ReadonlySet<string>,
): RecordedRequest['auth'] {
  const header = req.headers.authorization;
  if (header !== undefined) {
    const bearer = /^Bearer (.+)$/.exec(header)?.[1];
    if (bearer !== undefined) return tokens.has(bearer) ? 'bearer' : 'none';
    const pair = /^Basic (.+)$/.exec(header)?.[1];
    if (pair === undefined) return 'none';
    return basic.has(Buffer.from(pair, 'base64').toString('utf8')) ? 'basic' : 'none';
  }
  return (req.socket as TLSSocket).authorized ? 'client-certificate' : 'none';
}

function clientCertificateOf(req: AnyRequest): string | undefined {
  const socket = req.socket as TLSSocket;
  if (!socket.authorized) return undefined;
  const name = socket.getPeerCertificate().subject?.CN;
  return Array.isArray(name) ? name[0] : name;
}

/**
 * What the double, playing the service behind the proxy path, answers for a suffix; a service
 * named `no-endpoints` gets the control plane's own 503 `Status`.
 */
function answerService(
  req: AnyRequest,
  res: AnyResponse,
  namespace: string,
  service: string,
  suffix: string,
  body: string,
): void {
  const prefix = `/api/v1/namespaces/${namespace}/services/${service}/proxy`;
  if (service.split(':').includes('no-endpoints')) {
    // What an API server answers for a service whose pods are all gone.
    status(res, 503, 'ServiceUnavailable', `no endpoints available for service "no-endpoints"`);
    return;
  }
  if (suffix === '/redirect') {
    res.writeHead(302, { Location: `${prefix}/landing?from=redirect` });
    res.end();
    return;
  }
  if (suffix === '/html') {
    const page =
      `<html><head><link href="${prefix}/style.css"></head>` +
      `<body><a href="${prefix}/next">next</a><a href="https://example.com/x">out</a></body></html>`;
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=utf-8',
      'Content-Length': Buffer.byteLength(page),
    });
    res.end(page);
    return;
  }
  if (suffix === '/html-latin1') {
    // "café" in ISO-8859-1: the 0xE9 byte is not valid UTF-8 on its own.
    const page = Buffer.concat([
      Buffer.from(`<a href="${prefix}/menu">caf`),
      Buffer.from([0xe9]),
      Buffer.from('</a>'),
    ]);
    res.writeHead(200, {
      'Content-Type': 'text/html; charset=iso-8859-1',
      'Content-Length': page.length,
    });
    res.end(page);
    return;
  }
  if (suffix === '/stream') {
    res.writeHead(200, { 'Content-Type': 'text/plain' });
    const out: NodeJS.WritableStream = res;
    let sent = 0;
    const timer = setInterval(() => {
      sent += 1;
      out.write(`chunk ${sent}\n`);
      if (sent === 3) {
        clearInterval(timer);
        res.end();
      }
    }, 20);
    return;
  }
  if (suffix === '/big-headers') {
    // 64 KiB of response headers: four times Node's default limit (16 KiB), far below Go's 10 MiB.
    res.writeHead(200, { 'Content-Type': 'text/plain', 'X-Big': 'b'.repeat(64 * 1024) });
    res.end('big');
    return;
  }
  if (suffix === '/hang') return; // never answers: for timeouts
  if (suffix === '/slow') {
    // Answers after 150 ms: keeps streams open for concurrency tests.
    setTimeout(() => {
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('slow');
    }, 150);
    return;
  }
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
  options: ControlPlaneOptions = {},
): Promise<ControlPlaneDouble> {
  const requests: RecordedRequest[] = [];
  const tokens = new Set(options.tokens ?? ['test-token']);
  const basic = new Set(options.basic ?? []);
  const sockets = new Set<Socket>();
  const connectionIds = new WeakMap<object, number>();
  let connections = 0;
  let sessionCount = 0;
  let port = 0;
  const connectionOf = (req: AnyRequest): number =>
    ('stream' in req ? connectionIds.get(req.stream.session as object) : undefined) ??
    connectionIds.get(req.socket) ??
    0;

  const tlsOptions = {
    key: certs.serverKey,
    cert: certs.serverCert,
    ca: certs.ca,
    requestCert: true,
    rejectUnauthorized: false,
  };
  const handler = (req: AnyRequest, res: AnyResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const auth = authOf(req, tokens, basic);
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        auth,
        clientCertificate: clientCertificateOf(req),
        upgrade: false,
        httpVersion: req.httpVersion,
        connection: connectionOf(req),
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
  };
  const server: Server = options.http2
    ? createSecureServer(
        {
          ...tlsOptions,
          allowHTTP1: true,
          settings:
            options.maxConcurrentStreams === undefined
              ? {}
              : { maxConcurrentStreams: options.maxConcurrentStreams },
        },
        handler,
      )
    : createServer(tlsOptions, handler);
  server.on('session', (session: Http2Session) => {
    sessionCount += 1;
    connectionIds.set(session, ++connections);
  });

  // Upgrades: answer 101 and echo every byte back, prefixed, like a tiny WebSocket-less echo.
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    const auth = authOf(req, tokens, basic);
    requests.push({
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: '',
      auth,
      clientCertificate: clientCertificateOf(req),
      upgrade: true,
      httpVersion: req.httpVersion,
      connection: connectionOf(req),
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

  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol !== 'h2') connectionIds.set(socket, ++connections);
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
    sessions: () => sessionCount,
    tokens,
    basic,
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
