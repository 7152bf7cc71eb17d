/**
 * @module Reading a JSON request body with a size limit, unless a body parser already did. The
 * stream is read with `raw-body`, as body-parser reads it, and failures are body-parser's own
 * errors (`type` `entity.too.large`, `request.aborted`, `charset.unsupported`,
 * `entity.parse.failed` …), so error-envelope maps them once, whichever of the two read the body.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import createError from 'http-errors';
import getRawBody from 'raw-body';
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

function emptyBody(): ApiError {
  return ApiError.malformedRequest('The request body is empty.');
}

/**
 * Returns the parsed JSON body: `req.body` when a parser already read it, else the stream read
 * here (identity encoding, UTF-8, at most `limit` bytes).
 * @throws body-parser's errors: 413 `entity.too.large`, 415 `encoding.unsupported` and
 *   `charset.unsupported`, 400 `entity.parse.failed`, `request.aborted`,
 *   `request.size.invalid`; ApiError 400 `MALFORMED_REQUEST` for an empty body
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const declared = Number(req.headers['content-length']);
  // Also when a parser with a larger limit already read it: this resource's limit holds.
  if (Number.isFinite(declared) && declared > limit) {
    throw createError(413, 'request entity too large', {
      expected: declared,
      length: declared,
      limit,
      type: 'entity.too.large',
    });
  }
  const already = parsedBody(req);
  if (already.parsed) {
    // body-parser reads a request without content as `{}`, which a PUT would store as the whole
    // resource: without content it is the same client mistake as when the body is read here.
    if (
      declared === 0 ||
      (Number.isNaN(declared) && req.headers['transfer-encoding'] === undefined)
    ) {
      throw emptyBody();
    }
    return already.body;
  }

  // body-parser inflates gzip and deflate; a PATCH is small, so this package reads identity only.
  const encoding = (req.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
  if (encoding !== 'identity') {
    throw createError(415, `unsupported content encoding "${encoding}"`, {
      encoding,
      type: 'encoding.unsupported',
    });
  }
  const charset = contentTypeOf(req)?.charset ?? 'utf-8';
  if (!UTF8.has(charset)) {
    throw createError(415, `unsupported charset "${charset.toUpperCase()}"`, {
      charset,
      type: 'charset.unsupported',
    });
  }
  // A stream some other middleware read without leaving a body is an empty body here.
  const text = req.readableEnded
    ? ''
    : await getRawBody(req, {
        length: req.headers['content-length'],
        limit,
        encoding: 'utf-8',
      });
  // A PATCH or PUT without content is a client mistake (body-parser would read it as `{}`).
  if (text.trim() === '') throw emptyBody();
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw createError(400, error as Error, { body: text, type: 'entity.parse.failed' });
  }
}
