/**
 * @module Requests Node's HTTP parser refuses before Express sees them (headers over
 * `maxHeaderSize`, a malformed request line, a request that took too long to arrive) get the
 * envelope too, instead of Node's bare `400 Bad Request`.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ApiError } from './api-error.js';
import { checkOptions, optionError } from './check-options.js';
import { isHeaderName } from './header-checks.js';
import { DEFAULT_CODE_HEADER } from './send-error.js';

export interface ClientErrorHandlerOptions {
  /**
   * Header carrying the error code, or `false` for none.
   * @default 'Error-Code'
   */
  codeHeader?: string | false;
}

/** The status and error for a parser error code (see Node's `llhttp` error names). */
function errorFor(code: string | undefined): ApiError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      // RFC 6585 §5. The parser does not say whether the URL or a header was too long.
      return new ApiError({
        status: 431,
        code: 'INVALID_REQUEST',
        message: 'The request line or headers are larger than the service accepts.',
        innererror: { code: 'HEADERS_TOO_LARGE' },
      });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new ApiError({
        status: 408,
        code: 'INVALID_REQUEST',
        message: 'The request did not arrive in time.',
        innererror: { code: 'REQUEST_TIMEOUT' },
      });
    default:
      return ApiError.invalidRequest('The request is not valid HTTP.', {
        innererror: { code: 'MALFORMED_HTTP' },
      });
  }
}

/**
 * For `server.on('clientError', clientErrorHandler())`: answers with the envelope and closes
 * the connection. A connection that is already gone or half-answered is just destroyed.
 */
export function clientErrorHandler(options: ClientErrorHandlerOptions = {}) {
  const { codeHeader = DEFAULT_CODE_HEADER } = checkOptions('clientErrorHandler', options, [
    'codeHeader',
  ]);
  if (codeHeader !== false && (typeof codeHeader !== 'string' || !isHeaderName(codeHeader))) {
    throw optionError(
      'clientErrorHandler',
      'codeHeader',
      'a header name such as "Error-Code", or false',
      codeHeader,
    );
  }
  return function clientErrorEnvelope(error: Error & { code?: string }, socket: Duplex): void {
    // Node's own guidance: a reset socket, or one a response already started on, is not
    // written to again.
    const started = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
    if (error.code === 'ECONNRESET' || !socket.writable || started?.headersSent) {
      socket.destroy();
      return;
    }
    const apiError = errorFor(error.code);
    const body = JSON.stringify(apiError);
    const head = [
      `HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status] ?? ''}`,
      'Content-Type: application/json; charset=utf-8',
      `Content-Length: ${Buffer.byteLength(body)}`,
      ...(codeHeader === false ? [] : [`${codeHeader}: ${apiError.code}`]),
      'Connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  };
}
