/**
 * @module Capturing the response of the first run, however the handler writes it: `res.json`,
 * `res.send`, `res.write` + `res.end`, with or without `res.writeHead`.
 */
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';

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
 * Wraps `writeHead`, `write` and `end` of one response. The response itself is unchanged,
 * except that `stripHeader` never leaves.
 */
export function captureResponse(res: ServerResponse, options: CaptureOptions): void {
  const chunks: Buffer[] = [];
  let bytes = 0;
  let storable = true;
  let ended = false;

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
      if (!ended) record(args[0], args[1]);
      return write.apply(this, args);
    },
    end: function capturedEnd(this: ServerResponse, ...args: unknown[]) {
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
      stored.then(
        () => end.apply(this, args),
        () => end.apply(this, args),
      );
      return this;
    },
  });
}
