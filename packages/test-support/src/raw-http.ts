/**
 * @module HTTP/1.1 as bytes on one TCP connection: what a broken client or an attacker sends,
 * and every byte the server writes back, in order, so a test can check there is exactly one
 * answer per request and nothing in between.
 */
import { request as httpRequest, type RequestListener, type Server } from 'node:http';
import { connect } from 'node:net';
import { listen } from './servers.js';

export interface RawExchange {
  /** Everything the server wrote, as latin1 text (one character per byte). */
  readonly text: string;
  /** The server closed the connection (rather than the time bound running out). */
  readonly closedByServer: boolean;
}

/**
 * Writes `chunks` one after the other (waiting `gapMs` between them), keeps the connection open
 * (no half-close, which Node's server answers by ending its side), and resolves when the server
 * closes it or after `timeoutMs`, whichever comes first.
 */
export function rawExchange(
  port: number,
  chunks: string | readonly (string | Buffer)[],
  { timeoutMs = 5_000, gapMs = 0 }: { timeoutMs?: number; gapMs?: number } = {},
): Promise<RawExchange> {
  const parts = typeof chunks === 'string' ? [chunks] : chunks;
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const received: Buffer[] = [];
    let closedByServer = false;
    const timer = setTimeout(() => socket.destroy(), timeoutMs);
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    socket.on('end', () => {
      closedByServer = true;
      socket.destroy();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // A reset after the answer is a close too; anything before connecting is a failure.
      if (error.code === 'ECONNRESET' || error.code === 'EPIPE') closedByServer = true;
      else reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve({ text: Buffer.concat(received).toString('latin1'), closedByServer });
    });
    socket.on('connect', async () => {
      for (const [index, part] of parts.entries()) {
        if (index > 0 && gapMs > 0) await new Promise((done) => setTimeout(done, gapMs));
        if (socket.destroyed) return;
        socket.write(part);
      }
    });
  });
}

export interface RawResponse {
  readonly status: number;
  /** Lower-cased names; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/**
 * Splits what a server wrote into its responses, framed by `Content-Length` or chunked coding
 * (bodies of 1xx, 204 and 304 are empty). Throws on bytes that are not a response: a test of
 * byte order must not pass on garbage. Pass the methods sent so HEAD answers are framed right.
 */
export function parseRawResponses(text: string, methods: readonly string[] = []): RawResponse[] {
  const responses: RawResponse[] = [];
  let rest = text;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    if (headEnd < 0) throw new Error(`an incomplete response head: ${JSON.stringify(rest)}`);
    const [statusLine = '', ...lines] = rest.slice(0, headEnd).split('\r\n');
    const match = /^HTTP\/1\.[01] (\d{3})(?: .*)?$/.exec(statusLine);
    if (!match) throw new Error(`not a status line: ${JSON.stringify(statusLine)}`);
    const status = Number(match[1]);
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    rest = rest.slice(headEnd + 4);
    const noBody =
      status < 200 ||
      status === 204 ||
      status === 304 ||
      (status >= 200 && methods[responses.filter((r) => r.status >= 200).length] === 'HEAD');
    let body = '';
    if (!noBody && headers['transfer-encoding']?.toLowerCase() === 'chunked') {
      for (;;) {
        const sizeEnd = rest.indexOf('\r\n');
        const size = Number.parseInt(rest.slice(0, sizeEnd), 16);
        if (sizeEnd < 0 || Number.isNaN(size)) throw new Error('a broken chunk');
        rest = rest.slice(sizeEnd + 2);
        if (size === 0) {
          rest = rest.slice(rest.indexOf('\r\n') + 2);
          break;
        }
        body += rest.slice(0, size);
        rest = rest.slice(size + 2);
      }
    } else if (!noBody) {
      const length = Number(headers['content-length'] ?? Number.NaN);
      if (!Number.isInteger(length)) {
        // Framed by the close of the connection (RFC 9112 §6.3, last rule).
        body = rest;
        rest = '';
      } else {
        if (rest.length < length) throw new Error('a body shorter than its Content-Length');
        body = rest.slice(0, length);
        rest = rest.slice(length);
      }
    }
    responses.push({ status, headers, body });
  }
  return responses;
}

/** The one answer of `rawRequestOnce`, its body read by the parser given. */
export interface RawAnswer<Body> {
  readonly status: number;
  /** Lower-cased names; a repeated header keeps its last value. */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Body;
}

/** JSON, or `undefined` for an empty body (a 204, a HEAD). */
function jsonOrNothing(text: string): unknown {
  return text === '' ? undefined : JSON.parse(text);
}

/**
 * Starts `handler` on a loopback port, sends `head` (the request line and header lines, without
 * the blank line that ends them; `Connection: close` is added) as raw bytes, and returns the one
 * answer, its body read by `parse`; the server is closed after, whatever happened. For requests
 * no HTTP client sends (repeated or malformed headers, bytes a URL parser would rewrite).
 * Throws when the server wrote anything but exactly one response.
 * @param parse reads the body text: JSON by default (`unknown`, for `toEqual`/`toMatchObject`),
 *   or a typed reader such as error-envelope's `parseErrorBody`.
 */
export function rawRequestOnce(
  handler: RequestListener | Server,
  head: string,
): Promise<RawAnswer<unknown>>;
export function rawRequestOnce<Body>(
  handler: RequestListener | Server,
  head: string,
  parse: (text: string) => Body,
): Promise<RawAnswer<Body>>;
export async function rawRequestOnce(
  handler: RequestListener | Server,
  head: string,
  parse: (text: string) => unknown = jsonOrNothing,
): Promise<RawAnswer<unknown>> {
  const server = await listen(handler);
  try {
    const exchange = await rawExchange(server.port, `${head}\r\nConnection: close\r\n\r\n`);
    const responses = parseRawResponses(exchange.text, [head.split(' ', 1)[0] ?? '']);
    if (responses.length !== 1) {
      throw new Error(`expected one response, got ${responses.length}: ${exchange.text}`);
    }
    const [{ status, headers, body }] = responses as [RawResponse];
    return { status, headers, body: parse(body) };
  } finally {
    await server.close();
  }
}

export interface ExactResponse {
  readonly status: number;
  readonly statusMessage: string;
  /** Lower-cased names; repeated headers joined with `, `. */
  readonly headers: Readonly<Record<string, string>>;
  /** Every header line as sent (`Name: value`), in order, names as written. */
  readonly headerLines: readonly string[];
  /** The body as sent, still content-coded. */
  readonly body: Buffer;
}

/**
 * One HTTP/1.1 request with exactly `headers` (node:http adds none that negotiate, where
 * supertest and fetch add `Accept-Encoding` to some methods only), on a fresh connection.
 */
export function exactRequest(
  port: number,
  method: string,
  path: string,
  headers: Readonly<Record<string, string>> = {},
): Promise<ExactResponse> {
  return new Promise((resolve, reject) => {
    const call = httpRequest(
      { host: '127.0.0.1', port, method, path, headers: { ...headers }, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const flat: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          const headerLines: string[] = [];
          for (let i = 0; i < res.rawHeaders.length; i += 2) {
            headerLines.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
          }
          resolve({
            status: res.statusCode ?? 0,
            statusMessage: res.statusMessage ?? '',
            headers: flat,
            headerLines,
            body: Buffer.concat(chunks),
          });
        });
      },
    );
    call.on('error', reject);
    call.end();
  });
}
