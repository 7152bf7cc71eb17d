/**
 * @module Reading a JSON request body with a size limit, unless a body parser already did.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import { contentTypeOf } from './media-types.js';

const UTF8 = new Set(['utf-8', 'utf8']);

/**
 * Whether a body parser already read the stream into `req.body`: body-parser 1 (Express 4)
 * marks the request with `_body`; body-parser 2 (Express 5) leaves a consumed stream.
 */
function parsedBody(req: IncomingMessage): { parsed: boolean; body: unknown } {
  const marked = req as IncomingMessage & { _body?: unknown; body?: unknown };
  const consumed = req.readableEnded || (req.complete && !req.readable);
  return {
    parsed: marked._body === true || (consumed && marked.body !== undefined),
    body: marked.body,
  };
}

/**
 * Returns the parsed JSON body: `req.body` when a parser already read it, else the stream read
 * here (identity encoding, UTF-8, at most `limit` bytes).
 * @throws ApiError 413 `PAYLOAD_TOO_LARGE`, 415 `UNSUPPORTED_MEDIA_TYPE` (charset or encoding),
 *   400 `MALFORMED_REQUEST` (empty or not JSON), 400 `INVALID_REQUEST` (aborted)
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const already = parsedBody(req);
  if (already.parsed) return already.body;

  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    throw ApiError.unsupportedMediaType('Compressed PATCH and PUT bodies are not supported.', {
      target: 'Content-Encoding',
    });
  }
  const charset = contentTypeOf(req)?.charset;
  if (charset !== undefined && !UTF8.has(charset)) {
    throw ApiError.unsupportedMediaType('JSON bodies must be UTF-8.', { target: 'Content-Type' });
  }
  const text = await readText(req, limit);
  if (text.trim() === '') throw ApiError.malformedRequest('The request body is empty.');
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw ApiError.malformedRequest();
  }
}

function tooLarge(limit: number): ApiError {
  return ApiError.payloadTooLarge(`The request body is larger than ${limit} bytes.`);
}

function readText(req: IncomingMessage, limit: number): Promise<string> {
  if (req.readableEnded) return Promise.resolve('');
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
    };
    const fail = (error: ApiError) => {
      cleanup();
      // Discard the rest so the connection can still carry the error response.
      req.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) fail(tooLarge(limit));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const onError = () => fail(ApiError.invalidRequest('The request body could not be read.'));
    const onClose = () => fail(ApiError.invalidRequest('The request was aborted by the client.'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}
