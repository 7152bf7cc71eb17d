/**
 * @module The relay core shared by the CLI and the middleware: one request or one upgrade to the
 * control plane, sent once the credential resolver has given its credential (an exec plugin may
 * run first), with hop-by-hop headers dropped (RFC 9110 §7.6.1), `X-Forwarded-For` appended,
 * impersonation added, the body streamed both ways and failures mapped to 502/504. A 401 to our
 * credential tells the resolver, so the next request carries a fresh one.
 */
import type {
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  ServerResponse,
} from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { Duplex } from 'node:stream';
import { ApiError } from '@resourceful/error-envelope';
import type { ClusterCredentials, UpstreamAuth } from './cluster-credentials.js';
import { appendHeader, connectionTokens, HOP_BY_HOP_HEADERS } from './hop-by-hop.js';
import { UPSTREAM_TIMEOUT, upstreamError } from './upstream-errors.js';
import {
  CREDENTIAL_NOT_SENDABLE,
  callUpstream,
  http1RelayHeaders,
  MAX_RESPONSE_HEADER_BYTES,
  UNRELAYABLE_REQUEST,
  type UpstreamAnswer,
  unrelayable,
  watchProxyConnect,
} from './upstream-transport.js';

export interface RelayPolicy {
  readonly credentials: ClusterCredentials;
  /**
   * `pass-through` (kubectl proxy): the client's `Authorization` goes upstream and ours is
   * added only when it sent none. `strip`: the client's credentials (`Authorization`,
   * `Cookie`, and the `Impersonate-*` and `X-Remote-*` identity headers) are dropped and ours
   * is always used.
   */
  readonly clientCredentials: 'pass-through' | 'strip';
  /** Idle timeout toward the control plane in milliseconds; 0 waits forever. */
  readonly timeoutMs: number;
  /** Adjusts the upstream response headers (for instance `Location`) before they are sent. */
  readonly mapResponseHeaders?: (headers: OutgoingHttpHeaders, status: number) => void;
  /**
   * Rewrites a whole (uncompressed, HTML) body, given as Latin-1 text (one character per byte);
   * `undefined` leaves the response streamed.
   */
  readonly rewriteBody?: (headers: IncomingHttpHeaders) => ((body: string) => string) | undefined;
  /** Largest body `rewriteBody` buffers; larger ones pass unchanged. @default 10 MiB */
  readonly rewriteLimit?: number;
}

/**
 * Request headers that speak for the caller's identity at the control plane: its own
 * credentials, user impersonation, and the authenticating-proxy headers of the API server's
 * request-header authentication. A client of the middleware must not choose them.
 */
function isClientIdentityHeader(name: string): boolean {
  return (
    name === 'authorization' ||
    name === 'cookie' ||
    name.startsWith('impersonate-') ||
    name.startsWith('x-remote-')
  );
}

/** Whether the client's request carries its own `Authorization` that will be relayed. */
function clientAuthorizes(req: IncomingMessage, policy: RelayPolicy): boolean {
  return policy.clientCredentials === 'pass-through' && req.headers.authorization !== undefined;
}

/** The headers to send upstream, from the client's raw headers and our credential. */
function upstreamHeaders(
  req: IncomingMessage,
  policy: RelayPolicy,
  upgrade: boolean,
  auth: UpstreamAuth | undefined,
): OutgoingHttpHeaders {
  const listed = connectionTokens(req.headers);
  const out: OutgoingHttpHeaders = Object.create(null);
  let forwardedFor: string | undefined;
  const raw = req.rawHeaders;
  for (let i = 0; i + 1 < raw.length; i += 2) {
    const name = (raw[i] ?? '').toLowerCase();
    const value = raw[i + 1] ?? '';
    if (name === 'host' || listed.has(name)) continue;
    if (name === 'te' && value.trim().toLowerCase() === 'trailers' && !upgrade) {
      appendHeader(out, 'te', value);
      continue;
    }
    if (HOP_BY_HOP_HEADERS.has(name)) continue;
    if (policy.clientCredentials === 'strip' && isClientIdentityHeader(name)) continue;
    if (name === 'x-forwarded-for') {
      forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`;
      continue;
    }
    appendHeader(out, name, value);
  }
  const client = req.socket.remoteAddress;
  if (client !== undefined) {
    const address = client.startsWith('::ffff:') ? client.replace(/^::ffff:(?=\d+\.)/, '') : client;
    forwardedFor = forwardedFor === undefined ? address : `${forwardedFor}, ${address}`;
  }
  if (forwardedFor !== undefined) out['x-forwarded-for'] = forwardedFor;
  if (out.authorization === undefined && auth?.authorization !== undefined) {
    out.authorization = auth.authorization;
  }
  const impersonation = policy.credentials.impersonationHeaders;
  // client-go's impersonating round tripper leaves a request that names its own user alone.
  if (out['impersonate-user'] === undefined && Object.keys(impersonation).length > 0) {
    for (const name of Object.keys(out)) {
      if (name.startsWith('impersonate-')) delete out[name];
    }
    for (const [name, value] of Object.entries(impersonation)) {
      out[name] = typeof value === 'string' ? value : [...value];
    }
  }
  if (upgrade) {
    out.connection = 'Upgrade';
    const protocol = req.headers.upgrade;
    if (protocol !== undefined) out.upgrade = protocol;
  }
  return out;
}

/** The upstream response headers to send to the client (hop-by-hop dropped, repeats kept). */
const downstreamHeaders = http1RelayHeaders;

/**
 * The credential for a request: none when the client's own `Authorization` is relayed (as
 * client-go's round trippers skip theirs), else the resolver's.
 */
function credentialFor(req: IncomingMessage, policy: RelayPolicy): Promise<UpstreamAuth> {
  if (clientAuthorizes(req, policy)) {
    return Promise.resolve({ authorization: undefined, agent: policy.credentials.agent });
  }
  return policy.credentials.requestAuth();
}

/** A failure of the resolver as an ApiError (it rejects with ApiErrors; anything else is a 500). */
function credentialError(error: unknown): ApiError {
  return error instanceof ApiError ? error : ApiError.internal();
}

function sendUpstream(
  policy: RelayPolicy,
  method: string,
  path: string,
  headers: OutgoingHttpHeaders,
  agent: UpstreamAuth['agent'],
) {
  const { server, keepAliveMs } = policy.credentials;
  const send = server.protocol === 'https:' ? httpsRequest : httpRequest;
  const req = send({
    agent,
    protocol: server.protocol,
    hostname: server.hostname.replace(/^\[|\]$/g, ''),
    port: server.port || (server.protocol === 'https:' ? 443 : 80),
    method,
    path,
    headers,
    maxHeaderSize: MAX_RESPONSE_HEADER_BYTES,
  });
  if (keepAliveMs > 0) req.on('socket', (socket) => socket.setKeepAlive(true, keepAliveMs));
  watchProxyConnect(req);
  if (policy.timeoutMs > 0) {
    req.setTimeout(policy.timeoutMs, () =>
      req.destroy(Object.assign(new Error('upstream timed out'), { code: UPSTREAM_TIMEOUT })),
    );
  }
  return req;
}

/** The 500 for a relay credential Node will not put in a header (a line break in a token). */
export function credentialNotSendable(): ApiError {
  return ApiError.internal(
    'The relay credential cannot be sent in an Authorization header (it holds a line break or another control character); no request was sent to the control plane.',
    { innererror: { code: CREDENTIAL_NOT_SENDABLE } },
  );
}

/**
 * Maps a transport failure to the envelope: a request Node cannot send is the client's fault,
 * unless what Node refused is the relay's own credential.
 */
function relayError(error: Error): ApiError {
  if ((error as NodeJS.ErrnoException).code === CREDENTIAL_NOT_SENDABLE) {
    return credentialNotSendable();
  }
  if ((error as NodeJS.ErrnoException).code === UNRELAYABLE_REQUEST) {
    const target = (error as Error & { target?: string }).target ?? 'headers';
    return ApiError.invalidRequest(
      target === 'path'
        ? 'The request target cannot be relayed.'
        : 'A request header cannot be relayed.',
      { target },
    );
  }
  return upstreamError(error);
}

/**
 * Relays `req` to `path` (already encoded, with query) on the control plane and streams the
 * answer to `res`. Failures before the answer started reach
 * `onError` once, as an ApiError; later ones cut the connection, the only honest signal left.
 * `body`, when given, replaces the client's stream: it is what a body parser read, decoded.
 */
export function relayRequest(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  policy: RelayPolicy,
  onError: (error: ApiError) => void,
  body?: Buffer,
): void {
  let failed = false;
  const fail = (error: ApiError) => {
    if (failed) return;
    failed = true;
    if (res.headersSent) res.destroy();
    else onError(error);
  };
  let call: { abort(): void } | undefined;
  let gone = false;
  res.on('close', () => {
    gone = !res.writableFinished;
    if (gone) call?.abort();
  });
  credentialFor(req, policy).then(
    (auth) => {
      if (gone) return;
      call = send(auth);
    },
    (error: unknown) => fail(credentialError(error)),
  );

  function send(auth: UpstreamAuth): { abort(): void } | undefined {
    let headers: OutgoingHttpHeaders;
    try {
      headers = upstreamHeaders(req, policy, false, auth);
      if (body !== undefined) {
        headers['content-length'] = String(body.length);
        // A body parser read this body and undid its Content-Encoding (gzip, deflate, br).
        delete headers['content-encoding'];
      }
    } catch {
      fail(ApiError.invalidRequest('The request target cannot be relayed.', { target: 'path' }));
      return undefined;
    }
    return callUpstream(
      policy.credentials,
      {
        method: req.method ?? 'GET',
        path,
        headers,
        body: body ?? req,
        timeoutMs: policy.timeoutMs,
        agent: auth.agent,
      },
      {
        error: (error) => fail(relayError(error)),
        answer: (answer) => {
          const { status } = answer;
          if (status === 401) policy.credentials.rejected(auth);
          const headers = answer.relayHeaders;
          policy.mapResponseHeaders?.(headers, status);
          const rewrite = policy.rewriteBody?.(answer.headers);
          const encoding = answer.headers['content-encoding'];
          if (rewrite !== undefined && (encoding === undefined || encoding === 'identity')) {
            if (req.method === 'HEAD' || status === 204 || status === 304) {
              // No body to rewrite, and the rewritten length of the page is unknown here.
              delete headers['content-length'];
            } else {
              bufferAndRewrite(
                answer,
                res,
                headers,
                rewrite,
                policy.rewriteLimit ?? 10 * 1024 * 1024,
              );
              return;
            }
          }
          res.writeHead(status, answer.statusMessage, headers);
          answer.body.pipe(res);
        },
      },
    );
  }
}

function bufferAndRewrite(
  answer: UpstreamAnswer,
  res: ServerResponse,
  headers: OutgoingHttpHeaders,
  rewrite: (body: string) => string,
  limit: number,
): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let streaming = false;
  const { body, status, statusMessage } = answer;
  body.on('data', (chunk: Buffer) => {
    if (streaming) return;
    size += chunk.length;
    chunks.push(chunk);
    if (size > limit) {
      // Too large to rewrite: send what we have and stream the rest unchanged.
      streaming = true;
      res.writeHead(status, statusMessage, headers);
      res.write(Buffer.concat(chunks));
      body.pipe(res);
    }
  });
  body.on('end', () => {
    if (streaming) return;
    // Latin-1 maps each byte to one character and back, so the ASCII links are rewritten and
    // every other byte is kept, whatever the page's charset (UTF-8 decoding would replace bytes
    // it cannot read with U+FFFD).
    const rewritten = Buffer.from(rewrite(Buffer.concat(chunks).toString('latin1')), 'latin1');
    headers['content-length'] = String(rewritten.length);
    res.writeHead(status, statusMessage, headers);
    res.end(rewritten);
  });
}

function writeRawResponse(
  socket: Duplex,
  status: number,
  message: string,
  headers: OutgoingHttpHeaders,
) {
  let head = `HTTP/1.1 ${status} ${message}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) head += `${name}: ${item}\r\n`;
  }
  socket.write(`${head}\r\n`);
}

/**
 * Relays an upgrade request (WebSocket, SPDY) to `path` and splices the two sockets once the
 * control plane answers 101. Any other answer is passed back as is.
 */
export function relayUpgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  path: string,
  policy: RelayPolicy,
  onError: (error: ApiError) => void,
): void {
  let done = false;
  const fail = (error: ApiError) => {
    if (done) return;
    done = true;
    onError(error);
  };
  socket.on('error', () => socket.destroy());
  credentialFor(req, policy).then(
    (auth) => {
      if (!socket.destroyed) upgradeWith(auth);
    },
    (error: unknown) => fail(credentialError(error)),
  );

  function upgradeWith(auth: UpstreamAuth): void {
    let upstream: ReturnType<typeof sendUpstream>;
    let headers: OutgoingHttpHeaders | undefined;
    try {
      headers = upstreamHeaders(req, policy, true, auth);
      upstream = sendUpstream(policy, req.method ?? 'GET', path, headers, auth.agent);
    } catch (error) {
      fail(relayError(unrelayable(error, headers ?? {})));
      return;
    }
    upstream.on('error', (error) => fail(upstreamError(error)));
    upstream.on('upgrade', (answer, upstreamSocket, upstreamHead) => {
      done = true;
      upstream.setTimeout(0);
      const headers = downstreamHeaders(answer);
      headers.connection = 'Upgrade';
      if (answer.headers.upgrade !== undefined) headers.upgrade = answer.headers.upgrade;
      policy.mapResponseHeaders?.(headers, 101);
      writeRawResponse(socket, 101, 'Switching Protocols', headers);
      if (upstreamHead.length > 0) socket.write(upstreamHead);
      if (head.length > 0) upstreamSocket.write(head);
      upstreamSocket.on('error', () => socket.destroy());
      socket.on('close', () => upstreamSocket.destroy());
      upstreamSocket.on('close', () => socket.destroy());
      upstreamSocket.pipe(socket).pipe(upstreamSocket);
    });
    upstream.on('response', (answer) => {
      done = true;
      if (answer.statusCode === 401) policy.credentials.rejected(auth);
      const headers = downstreamHeaders(answer);
      policy.mapResponseHeaders?.(headers, answer.statusCode ?? 502);
      headers.connection = 'close';
      writeRawResponse(socket, answer.statusCode ?? 502, answer.statusMessage ?? '', headers);
      answer.pipe(socket);
    });
    socket.on('close', () => {
      if (!done) upstream.destroy();
    });
    upstream.end();
  }
}
