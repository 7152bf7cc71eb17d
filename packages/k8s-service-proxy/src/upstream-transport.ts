/**
 * @module One request to the control plane, over HTTP/2 when the credentials' pool negotiated it
 * and over the HTTP/1.1 agent otherwise. Callers see one shape either way: status, headers ready
 * for an HTTP/1.1 client (pseudo-headers and hop-by-hop headers gone), and a streamed body.
 */
import type {
  ClientRequest,
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
} from 'node:http';
import { request as httpRequest } from 'node:http';
import { type ClientHttp2Stream, constants } from 'node:http2';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import type { ClusterCredentials } from './cluster-credentials.js';
import { connectionTokens, HOP_BY_HOP_HEADERS } from './hop-by-hop.js';
import { http2PoolOf } from './http2-pool.js';
import { UPSTREAM_TIMEOUT } from './upstream-errors.js';

/** Set on errors for requests that cannot be expressed upstream (bad path or header). */
export const UNRELAYABLE_REQUEST = 'UNRELAYABLE_REQUEST';

export interface UpstreamAnswer {
  readonly status: number;
  /** The reason phrase (HTTP/1.1 only; HTTP/2 has none). */
  readonly statusMessage: string | undefined;
  /** The headers as Node parsed them (lower-case names), for content checks. */
  readonly headers: IncomingHttpHeaders;
  /** The headers to give an HTTP/1.1 client: hop-by-hop and pseudo-headers dropped. */
  readonly relayHeaders: OutgoingHttpHeaders;
  readonly body: Readable;
  readonly httpVersion: '1.1' | '2.0';
}

export interface UpstreamRequest {
  readonly method: string;
  /** Path and query, already encoded. */
  readonly path: string;
  /** Lower-case names; hop-by-hop headers are removed here for HTTP/2. */
  readonly headers: OutgoingHttpHeaders;
  /** The whole body, or the client's request to stream; `undefined` sends none. */
  readonly body?: Buffer | IncomingMessage;
  /** Idle timeout in milliseconds (0 = none); raises an error with code `UPSTREAM_TIMEOUT`. */
  readonly timeoutMs: number;
}

export interface UpstreamHandlers {
  answer(answer: UpstreamAnswer): void;
  /** At most once. After `answer` it means the body was cut short. */
  error(error: Error): void;
}

export interface UpstreamCall {
  /** The client went away: cancel without reporting an error. */
  abort(): void;
}

function tagged(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** A request Node refuses to send (bad path or header): the client's fault, not upstream's. */
function unrelayable(cause: unknown): Error {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return Object.assign(new Error('the request cannot be sent upstream'), {
    code: UNRELAYABLE_REQUEST,
    target: code === 'ERR_UNESCAPED_CHARACTERS' ? 'path' : 'headers',
  });
}

function timeoutError(): Error {
  return tagged('upstream timed out', UPSTREAM_TIMEOUT);
}

function push(out: Record<string, string[]>, name: string, value: string): void {
  const list = out[name];
  if (list === undefined) out[name] = [value];
  else list.push(value);
}

function flatten(out: Record<string, string[]>): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = Object.create(null);
  for (const [name, values] of Object.entries(out)) {
    headers[name] = values.length === 1 ? values[0] : values;
  }
  return headers;
}

/** The HTTP/1.1 answer's headers for the client (hop-by-hop dropped, repeats kept). */
export function http1RelayHeaders(res: IncomingMessage): OutgoingHttpHeaders {
  const listed = connectionTokens(res.headers);
  const out: Record<string, string[]> = Object.create(null);
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    if (HOP_BY_HOP_HEADERS.has(name) || listed.has(name)) continue;
    push(out, name, raw[i + 1] ?? '');
  }
  return flatten(out);
}

/** The HTTP/2 answer's headers for the client: pseudo-headers and hop-by-hop dropped. */
export function http2RelayHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const listed = connectionTokens(headers);
  const out: Record<string, string[]> = Object.create(null);
  for (const [name, value] of Object.entries(headers)) {
    if (name.startsWith(':') || HOP_BY_HOP_HEADERS.has(name) || listed.has(name)) continue;
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) push(out, name, String(item));
  }
  return flatten(out);
}

/** Connection-specific fields an HTTP/2 request must not carry (RFC 9113 §8.2.2). */
const NOT_ON_HTTP2 = new Set([...HOP_BY_HOP_HEADERS, 'host', 'http2-settings']);

/** HTTP/1.1 request headers as an HTTP/2 header block (`Host` becomes `:authority`). */
export function http2RequestHeaders(
  method: string,
  authority: string,
  path: string,
  headers: OutgoingHttpHeaders,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = Object.create(null);
  out[':method'] = method;
  out[':scheme'] = 'https';
  out[':authority'] = authority;
  out[':path'] = path;
  for (const [rawName, value] of Object.entries(headers)) {
    const name = rawName.toLowerCase();
    if (value === undefined || name.startsWith(':')) continue;
    if (name === 'te') {
      // The one TE value HTTP/2 allows.
      const values = (Array.isArray(value) ? value : [String(value)]).map((v) =>
        v.trim().toLowerCase(),
      );
      if (values.length > 0 && values.every((v) => v === 'trailers')) out.te = 'trailers';
      continue;
    }
    if (NOT_ON_HTTP2.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/** Whether an HTTP/1.1 request carries a body (RFC 9112 §6.3). */
function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

function callHttp1(
  credentials: ClusterCredentials,
  request: UpstreamRequest,
  handlers: UpstreamHandlers,
): UpstreamCall {
  const { server, agent, keepAliveMs } = credentials;
  let finished = false;
  let aborted = false;
  const fail = (error: Error) => {
    if (finished || aborted) return;
    finished = true;
    handlers.error(error);
  };
  let req: ClientRequest;
  try {
    req = (server.protocol === 'https:' ? httpsRequest : httpRequest)({
      agent,
      hostname: server.hostname.replace(/^\[|\]$/g, ''),
      port: server.port || (server.protocol === 'https:' ? 443 : 80),
      method: request.method,
      path: request.path,
      headers: request.headers,
    });
  } catch (error) {
    fail(unrelayable(error));
    return { abort() {} };
  }
  if (keepAliveMs > 0) req.on('socket', (socket) => socket.setKeepAlive(true, keepAliveMs));
  if (request.timeoutMs > 0) {
    req.setTimeout(request.timeoutMs, () => req.destroy(timeoutError()));
  }
  req.on('error', fail);
  req.on('response', (res) => {
    res.on('error', fail);
    res.on('aborted', () => fail(tagged('the control plane cut the answer', 'ECONNRESET')));
    handlers.answer({
      status: res.statusCode ?? 502,
      statusMessage: res.statusMessage,
      headers: res.headers,
      relayHeaders: http1RelayHeaders(res),
      body: res,
      httpVersion: '1.1',
    });
  });
  const { body } = request;
  if (body === undefined) req.end();
  else if (Buffer.isBuffer(body)) req.end(body);
  else {
    body.pipe(req);
    body.on('error', () => req.destroy());
  }
  return {
    abort() {
      aborted = true;
      req.destroy();
    },
  };
}

function callHttp2(
  credentials: ClusterCredentials,
  pool: NonNullable<ReturnType<typeof http2PoolOf>>,
  request: UpstreamRequest,
  handlers: UpstreamHandlers,
): UpstreamCall {
  let finished = false;
  let aborted = false;
  let answered = false;
  let stream: ClientHttp2Stream | undefined;
  let fallback: UpstreamCall | undefined;
  let waitTimer: NodeJS.Timeout | undefined;
  const cancel = () => {
    if (stream !== undefined && !stream.closed) stream.close(constants.NGHTTP2_CANCEL);
  };
  const fail = (error: Error) => {
    if (waitTimer !== undefined) clearTimeout(waitTimer);
    if (finished || aborted) return;
    finished = true;
    cancel();
    handlers.error(error);
  };
  const { body } = request;
  const endStream =
    body === undefined || (Buffer.isBuffer(body) ? body.length === 0 : !hasBody(body));
  let headers: OutgoingHttpHeaders;
  try {
    headers = http2RequestHeaders(
      request.method,
      credentials.server.host,
      request.path,
      request.headers,
    );
  } catch (error) {
    fail(unrelayable(error));
    return { abort() {} };
  }
  if (request.timeoutMs > 0) {
    // Covers connecting; once the stream exists its own idle timer takes over.
    waitTimer = setTimeout(() => fail(timeoutError()), request.timeoutMs);
  }
  pool.openStream(headers, { endStream }).then(
    (opened) => {
      if (waitTimer !== undefined) clearTimeout(waitTimer);
      if (opened === undefined) {
        // The control plane chose HTTP/1.1.
        if (!finished && !aborted) fallback = callHttp1(credentials, request, handlers);
        return;
      }
      stream = opened;
      if (finished || aborted) {
        cancel();
        return;
      }
      if (request.timeoutMs > 0) stream.setTimeout(request.timeoutMs, () => fail(timeoutError()));
      stream.on('error', fail);
      stream.on('response', (answer) => {
        answered = true;
        handlers.answer({
          status: Number(answer[':status'] ?? 502),
          statusMessage: undefined,
          headers: answer,
          relayHeaders: http2RelayHeaders(answer),
          body: opened,
          httpVersion: '2.0',
        });
      });
      stream.on('close', () => {
        if (!answered) fail(tagged('the control plane reset the stream', 'ECONNRESET'));
        else if (!opened.readableEnded)
          fail(tagged('the control plane cut the answer', 'ECONNRESET'));
      });
      if (endStream) {
        if (body !== undefined && !Buffer.isBuffer(body)) body.resume();
        return;
      }
      if (Buffer.isBuffer(body)) opened.end(body);
      else if (body !== undefined) {
        body.pipe(opened);
        body.on('error', cancel);
      }
    },
    (error: Error) => {
      const code = (error as NodeJS.ErrnoException).code ?? '';
      // A header the HTTP/2 encoder refuses is the request's fault, not the control plane's.
      if (/^ERR_(HTTP2_INVALID|HTTP2_HEADER|INVALID_HTTP_TOKEN|INVALID_CHAR)/.test(code)) {
        fail(unrelayable(error));
      } else fail(error);
    },
  );
  return {
    abort() {
      if (waitTimer !== undefined) clearTimeout(waitTimer);
      aborted = true;
      cancel();
      fallback?.abort();
    },
  };
}

/**
 * Sends one request to the control plane: over the credentials' HTTP/2 session when the server
 * negotiated `h2`, else over their HTTP/1.1 agent. Never throws; failures reach `handlers.error`.
 */
export function callUpstream(
  credentials: ClusterCredentials,
  request: UpstreamRequest,
  handlers: UpstreamHandlers,
): UpstreamCall {
  const pool = http2PoolOf(credentials);
  if (pool === undefined) return callHttp1(credentials, request, handlers);
  return callHttp2(credentials, pool, request, handlers);
}
