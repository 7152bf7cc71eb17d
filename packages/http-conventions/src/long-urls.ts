/**
 * @module Long URLs. The spec (Limits): "the service must handle any valid URL, including long
 * GET requests, and answers 414 when it cannot." RFC 9110 §4.1 recommends at least 8000
 * octets; the length a service accepts is its choice (`maxLength`).
 *
 * Two places refuse a URL: this package's middleware, for URLs that reached Express, and
 * Node's HTTP parser, which counts the request line and the headers together against the
 * server's `maxHeaderSize` and reports both as `HPE_HEADER_OVERFLOW` (Node would answer a bare
 * 431). `answerUrlOverflow` tells the two apart, so an over-long request line still gets a 414
 * envelope and over-large headers the 431 of the error envelope's `clientErrorHandler`.
 */

import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { shareShape } from '@resourceful/application-hooks';
import { ApiError, DEFAULT_CODE_HEADER } from '@resourceful/error-envelope';
import {
  checkOptions,
  isHeaderName,
  missingOption,
  optionError,
  positiveInteger,
} from './options.js';
import { DEFAULT_REQUEST_ID_HEADER } from './request-id.js';
import { DATE_FORMATS, type DateFormat, formatImfFixdate, formatRfc3339 } from './response-date.js';

/** RFC 9110 §4.1: "at a minimum, request lines of 8000 octets"; served here up to 64 KiB. */
export const DEFAULT_MAX_URL_LENGTH = 64 * 1024;

/** The error for a URL over `maxLength`: 414 `URI_TOO_LONG`. */
export function uriTooLong(maxLength: number): ApiError {
  // A bound that is no positive integer would be sent to clients as `max_length`.
  positiveInteger('uriTooLong', 'maxLength', maxLength, 1);
  return ApiError.uriTooLong(`The request URL is longer than ${maxLength} characters.`, {
    innererror: { code: 'URL_TOO_LONG', max_length: maxLength },
  });
}

export interface LimitUrlLengthOptions {
  /** Longest URL (request target) served; longer answers 414. @default 65536 */
  maxLength?: number;
}

type Next = (err?: unknown) => void;

/** What `limitUrlLength()` checks on one request: the 414 error, or `undefined`. */
export type CheckUrlLength = (
  req: IncomingMessage & { originalUrl?: string },
) => ApiError | undefined;

/** Checks the options and makes the per-request check (shared with `httpConventions`). */
export function limitUrlLengthStep(options: LimitUrlLengthOptions = {}): CheckUrlLength {
  const checked = checkOptions<LimitUrlLengthOptions>('limitUrlLength', options, ['maxLength']);
  const maxLength = positiveInteger(
    'limitUrlLength',
    'maxLength',
    checked.maxLength,
    DEFAULT_MAX_URL_LENGTH,
  );
  return function checkUrlLength(req: IncomingMessage & { originalUrl?: string }) {
    const url = req.originalUrl ?? req.url ?? '';
    return url.length > maxLength ? uriTooLong(maxLength) : undefined;
  };
}

/** Answers a request whose URL is longer than `maxLength` with a 414 envelope. */
export function limitUrlLength(options: LimitUrlLengthOptions = {}) {
  const check = limitUrlLengthStep(options);
  return function limitUrlLengthMiddleware(
    req: IncomingMessage & { originalUrl?: string },
    res: ServerResponse,
    next: Next,
  ) {
    shareShape(req);
    shareShape(res);
    next(check(req));
  };
}

/** Node's `clientError` listener signature. */
export type ClientErrorListener = (error: Error & { code?: string }, socket: Duplex) => void;

export interface AnswerUrlOverflowOptions {
  /**
   * What answers every other client error. @default the server's `clientError` listeners at the
   * time of the call (e.g. registered by the error envelope's `attachServerErrorHandlers`),
   * which are taken over so that each error is answered once
   */
  otherwise?: ClientErrorListener;
  /** The longest URL served (`limitUrlLength`'s `maxLength`), reported in the 414. */
  maxLength: number;
  /** Header carrying the error code, or `false`. @default 'Error-Code' (as the envelope's) */
  codeHeader?: string | false;
  /**
   * Header carrying a new request id (`requestId()`'s `header`), which the envelope also carries
   * as `innererror.request_id`; `false` for none. The request's own id header is unread: the
   * parser stopped before it. @default 'X-Request-Id'
   */
  requestIdHeader?: string | false;
  /** `Date` in `responseDate()`'s `format`, or `false` for none. @default 'rfc3339' */
  dateFormat?: DateFormat | false;
}

/** How much of a line is kept to tell a request line from a header line. */
const LINE_HEAD = 64;

/** `GET /x` (method SP target) versus `Name: value` (RFC 9112 §3, §5). */
const REQUEST_LINE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+ /;

/** The first bytes of the line the parser is in, across the chunks of one connection. */
class LineTracker {
  head = '';

  update(chunk: Buffer): void {
    const lastLf = chunk.lastIndexOf(10);
    if (lastLf !== -1) {
      this.head = chunk.subarray(lastLf + 1, lastLf + 1 + LINE_HEAD).toString('latin1');
    } else if (this.head.length < LINE_HEAD) {
      this.head += chunk.subarray(0, LINE_HEAD - this.head.length).toString('latin1');
    }
  }

  /** The line where the parser stopped: it reads `rawPacket` before this tracker sees it. */
  lineAt(rawPacket: Buffer | undefined, bytesParsed: number | undefined): string {
    if (rawPacket === undefined) return this.head;
    const parsed = rawPacket.subarray(0, bytesParsed ?? rawPacket.length);
    const lastLf = parsed.lastIndexOf(10);
    if (lastLf !== -1)
      return parsed.subarray(lastLf + 1, lastLf + 1 + LINE_HEAD).toString('latin1');
    return this.head + parsed.subarray(0, LINE_HEAD).toString('latin1');
  }
}

const trackers = new WeakMap<Duplex, LineTracker>();

/** A response of the connection not yet finished (Node's own bookkeeping on the socket). */
function answering(socket: Duplex): boolean {
  const current = (socket as Duplex & { _httpMessage?: { writableFinished?: boolean } | null })
    ._httpMessage;
  return current != null && current.writableFinished !== true;
}

/**
 * Makes `server` answer an over-long request line with a 414 envelope (`Connection: close`)
 * and hands every other client error to `otherwise`: call it after the error envelope's
 * `attachServerErrorHandlers(server)` (whose `clientError` listener it takes over), or give
 * `otherwise`. It reads each connection's bytes as they arrive (a `data` listener, which moves
 * parsing from C++ stream consumption to JavaScript). While an answer of the connection is
 * still being written, the refusal is left to `otherwise`, which orders it after that answer.
 */
export function answerUrlOverflow<T extends Server>(
  server: T,
  options: AnswerUrlOverflowOptions,
): T {
  const checked = checkOptions<AnswerUrlOverflowOptions>('answerUrlOverflow', options, [
    'otherwise',
    'maxLength',
    'codeHeader',
    'requestIdHeader',
    'dateFormat',
  ]);
  if (checked.otherwise !== undefined && typeof checked.otherwise !== 'function') {
    throw optionError(
      'answerUrlOverflow',
      'otherwise',
      'a clientError listener',
      checked.otherwise,
    );
  }
  if (checked.maxLength === undefined) {
    throw missingOption('answerUrlOverflow', 'maxLength', 'the longest URL served');
  }
  const apiError = uriTooLong(
    positiveInteger('answerUrlOverflow', 'maxLength', checked.maxLength, 1),
  );
  const codeHeader = checked.codeHeader === undefined ? DEFAULT_CODE_HEADER : checked.codeHeader;
  if (codeHeader !== false && !isHeaderName(codeHeader)) {
    throw optionError('answerUrlOverflow', 'codeHeader', 'a header name, or false', codeHeader);
  }
  const requestIdHeader =
    checked.requestIdHeader === undefined ? DEFAULT_REQUEST_ID_HEADER : checked.requestIdHeader;
  if (requestIdHeader !== false && !isHeaderName(requestIdHeader)) {
    throw optionError(
      'answerUrlOverflow',
      'requestIdHeader',
      'a header name, or false',
      requestIdHeader,
    );
  }
  const dateFormat = checked.dateFormat === undefined ? 'rfc3339' : checked.dateFormat;
  if (dateFormat !== false && !DATE_FORMATS.includes(dateFormat)) {
    throw optionError(
      'answerUrlOverflow',
      'dateFormat',
      '"rfc3339", "imf-fixdate" or false',
      dateFormat,
    );
  }
  const formatDate = dateFormat === 'imf-fixdate' ? formatImfFixdate : formatRfc3339;
  let otherwise: ClientErrorListener;
  if (checked.otherwise !== undefined) {
    otherwise = checked.otherwise;
  } else {
    const previous = server.listeners('clientError') as ClientErrorListener[];
    if (previous.length === 0) {
      throw missingOption(
        'answerUrlOverflow',
        'otherwise',
        'a clientError listener such as clientErrorHandler(), or one registered on the server before',
      );
    }
    for (const listener of previous) server.removeListener('clientError', listener);
    otherwise = function previousClientErrorListeners(this: unknown, error, socket) {
      for (const listener of previous) listener.call(this, error, socket);
    };
  }
  const answered = new WeakSet<Duplex>();

  server.on('connection', function trackRequestLines(socket: Socket) {
    const tracker = new LineTracker();
    trackers.set(socket, tracker);
    socket.on('data', (chunk: Buffer) => tracker.update(chunk));
  });

  server.on('clientError', function answerClientError(this: unknown, error, socket: Duplex) {
    // Node's parser reports again on later bytes; the 414 already went out.
    if (answered.has(socket)) return;
    const failure = error as Error & { code?: string; rawPacket?: Buffer; bytesParsed?: number };
    const tracker = trackers.get(socket);
    if (
      failure.code !== 'HPE_HEADER_OVERFLOW' ||
      tracker === undefined ||
      !socket.writable ||
      answering(socket) ||
      !REQUEST_LINE.test(tracker.lineAt(failure.rawPacket, failure.bytesParsed))
    ) {
      otherwise.call(this, failure, socket);
      return;
    }
    answered.add(socket);
    // Every answer carries a request id and a Date, as requestId() and responseDate() give
    // those Express writes (RFC 9110 §6.6.1: an origin server with a clock sends Date on a 4xx).
    const id = requestIdHeader === false ? undefined : randomUUID();
    const envelope = apiError.toJSON();
    const body = JSON.stringify(
      id === undefined
        ? envelope
        : {
            error: {
              ...envelope.error,
              innererror: { ...envelope.error.innererror, request_id: id },
            },
          },
    );
    const head = [
      `HTTP/1.1 414 ${STATUS_CODES[414]}`,
      ...(id === undefined ? [] : [`${requestIdHeader}: ${id}`]),
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...(codeHeader === false ? [] : [`${codeHeader}: ${apiError.code}`]),
      ...(dateFormat === false ? [] : [`Date: ${formatDate(new Date())}`]),
      // The rest of the request line is still unread: the connection cannot be reused.
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
  return server;
}
