/**
 * @module Capturing the response of the first run, however the handler writes it: `res.json`,
 * `res.send`, `res.write` + `res.end`, with or without `res.writeHead`.
 */
import { type OutgoingHttpHeaders, OutgoingMessage, type ServerResponse } from 'node:http';

export interface CapturedResponse {
  readonly status: number;
  /** Lower-case names; only the headers asked for. */
  readonly headers: Record<string, string | string[]>;
  /** The body, or null when it exceeded the byte limit (or could not be read). */
  readonly body: Buffer | null;
}

export interface CaptureOptions {
  readonly maxBodyBytes: number;
  /** Lower-case names of the headers to keep. */
  readonly keepHeaders: ReadonlySet<string>;
  /** Removed before the head is written: only a replay may carry it. */
  readonly stripHeader: string;
  /**
   * Receives the response when the handler ends it. When it returns a promise, the response is
   * finished only once that settles, so a client that reads the response and sends the request
   * again finds the outcome stored (not still "in progress").
   */
  readonly onEnd: (captured: CapturedResponse) => void | Promise<void>;
}

type Method = (...args: unknown[]) => unknown;

/** Headers given to `writeHead` as an object, a flat `[k, v, …]` list, or `[[k, v], …]`. */
function applyHeaderArgument(res: ServerResponse, headers: unknown): void {
  if (Array.isArray(headers)) {
    const grouped = new Map<string, { name: string; values: string[] }>();
    const pairs: unknown[][] = Array.isArray(headers[0])
      ? (headers as unknown[][])
      : Array.from({ length: Math.floor(headers.length / 2) }, (_, i) => [
          headers[2 * i],
          headers[2 * i + 1],
        ]);
    for (const [name, value] of pairs) {
      if (typeof name !== 'string' || value === undefined) continue;
      const entry = grouped.get(name.toLowerCase()) ?? { name, values: [] };
      entry.values.push(...(Array.isArray(value) ? value.map(String) : [String(value)]));
      grouped.set(name.toLowerCase(), entry);
    }
    for (const { name, values } of grouped.values()) {
      res.setHeader(name, values.length === 1 ? values[0]! : values);
    }
  } else if (typeof headers === 'object' && headers !== null) {
    for (const [name, value] of Object.entries(headers as OutgoingHttpHeaders)) {
      if (value !== undefined) res.setHeader(name, value);
    }
  }
}

function toBuffer(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (typeof chunk === 'string') {
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  }
  if (chunk instanceof Uint8Array) return Buffer.from(chunk);
  return undefined;
}

/**
 * While `onEnd`'s promise is pending the response is held back, yet to the app it must look
 * finished: an error raised after the handler responded would otherwise make the error handler
 * see `headersSent === false` and send a second response over the first (and Node would then
 * throw "write after end" when the held end is released).
 */
function showAsFinished(res: ServerResponse): () => void {
  const held = res as Held;
  held[HELD] = true;
  // Own accessors that defer to Node's once released, rather than properties deleted afterwards:
  // a delete turns the response into a dictionary-mode object. One shared pair of getters for
  // every response, so V8 gives all held responses one object shape.
  if (!Object.hasOwn(res, 'headersSent')) Object.defineProperties(res, HELD_ACCESSORS);
  return () => {
    held[HELD] = false;
  };
}

const HELD = Symbol('held by service-request-idempotency');
type Held = ServerResponse & { [HELD]?: boolean };

function heldAccessor(name: 'headersSent' | 'writableEnded'): PropertyDescriptor {
  const inherited = Object.getOwnPropertyDescriptor(OutgoingMessage.prototype, name)?.get;
  return {
    configurable: true,
    enumerable: false,
    get(this: Held) {
      return this[HELD] === true || inherited?.call(this) === true;
    },
  };
}

const HELD_ACCESSORS: PropertyDescriptorMap = {
  headersSent: heldAccessor('headersSent'),
  writableEnded: heldAccessor('writableEnded'),
};

/**
 * Wraps `writeHead`, `write` and `end` of one response. The response itself is unchanged,
 * except that `stripHeader` never leaves.
 */
export function captureResponse(res: ServerResponse, options: CaptureOptions): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let storable = true;
  let ended = false;
  /** Calls made while the end is held back; run, in order, after it. */
  let late: (() => void)[] | undefined;

  function record(chunk: unknown, encoding: unknown): void {
    if (!storable || chunk === undefined || chunk === null || typeof chunk === 'function') return;
    let buffer: Buffer | undefined;
    try {
      buffer = toBuffer(chunk, encoding);
    } catch {
      buffer = undefined;
    }
    if (buffer === undefined || bytes + buffer.length > options.maxBodyBytes) {
      storable = false;
      chunks.length = 0;
      return;
    }
    bytes += buffer.length;
    chunks.push(buffer);
  }

  const writeHead = res.writeHead as Method;
  const write = res.write as Method;
  const end = res.end as Method;

  Object.assign(res, {
    writeHead: function capturedWriteHead(this: ServerResponse, ...args: unknown[]) {
      if (late !== undefined) {
        // What Node does once a response has ended.
        throw Object.assign(new Error('Cannot write headers after they are sent to the client'), {
          code: 'ERR_HTTP_HEADERS_SENT',
        });
      }
      const [status, second, third] = args;
      const reason = typeof second === 'string' ? second : undefined;
      if (!res.headersSent) {
        applyHeaderArgument(res, reason === undefined ? second : third);
        res.removeHeader(options.stripHeader);
      }
      return reason === undefined
        ? writeHead.call(this, status)
        : writeHead.call(this, status, reason);
    },
    write: function capturedWrite(this: ServerResponse, ...args: unknown[]) {
      if (late !== undefined) {
        late.push(() => write.apply(this, args));
        return true;
      }
      if (!ended) record(args[0], args[1]);
      return write.apply(this, args);
    },
    end: function capturedEnd(this: ServerResponse, ...args: unknown[]) {
      if (late !== undefined) {
        late.push(() => end.apply(this, args));
        return this;
      }
      if (ended) return end.apply(this, args);
      ended = true;
      record(args[0], args[1]);
      if (!res.headersSent) res.removeHeader(options.stripHeader);
      const headers: Record<string, string | string[]> = {};
      for (const [name, value] of Object.entries(res.getHeaders())) {
        if (value !== undefined && options.keepHeaders.has(name)) {
          headers[name] = Array.isArray(value) ? value.map(String) : String(value);
        }
      }
      const captured: CapturedResponse = {
        status: res.statusCode,
        headers,
        body: storable ? Buffer.concat(chunks) : null,
      };
      const stored = options.onEnd(captured);
      if (stored === undefined) return end.apply(this, args);
      const held: (() => void)[] = [];
      late = held;
      const restore = showAsFinished(res);
      const finish = () => {
        late = undefined;
        restore();
        // The status that was stored is the one sent, whatever was set on `res` meanwhile.
        if (!res.headersSent) res.statusCode = captured.status;
        end.apply(this, args);
        for (const call of held) call();
      };
      stored.then(finish, finish);
      return this;
    },
  });
}
