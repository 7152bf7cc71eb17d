/**
 * @module One request to the control plane over HTTP/1.1 with keep-alive. kubectl would use
 * HTTP/2 where offered; an HTTP/2 pool measured 0.62× the throughput of this keep-alive agent
 * (bench/README.md) and was removed. Callers get the status, headers ready for the client
 * (hop-by-hop headers gone) and a streamed body.
 */
import type {
  Agent,
  ClientRequest,
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
} from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Readable } from 'node:stream';
import type { ClusterCredentials } from './cluster-credentials.js';
import { appendHeader, connectionTokens, HOP_BY_HOP_HEADERS } from './hop-by-hop.js';
import { PROXY_REFUSED, UPSTREAM_TIMEOUT } from './upstream-errors.js';

/** Set on errors for requests that cannot be expressed upstream (bad path or header). */
export const UNRELAYABLE_REQUEST = 'UNRELAYABLE_REQUEST';

/**
 * The largest response head read from the control plane: Go's `Transport` default (10 MiB), what
 * `kubectl proxy` takes, rather than Node's 16 KiB, which would turn a service's large (but
 * valid) headers into a 502. A larger head still fails (502 UPSTREAM_ERROR).
 */
export const MAX_RESPONSE_HEADER_BYTES = 10 * 1024 * 1024;

export interface UpstreamAnswer {
  readonly status: number;
  /** The reason phrase. */
  readonly statusMessage: string | undefined;
  /** The headers as Node parsed them (lower-case names), for content checks. */
  readonly headers: IncomingHttpHeaders;
  /** The headers to give the client: hop-by-hop headers dropped. */
  readonly relayHeaders: OutgoingHttpHeaders;
  readonly body: Readable;
}

export interface UpstreamRequest {
  readonly method: string;
  /** Path and query, already encoded. */
  readonly path: string;
  /** Lower-case names. */
  readonly headers: OutgoingHttpHeaders;
  /** The whole body, or the client's request to stream; `undefined` sends none. */
  readonly body?: Buffer | IncomingMessage;
  /** Idle timeout in milliseconds (0 = none); raises an error with code `UPSTREAM_TIMEOUT`. */
  readonly timeoutMs: number;
  /** The agent of the request's credential (see `ClusterCredentials.requestAuth`). */
  readonly agent: Agent;
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

/** Set on errors for a credential that cannot be sent as a header value (the proxy's fault). */
export const CREDENTIAL_NOT_SENDABLE = 'CREDENTIAL_NOT_SENDABLE';

/** What Node refuses in a header value (its `checkInvalidHeaderChar`). */
const INVALID_HEADER_VALUE = /[^\t\x20-\x7e\x80-\xff]/;

/** Whether Node will send `value` as a header value. */
export function isSendableHeaderValue(value: string): boolean {
  return !INVALID_HEADER_VALUE.test(value);
}

/**
 * Why Node refused to send a request. A client's own header values passed Node's parser, so an
 * `Authorization` Node will not send is the relay's credential (a token with a line break in
 * it): the proxy's fault, not the client's. Otherwise a bad path or header is the client's.
 */
export function unrelayable(cause: unknown, headers: OutgoingHttpHeaders): Error {
  const authorization = headers.authorization;
  if (typeof authorization === 'string' && !isSendableHeaderValue(authorization)) {
    return Object.assign(new Error('the credential cannot be sent in a header'), {
      code: CREDENTIAL_NOT_SENDABLE,
    });
  }
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  return Object.assign(new Error('the request cannot be sent upstream'), {
    code: UNRELAYABLE_REQUEST,
    target: code === 'ERR_UNESCAPED_CHARACTERS' ? 'path' : 'headers',
  });
}

function timeoutError(): Error {
  return tagged('upstream timed out', UPSTREAM_TIMEOUT);
}

/** The HTTP/1.1 answer's headers for the client (hop-by-hop dropped, repeats kept). */
export function http1RelayHeaders(res: IncomingMessage): OutgoingHttpHeaders {
  const listed = connectionTokens(res.headers);
  const headers: OutgoingHttpHeaders = Object.create(null);
  const raw = res.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    if (HOP_BY_HOP_HEADERS.has(name) || listed.has(name)) continue;
    appendHeader(headers, name, raw[i + 1] ?? '');
  }
  return headers;
}

/**
 * A proxy that refuses the CONNECT (407, 403, 502…) must not look like the control plane's
 * answer: https-proxy-agent replays the proxy's response, so the request is failed instead.
 */
export function watchProxyConnect(req: ClientRequest): void {
  req.once('proxyConnect', (connect: { statusCode?: number }) => {
    if (connect.statusCode !== 200) {
      req.destroy(
        tagged(
          `the proxy refused the tunnel (${connect.statusCode ?? 'no status'})`,
          PROXY_REFUSED,
        ),
      );
    }
  });
}

/**
 * Sends one request to the control plane over `request.agent` (HTTP/1.1 with keep-alive). Never
 * throws; failures reach `handlers.error`.
 */
export function callUpstream(
  credentials: ClusterCredentials,
  request: UpstreamRequest,
  handlers: UpstreamHandlers,
): UpstreamCall {
  const { server, keepAliveMs } = credentials;
  const { agent } = request;
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
      // Explicit, so a proxy agent files its kept-alive tunnels under the name it looks up.
      protocol: server.protocol,
      hostname: server.hostname.replace(/^\[|\]$/g, ''),
      port: server.port || (server.protocol === 'https:' ? 443 : 80),
      method: request.method,
      path: request.path,
      headers: request.headers,
      maxHeaderSize: MAX_RESPONSE_HEADER_BYTES,
    });
  } catch (error) {
    fail(unrelayable(error, request.headers));
    return { abort() {} };
  }
  if (keepAliveMs > 0) req.on('socket', (socket) => socket.setKeepAlive(true, keepAliveMs));
  if (request.timeoutMs > 0) {
    req.setTimeout(request.timeoutMs, () => req.destroy(timeoutError()));
  }
  req.on('error', fail);
  watchProxyConnect(req);
  req.on('response', (res) => {
    res.on('error', fail);
    res.on('aborted', () => fail(tagged('the control plane cut the answer', 'ECONNRESET')));
    handlers.answer({
      status: res.statusCode ?? 502,
      statusMessage: res.statusMessage,
      headers: res.headers,
      relayHeaders: http1RelayHeaders(res),
      body: res,
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
