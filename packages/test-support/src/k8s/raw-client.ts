/**
 * @module A plain HTTP client that sends the request target and Host header exactly as given
 * (fetch and supertest would resolve `..` and fix the Host), and can perform an upgrade.
 */
import { type IncomingHttpHeaders, request } from 'node:http';
import type { Socket } from 'node:net';

export interface RawRequest {
  method?: string;
  path: string;
  headers?: Record<string, string | string[]>;
  body?: string;
  /** Connect to a Unix socket instead of 127.0.0.1:port. */
  socketPath?: string;
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** Sends one request with `Connection: close`; the Host header defaults to `localhost:PORT`. */
export function rawRequest(port: number, options: RawRequest): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        socketPath: options.socketPath,
        method: options.method ?? 'GET',
        path: options.path,
        setHost: false,
        agent: false,
        headers: { Host: `localhost:${port}`, Connection: 'close', ...options.headers },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer for ${options.path}`)));
    req.on('error', reject);
    req.end(options.body);
  });
}

export interface UpgradeResult {
  status: number;
  /** What came back after sending `ping` on the upgraded connection (empty if not upgraded). */
  echoed: string;
  /** When not upgraded: the answer's `Location`, `Content-Type` and body. */
  location?: string;
  contentType?: string;
  body?: string;
}

/** Sends an upgrade request, then `ping`, and collects the echo. */
export function rawUpgrade(
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<UpgradeResult> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      setHost: false,
      agent: false,
      headers: { Host: `localhost:${port}`, Connection: 'Upgrade', Upgrade: 'echo', ...headers },
    });
    req.setTimeout(10_000, () => req.destroy(new Error(`no upgrade answer for ${path}`)));
    req.on('upgrade', (res, socket: Socket) => {
      let echoed = '';
      socket.on('data', (data: Buffer) => {
        echoed += data.toString('utf8');
        if (echoed.includes('ping')) {
          socket.destroy();
          resolve({ status: res.statusCode ?? 0, echoed });
        }
      });
      socket.write('ping');
    });
    req.on('response', (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          echoed: '',
          location: res.headers.location,
          contentType: res.headers['content-type'],
          body,
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}
