/**
 * @module JSON request bodies a JSON parser cannot read as they come: declared in ISO-8859-1, or
 * sent with `Content-Encoding: gzip`/`deflate`/`br`. They are inflated (bounded), decoded and
 * parsed here, and left on `req.body` marked as parsed, so body-parser (Express 4 and 5) and
 * json-patch-update take them as any parsed body. UTF-8, identity-coded bodies are not touched.
 */
import type { IncomingMessage } from 'node:http';
import type { Readable, Transform } from 'node:stream';
import zlib from 'node:zlib';
import { ApiError } from '@resourceful/error-envelope';
import contentType from 'content-type';
import getRawBody from 'raw-body';
import { type Charset, charsetOf } from './charsets.js';

/** `application/json` and every `+json` type (merge patch, JSON Patch, …). */
function isJsonType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

// A Map, not an object literal: the coding is the client's text, and `Content-Encoding:
// constructor` read from an object found `Object`, whose call piped the body into `{}` and
// brought the process down.
const INFLATERS: ReadonlyMap<string, () => Transform> = new Map([
  ['gzip', () => zlib.createGunzip()],
  ['x-gzip', () => zlib.createGunzip()],
  ['deflate', () => zlib.createInflate()],
  ...('createBrotliDecompress' in zlib
    ? [['br', () => zlib.createBrotliDecompress()] as const]
    : []),
]);

/** What a request body needs before a JSON parser can read it. */
export interface BodyPlan {
  readonly charset: Charset;
  readonly coding: string;
}

/**
 * As type-is's `hasBody`, which body-parser asks: `Content-Length: 0` is a body too, so an empty
 * Latin-1 body is read here (`{}`, as express.json() reads an empty UTF-8 one) rather than
 * refused by express.json() for its charset.
 */
function hasBody(req: IncomingMessage): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined
  );
}

/**
 * Whether this request's body must be read here, and how.
 * @returns undefined when the app's parser reads it as it is (no body, not JSON, UTF-8 identity)
 * @throws ApiError 415 naming `Content-Type` for a JSON body in another charset, or
 *   `Content-Encoding` for a coding that is not gzip, deflate or br
 */
export function planBody(req: IncomingMessage): BodyPlan | undefined {
  if (!hasBody(req)) return undefined;
  const header = req.headers['content-type'];
  if (header === undefined) return undefined;
  let parsed: contentType.ParsedMediaType;
  try {
    parsed = contentType.parse(header);
  } catch {
    return undefined;
  }
  if (!isJsonType(parsed.type)) return undefined;
  const declared = parsed.parameters.charset;
  const charset = declared === undefined ? 'utf-8' : charsetOf(declared);
  if (charset === undefined) {
    throw ApiError.unsupportedMediaType(
      'JSON request bodies must be UTF-8 or ISO-8859-1 (charset=iso-8859-1 or one of its registered aliases).',
      { target: 'Content-Type' },
    );
  }
  const encodings = req.headers['content-encoding'];
  const coding = encodings === undefined ? 'identity' : codingOf(encodings);
  if (coding === undefined || (coding !== 'identity' && !INFLATERS.has(coding))) {
    throw ApiError.unsupportedMediaType(
      `Request bodies may be sent with one Content-Encoding: ${[...INFLATERS.keys()].join(', ')} or identity.`,
      { target: 'Content-Encoding' },
    );
  }
  // body-parser reads an uncoded body only without Content-Encoding, with an empty one or with
  // "identity"; any other list naming no coding (`identity, `) is read here. Of the names of
  // UTF-8 it reads only `utf-8` (it refuses every charset not starting "utf-"): `us-ascii`,
  // `utf8` and `csUTF8` are read here.
  if (
    charset === 'utf-8' &&
    coding === 'identity' &&
    (encodings === undefined || encodings === '' || encodings.toLowerCase() === 'identity') &&
    (declared === undefined || declared.toLowerCase() === 'utf-8')
  ) {
    return undefined;
  }
  return { charset, coding };
}

/**
 * The coding a `Content-Encoding` list names, lower-cased: empty elements are ignored (RFC 9110
 * §5.6.1.2) and so is `identity`, which is no coding (§8.4.1); `undefined` for more than one
 * (stacked codings are not read).
 */
function codingOf(header: string): string | undefined {
  let coding = 'identity';
  for (const element of header.split(',')) {
    const name = element.trim().toLowerCase();
    if (name === '' || name === 'identity') continue;
    if (coding !== 'identity') return undefined;
    coding = name;
  }
  return coding;
}

interface RawBodyError {
  type?: string;
  status?: number;
}

/**
 * Reads, inflates and decodes the body, and parses it as JSON. The limit bounds the inflated
 * size, so a small body that inflates past it is a 413 and never fills memory.
 * @returns the parsed object or array; `{}` for a body of no bytes (after inflating, decoding and
 *   dropping a byte order mark), as express.json() reads an empty body
 * @throws ApiError 413 `PAYLOAD_TOO_LARGE` (`innererror` `{ code: 'BODY_TOO_LARGE', max_bytes }`), 400 `MALFORMED_REQUEST` (not JSON, JSON that
 *   is not an object or an array, or a corrupt compressed stream, target `Content-Encoding`),
 *   400 `INVALID_REQUEST` (aborted)
 */
export async function readPlannedBody(
  req: IncomingMessage,
  plan: BodyPlan,
  limit: number,
): Promise<unknown> {
  const inflate = INFLATERS.get(plan.coding);
  const inflater = inflate?.();
  // The coded bytes are bounded too: a stream of empty gzip members or deflate blocks inflates
  // to nothing, and would otherwise be read for as long as the client sends it.
  const received = inflater === undefined ? limit : codedLimit(limit);
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > received) {
    req.resume();
    throw tooLarge(limit);
  }
  const stopCounting =
    inflater === undefined ? undefined : countCodedBytes(req, inflater, received);
  const stream: Readable = inflater === undefined ? req : req.pipe(inflater);
  let bytes: Buffer;
  try {
    bytes = await getRawBody(stream, { limit });
  } catch (error) {
    stopCounting?.();
    if (inflater !== undefined) {
      req.unpipe(inflater);
      inflater.destroy();
    }
    req.resume();
    const cause = error as RawBodyError;
    if (cause.type === TOO_LARGE) throw tooLarge(limit);
    if (cause.type === 'request.aborted') {
      throw ApiError.invalidRequest('The request was aborted by the client.');
    }
    throw ApiError.malformedRequest(`The request body is not valid ${plan.coding} data.`, {
      target: 'Content-Encoding',
    });
  }
  stopCounting?.();
  const decoded = bytes.toString(plan.charset === 'utf-8' ? 'utf8' : 'latin1');
  // A UTF-8 byte order mark is no part of the JSON text (RFC 8259 §8.1 lets a parser ignore it);
  // express.json() drops it, so a compressed body keeps it no more than an identity one.
  const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded;
  // express.json() reads a body of no bytes as `{}` (body-parser: "a common client-side
  // mistake"), also when it inflates to none; whitespace alone is not JSON there either (400).
  if (text.length === 0) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw ApiError.malformedRequest();
  }
  // As express.json() in its default strict mode, whose 400 error-envelope words the same way:
  // a route behind it may read `req.body.name`, which `null`, sent gzipped, would make a 500.
  if (typeof parsed !== 'object' || parsed === null) {
    throw ApiError.malformedRequest('The request body must be a JSON object or array.');
  }
  return parsed;
}

/** raw-body's `type` of a body over its limit, also given to the error that ends a coded one. */
const TOO_LARGE = 'entity.too.large';

/**
 * The most coded bytes read for a body that may inflate to `limit` bytes: deflate's worst case
 * (zlib's `deflateBound`: stored blocks add about 5 bytes in 16 KiB, the gzip wrapper 18) and
 * brotli's (`BrotliEncoderMaxCompressedSize`: 4 bytes in 16 KiB) stay within this.
 */
function codedLimit(limit: number): number {
  return limit + Math.ceil(limit / 2048) + 64;
}

/**
 * Ends `inflater` with raw-body's too-large error once `req` has sent more than `bound` bytes
 * (a chunked body declares no length); returns what stops the counting.
 */
function countCodedBytes(req: IncomingMessage, inflater: Transform, bound: number): () => void {
  let counted = 0;
  const count = (chunk: Buffer) => {
    counted += chunk.length;
    if (counted > bound) {
      inflater.destroy(
        Object.assign(new Error('The coded request body is too large.'), { type: TOO_LARGE }),
      );
    }
  };
  req.on('data', count);
  return () => req.off('data', count);
}

/**
 * The 413 of a body over `limit`, worded as error-envelope answers body-parser's own refusal
 * (`entity.too.large`): the bound in the message and in `innererror.max_bytes`, so a client sees
 * one envelope whichever reader met the body.
 */
function tooLarge(limit: number): ApiError {
  return ApiError.payloadTooLarge(`The request body is larger than ${limit} bytes.`, {
    innererror: { code: 'BODY_TOO_LARGE', max_bytes: limit },
  });
}
