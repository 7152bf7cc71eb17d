/**
 * @module Writes an ApiError as the envelope. Used by the error handler, and by packages that
 * must answer outside an Express error chain.
 */
import type { ServerResponse } from 'node:http';
import type { ApiError } from './api-error.js';
import { isHeaderName, isHeaderValue } from './header-checks.js';

/** The header that carries the error code, so logs and proxies can read it without the body. */
export const DEFAULT_CODE_HEADER = 'Error-Code';

/**
 * Representation headers an earlier middleware may have set for the success it expected; they
 * describe a resource, not the error, so they go (RFC 9110 §8.8.3: no ETag on error responses).
 */
const REPRESENTATION_HEADERS = [
  'ETag',
  'Last-Modified',
  'Location',
  'Content-Location',
  'Content-Disposition',
  'Content-Encoding',
  'Content-Language',
  'Content-Range',
  'Content-Length',
  'Preference-Applied',
] as const;

export interface SendErrorOptions {
  /** Header name for the code, or `false` for none. Default `Error-Code`. */
  codeHeader?: string | false;
}

export function sendError(res: ServerResponse, error: ApiError, options: SendErrorOptions = {}) {
  const codeHeader = options.codeHeader ?? DEFAULT_CODE_HEADER;
  for (const name of REPRESENTATION_HEADERS) res.removeHeader(name);
  for (const [name, value] of Object.entries(error.headers)) {
    // node:http throws on an invalid header; skipping it keeps the envelope (and no CR/LF).
    if (isHeaderName(name) && isHeaderValue(value)) res.setHeader(name, value);
  }
  if (codeHeader !== false && isHeaderName(codeHeader) && isHeaderValue(error.code)) {
    res.setHeader(codeHeader, error.code);
  }
  const body = serialise(error);
  res.statusCode = error.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(res.req?.method === 'HEAD' ? undefined : body);
}

/**
 * The envelope as JSON. When `details` or `innererror` hold what JSON cannot write (a BigInt, a
 * cycle), they are dropped: the client still gets the status, code, message and target.
 */
function serialise(error: ApiError): string {
  try {
    return JSON.stringify(error);
  } catch {
    const { code, message, target } = error;
    return JSON.stringify({
      error: target === undefined ? { code, message } : { code, message, target },
    });
  }
}
