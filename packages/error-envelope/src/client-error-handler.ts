/**
 * @module What Node's HTTP server would answer itself, before or beside Express: bytes its
 * parser refuses (headers over `maxHeaderSize`, a malformed request, a request too slow to
 * arrive), an `Expect` it does not know, a `CONNECT`. Each gets the envelope, written and
 * reported with the app's error settings; and a refusal never takes the place of the answer of
 * a request the app is still answering on the same connection.
 */
import { subscribe } from 'node:diagnostics_channel';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error.js';
import {
  type ErrorHandlerOptions,
  type ErrorSettings,
  resolveErrorSettings,
  settingsOfServer,
} from './error-settings.js';
import { isValidHost } from './host-header.js';
import {
  type RawAnswerOptions,
  type RawAnswerSettings,
  rawAnswerHeaders,
  splitRawAnswerOptions,
  stampAnswer,
} from './raw-answers.js';
import { answerError, envelopeHeaders, reportError, serialiseEnvelope } from './send-error.js';

/**
 * The app's `errorHandler` options, for raw sockets (left out, each one is taken from the
 * `errorHandler` of the Express app the server serves; given, it overrides that), and the
 * request id header and `Date` form of the answers no middleware of the app stamps.
 */
export type ClientErrorHandlerOptions = ErrorHandlerOptions & RawAnswerOptions;

/** The refusal for a parser error code (see Node's `llhttp` error names). */
function refusalFor(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      // RFC 6585 §5. The parser does not say whether the URL or a header was too long.
      return new ApiError({
        status: 431,
        code: 'HEADERS_TOO_LARGE',
        message: 'The request line or headers are larger than the service accepts.',
      });
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      // Node's guard against chunk extensions that never end (CVE-2024-22019); Node sends 413.
      return ApiError.payloadTooLarge('The chunk extensions of the body are too large.', {
        innererror: { code: 'CHUNK_EXTENSIONS_TOO_LARGE' },
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      // Node's headersTimeout or requestTimeout (RFC 9110 §15.5.9).
      return new ApiError({
        status: 408,
        code: 'REQUEST_TIMEOUT',
        message: 'The request did not arrive in time.',
      });
    default:
      return ApiError.invalidRequest('The request is not valid HTTP.', {
        innererror:
          code === undefined
            ? { code: 'MALFORMED_HTTP' }
            : { code: 'MALFORMED_HTTP', parser_error: code },
      });
  }
}

// The responses of each connection not yet finished, in order: pipelined requests are answered
// one after the other, and Node keeps the queue to itself. Filled from Node's documented
// `http.server.request.start` diagnostics channel, only for servers with a clientError listener.
const responsesBySocket = new WeakMap<object, ServerResponse[]>();
// Connections on which a request started during the current turn of the event loop: Node parses
// a chunk of bytes in one go, so refused bytes found in the same turn came in the same chunk as
// that request (trailing bytes, an unframed body), even when the app answered it at once.
const startedThisTurn = new WeakSet<object>();
let tracking = false;
/**
 * Servers given `attachServerErrorHandlers` (only their requests without Host, with a repeated
 * Host or an invalid one are answered here),
 * with the settings of the options given to it.
 */
const envelopedServers = new WeakMap<object, ResolvedOptions>();

interface RequestStartMessage {
  request: IncomingMessage;
  response: ServerResponse;
  socket: object;
  server: Server;
}

function trackResponses(): void {
  if (tracking) return;
  tracking = true;
  subscribe('http.server.request.start', (message) => {
    const { response, socket, server } = message as RequestStartMessage;
    if (server.listenerCount('clientError') === 0) return;
    answerMissingOrRepeatedHost(message as RequestStartMessage);
    let responses = responsesBySocket.get(socket);
    if (responses === undefined) {
      responses = [];
      responsesBySocket.set(socket, responses);
    }
    while (responses.length > 0 && isDone(responses[0]!)) responses.shift();
    responses.push(response);
    startedThisTurn.add(socket);
    queueMicrotask(() => startedThisTurn.delete(socket));
  });
}

function isDone(res: ServerResponse): boolean {
  return res.writableFinished || res.destroyed;
}

/** The last response of the connection, when the refused bytes came with or during it. */
function answerBeforeRefusal(socket: object): ServerResponse | undefined {
  const responses = responsesBySocket.get(socket) ?? [];
  const unfinished = responses.filter((res) => !isDone(res));
  if (unfinished.length > 0) return unfinished.at(-1);
  return startedThisTurn.has(socket) ? responses.at(-1) : undefined;
}

/** The app has started reading the body: its handler waits for the end of it. */
function isReadingBody(req: IncomingMessage): boolean {
  return (
    req.readableFlowing === true ||
    req.listenerCount('data') > 0 ||
    req.listenerCount('readable') > 0
  );
}

/** Calls `then` once the app starts reading `req`'s body (a body parser after async middleware). */
function onceReadingStarts(req: IncomingMessage, then: () => void): void {
  const watch = (event: string | symbol) => {
    if (event !== 'data' && event !== 'readable') return;
    req.off('newListener', watch);
    // After the listener is added, so the parser sees the close as its own request's end.
    queueMicrotask(then);
  };
  req.on('newListener', watch);
}

/** Ends the connection once what is queued on it is written, as Node does after a `close`. */
function closeSoon(socket: Duplex): void {
  const destroySoon = (socket as Duplex & { destroySoon?: () => void }).destroySoon;
  if (typeof destroySoon === 'function') destroySoon.call(socket);
  else socket.end();
}

/** Closes the connection after `res` is written; if it never is, the connection goes now. */
function closeAfter(res: ServerResponse, socket: Duplex): void {
  res.once('finish', () => closeSoon(socket));
  res.once('close', () => {
    if (!res.writableFinished) socket.destroy();
  });
}

/** An envelope written straight onto a socket no ServerResponse owns; returns its request id. */
function writeRaw(
  socket: Duplex,
  error: ApiError,
  settings: ErrorSettings,
  raw: RawAnswerSettings,
): string | undefined {
  const { requestId, headers } = rawAnswerHeaders(raw);
  const body = serialiseEnvelope(error, requestId);
  const head = [
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    ...envelopeHeaders(error, settings).map(([name, value]) => `${name}: ${value}`),
    ...headers.map(([name, value]) => `${name}: ${value}`),
    'Connection: close',
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n${body}`);
  closeSoon(socket);
  return requestId;
}

/** The error settings for an error on `server`: the options given over its app's. */
type SettingsResolver = (server: unknown) => ErrorSettings;

function settingsResolver(
  factory: string,
  options: ErrorHandlerOptions | undefined,
): SettingsResolver {
  // Checked now, so a mistake fails at start-up; merged over the app's when an error comes.
  if (options !== undefined) resolveErrorSettings(factory, options);
  return (server: unknown): ErrorSettings => {
    const appSettings = settingsOfServer(server);
    return options === undefined
      ? appSettings
      : resolveErrorSettings(factory, options, appSettings);
  };
}

/**
 * For `server.on('clientError', clientErrorHandler())`. With no request of the connection
 * being answered, the refusal is written as the envelope and the connection closed. When the
 * app is still answering requests of the connection, their answers go first, complete, and the
 * connection is closed after the last one (marked `Connection: close` when its head is not yet
 * written), without a status line for the refused bytes, which a client could take for the
 * answer of a request that ran. The one exception: when the refused bytes are the body of the
 * request being answered and the app reads it (now or later), the refusal is that request's
 * answer; if the app neither reads it nor answers, Node's requestTimeout ends it with a 408.
 */
export function clientErrorHandler(options?: ClientErrorHandlerOptions) {
  return clientErrorListener(resolveOptions('clientErrorHandler', options));
}

/** What the options of `clientErrorHandler` and `attachServerErrorHandlers` resolve to. */
interface ResolvedOptions {
  readonly settingsFor: SettingsResolver;
  readonly raw: RawAnswerSettings;
}

/**
 * The options checked and resolved once, in the name of `factory`: the function the user
 * called, so a mistake passed to `attachServerErrorHandlers` is reported under that name.
 */
function resolveOptions(
  factory: string,
  options: ClientErrorHandlerOptions | undefined,
): ResolvedOptions {
  const { raw, rest } = splitRawAnswerOptions(factory, options);
  return { settingsFor: settingsResolver(factory, rest), raw };
}

/** The `clientError` listener. */
function clientErrorListener({ settingsFor, raw }: ResolvedOptions) {
  trackResponses();
  // Node's parser keeps failing on later bytes and reports each time; the first one decides,
  // except a later timeout (requestTimeout), which ends a connection still waiting.
  const handled = new WeakSet<object>();

  return function clientErrorEnvelope(
    this: unknown,
    cause: Error & { code?: string },
    socket: Duplex,
  ): void {
    if (handled.has(socket)) {
      if (cause.code === 'ERR_HTTP_REQUEST_TIMEOUT') endWaitingConnection(this, socket);
      return;
    }
    handled.add(socket);
    if (cause.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const settings = settingsFor(this);
    const refusal = refusalFor(cause.code);
    const last = answerBeforeRefusal(socket);
    if (last === undefined) {
      const requestId = writeRaw(socket, refusal, settings, raw);
      reportError(settings, {
        error: refusal,
        cause,
        headersSent: false,
        req: undefined,
        requestId,
      });
      return;
    }
    const req = last.req;
    if (!req.complete && !last.headersSent) {
      // The refused bytes are this request's own body, which never arrives whole. A handler
      // waiting for it never runs, so once the app reads it (now, or after async middleware),
      // the refusal is the honest answer. A handler that answers without reading it ran, and
      // its answer goes first, as below.
      last.shouldKeepAlive = false;
      closeAfter(last, socket);
      const answerRefusal = () => {
        if (last.headersSent || last.writableEnded) return;
        stampAnswer(last, raw);
        answerError(last, refusal, settings);
      };
      if (isReadingBody(req)) answerRefusal();
      else onceReadingStarts(req, answerRefusal);
      return;
    }
    if (!req.complete && isReadingBody(req)) {
      // Its answer had started while the body was being read: only a cut is honest.
      socket.destroy();
      return;
    }
    // Every request being answered arrived whole; the refused bytes came after them. Their
    // answers are the client's only truthful news, so they are written and the connection ends.
    if (isDone(last)) closeSoon(socket);
    else {
      if (!last.headersSent) last.shouldKeepAlive = false;
      closeAfter(last, socket);
    }
    reportError(settings, {
      error: refusal,
      cause,
      headersSent: true,
      req: undefined,
      requestId: undefined,
    });
  };

  /**
   * Node's requestTimeout on a connection whose refused body the app never read nor answered:
   * the request did not arrive in time (408) if its answer has not started, else a cut.
   */
  function endWaitingConnection(server: unknown, socket: Duplex): void {
    if (socket.destroyed) return;
    const waiting = (responsesBySocket.get(socket) ?? []).find((res) => !isDone(res));
    if (waiting === undefined || waiting.headersSent || !socket.writable) {
      socket.destroy();
      return;
    }
    stampAnswer(waiting, raw);
    answerError(waiting, refusalFor('ERR_HTTP_REQUEST_TIMEOUT'), settingsFor(server));
  }
}

/**
 * Whether the app listens for `event` itself (a tunnel for CONNECT, its own expectations): then
 * its listener answers, and the envelope would be a second answer written into its stream.
 */
function answeredByAnother(server: unknown, event: 'connect' | 'checkExpectation'): boolean {
  return (
    typeof (server as Server | undefined)?.listenerCount === 'function' &&
    (server as Server).listenerCount(event) > 1
  );
}

/**
 * For `server.on('checkExpectation', …)`: an `Expect` other than `100-continue` gets a 417
 * envelope instead of Node's empty 417 (RFC 9110 §10.1.1).
 */
function expectationHandler({ settingsFor, raw }: ResolvedOptions) {
  return function expectationFailedEnvelope(
    this: unknown,
    _req: IncomingMessage,
    res: ServerResponse,
  ): void {
    if (answeredByAnother(this, 'checkExpectation')) return;
    stampAnswer(res, raw);
    answerError(
      res,
      new ApiError({
        status: 417,
        code: 'EXPECTATION_FAILED',
        message: 'The only expectation this service meets is "100-continue".',
        target: 'Expect',
      }),
      settingsFor(this),
    );
  };
}

/**
 * For `server.on('connect', …)`: Node drops a CONNECT without a word when nothing listens. An
 * origin server is no tunnel, so the target (an authority, not one of its resources) allows no
 * method: 405 with an empty `Allow` (RFC 9110 §10.2.1, §9.3.6).
 */
function connectHandler({ settingsFor, raw }: ResolvedOptions) {
  return function connectRefusalEnvelope(
    this: unknown,
    req: IncomingMessage,
    socket: Duplex,
  ): void {
    if (answeredByAnother(this, 'connect')) return;
    const settings = settingsFor(this);
    const error = ApiError.methodNotAllowed([], {
      innererror: { code: 'CONNECT_NOT_SUPPORTED' },
    });
    let requestId: string | undefined;
    if (socket.writable) requestId = writeRaw(socket, error, settings, raw);
    else socket.destroy();
    reportError(settings, { error, cause: error, headersSent: false, req, requestId });
  };
}

/**
 * Where Node answers a request itself with `writeHead(status)` and an empty `end()` (no event
 * lets the app answer instead), those two calls on this one response write the envelope.
 * `beforeAnswer` runs first (to undo what was changed to make Node answer).
 */
function replaceNodeAnswer(
  res: ServerResponse,
  error: ApiError,
  settings: ErrorSettings,
  raw: RawAnswerSettings,
  beforeAnswer?: () => void,
): void {
  res.writeHead = function keepStatusForEnvelope(this: ServerResponse) {
    return this;
  } as typeof res.writeHead;
  res.end = function endWithEnvelope(this: ServerResponse) {
    delete (this as Partial<ServerResponse>).writeHead;
    delete (this as Partial<ServerResponse>).end;
    beforeAnswer?.();
    // Node's answers close the connection; so do these.
    this.shouldKeepAlive = false;
    stampAnswer(this, raw);
    answerError(this, error, settings);
    return this;
  } as typeof res.end;
}

/** Whether a raw header name is `Host`, in any case, without making a string. */
function isHostName(name: string): boolean {
  return (
    name.length === 4 &&
    // `| 32` lower-cases an ASCII letter; only "H"/"h" give "h", and so on.
    (name.charCodeAt(0) | 32) === 104 &&
    (name.charCodeAt(1) | 32) === 111 &&
    (name.charCodeAt(2) | 32) === 115 &&
    (name.charCodeAt(3) | 32) === 116
  );
}

/**
 * Whether the request has more than one `Host` field line. Node keeps the first one in
 * `headers.host` and drops the rest, so only `rawHeaders` tells. Runs on every request: a loop
 * over the names, no allocation.
 */
export function hasRepeatedHost(rawHeaders: readonly string[]): boolean {
  let seen = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (isHostName(rawHeaders[i]!)) {
      if (seen) return true;
      seen = true;
    }
  }
  return false;
}

/** The last `Host` value found valid: most requests of a server repeat the same one. */
let lastValidHost = '';

/**
 * RFC 9112 §3.2: a server MUST answer 400 to an HTTP/1.1 request that lacks Host, and to any
 * request (HTTP/1.0 too) with more than one Host field line or a Host field value that is not
 * `uri-host [":" port]` (`isValidHost`). Node answers the first with a bare 400 before any
 * event, and lets the others through to the app. Checked when the request starts, where Node's
 * `requireHostHeader` check comes next: that 400 becomes the envelope, and a request with a
 * repeated or invalid Host is shown to that check as one without (its `headers.host` is put back
 * before the answer is written and reported), so it too is answered before the app sees it.
 */
function answerMissingOrRepeatedHost(message: RequestStartMessage): void {
  const { request, response, server } = message;
  const enveloped = envelopedServers.get(server);
  if (
    enveloped === undefined ||
    // Node before 20 has no such check (the option is undefined there); an app that turns it
    // off accepts Host-less requests, and the rest of the Host checks go with it.
    (server as Server & { requireHostHeader?: boolean }).requireHostHeader !== true ||
    request.httpVersionMajor !== 1
  ) {
    return;
  }
  const headers = request.headers;
  const host = headers.host;
  if (host === undefined) {
    // RFC 9112 §3.2 requires Host of HTTP/1.1 requests only; Node's check is for those alone.
    if (request.httpVersionMinor !== 1) return;
    replaceNodeAnswer(
      response,
      ApiError.invalidRequest('HTTP/1.1 requests must carry a Host header.', { target: 'Host' }),
      enveloped.settingsFor(server),
      enveloped.raw,
    );
    return;
  }
  let refusal: ApiError;
  if (hasRepeatedHost(request.rawHeaders)) {
    refusal = ApiError.invalidRequest('The request must carry one Host header, not several.', {
      target: 'Host',
      innererror: { code: 'REPEATED_HOST' },
    });
  } else if (host === lastValidHost || host === '') {
    // An empty value is the grammar's empty reg-name: RFC 9112 §3.3 lets the server reject it
    // or use its own authority; it is left to the app, which knows whether it has one.
    return;
  } else if (isValidHost(host)) {
    lastValidHost = host;
    return;
  } else {
    refusal = ApiError.invalidRequest(
      'The Host header must be a host name or address and an optional port.',
      {
        target: 'Host',
        innererror: { code: 'INVALID_HOST' },
      },
    );
  }
  // Node runs its Host check on HTTP/1.1 requests only: an HTTP/1.0 one is shown to it as
  // HTTP/1.1 for that moment. Its response was made before this point, as HTTP/1.0's (no
  // chunked coding, no keep-alive), and the version is put back before the answer is written.
  const minor = request.httpVersionMinor;
  request.httpVersionMinor = 1;
  headers.host = undefined;
  replaceNodeAnswer(response, refusal, enveloped.settingsFor(server), enveloped.raw, () => {
    request.httpVersionMinor = minor;
    headers.host = host;
  });
}

/**
 * For `server.on('dropRequest', …)`: a request over `maxRequestsPerSocket` on one connection is
 * not run, and Node answers it with a bare, empty 503 (`writeHead(503)` then `end()`, right
 * after this event). That response is given the envelope instead: 503 `SERVICE_UNAVAILABLE`,
 * `Retry-After: 0` (retry at once, on a new connection), counted as throttling, not a fault.
 */
function dropRequestHandler({ settingsFor, raw }: ResolvedOptions) {
  return function droppedRequestEnvelope(
    this: unknown,
    req: IncomingMessage,
    socket: Duplex,
  ): void {
    const res = responsesBySocket.get(socket)?.find((candidate) => candidate.req === req);
    if (res === undefined) return;
    replaceNodeAnswer(
      res,
      ApiError.serviceUnavailable('This connection has served its requests; retry on a new one.', {
        retryAfter: 0,
        throttling: true,
        innererror: { code: 'MAX_REQUESTS_PER_CONNECTION' },
      }),
      settingsFor(this),
      raw,
    );
  };
}

/**
 * Gives every answer Node's server would write itself the envelope: registers
 * `clientErrorHandler` (`clientError`), and handlers of `checkExpectation` (417), `connect`
 * (405) and `dropRequest` (503 over `maxRequestsPerSocket`). Options as `clientErrorHandler`'s.
 * The `checkExpectation` and `connect` handlers stand aside when the app has its own listener.
 */
export function attachServerErrorHandlers<T extends Server>(
  server: T,
  options?: ClientErrorHandlerOptions,
): T {
  const resolved = resolveOptions('attachServerErrorHandlers', options);
  server.on('clientError', clientErrorListener(resolved));
  envelopedServers.set(server, resolved);
  server.on('checkExpectation', expectationHandler(resolved));
  server.on('connect', connectHandler(resolved));
  server.on('dropRequest', dropRequestHandler(resolved));
  return server;
}
