/**
 * @module Capturing the response of the first run, however the handler writes it: `res.json`,
 * `res.send`, `res.write` + `res.end`, with or without `res.writeHead`.
 */

import { type OutgoingHttpHeaders, OutgoingMessage, type ServerResponse } from 'node:http';
import { shareShape } from '@resourceful/application-hooks';
import { wasCutByErrorHandler } from '@resourceful/error-envelope';

export interface CapturedResponse {
  readonly status: number;
  /** Lower-case names; only the headers asked for. */
  readonly headers: Record<string, string | string[]>;
  /**
   * The body, or null when it exceeded the byte limit, could not be read, or reached the
   * capture already encoded (`Content-Encoding`).
   */
  readonly body: Buffer | null;
}

/**
 * Where captured responses go: one object per middleware, shared by every response it captures
 * (each response carries only its own `context`).
 */
export interface CaptureSink<Context> {
  readonly maxBodyBytes: number;
  /** Removed before the head is written: only a replay may carry it. */
  readonly stripHeader: string;
  /**
   * Receives the response when the handler ends it. When it returns a promise, the response is
   * finished only once that settles, so a client that reads the response and sends the request
   * again finds the outcome stored (not still "in progress").
   */
  onEnd(context: Context, captured: CapturedResponse): void | Promise<void>;
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

/**
 * Whether the bytes reaching the capture are already encoded: a `Content-Encoding` set before
 * the head passed through it (by the handler, or by an encoder mounted after the middleware).
 * The header is never replayed (it belongs to one negotiation), so neither are such bytes. An
 * encoder mounted before the middleware sets it below the capture, when the head goes on to
 * it, and encodes the stored plain bytes again on a replay.
 */
function encodedAbove(res: ServerResponse): boolean {
  const coding = res.getHeader('content-encoding');
  return coding !== undefined && String(coding).trim().toLowerCase() !== 'identity';
}

function joined(chunks: readonly Buffer[]): Buffer {
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** A copy of the chunk as bytes (never the caller's own Buffer). */
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
function showAsFinished(res: ServerResponse): void {
  // Own accessors that defer to Node's once released, rather than properties deleted afterwards:
  // a delete turns the response into a dictionary-mode object. One shared pair of getters for
  // every response, so V8 gives all held responses one object shape.
  if (!Object.hasOwn(res, 'headersSent')) Object.defineProperties(res, HELD_ACCESSORS);
}

function heldAccessor(name: 'headersSent' | 'writableEnded'): PropertyDescriptor {
  const inherited = Object.getOwnPropertyDescriptor(OutgoingMessage.prototype, name)?.get;
  return {
    configurable: true,
    enumerable: false,
    get(this: ServerResponse) {
      for (let state = stateOf(this); state !== undefined; state = state.nested) {
        if (state.late !== undefined) return true;
      }
      return inherited?.call(this) === true;
    },
  };
}

const HELD_ACCESSORS: PropertyDescriptorMap = {
  headersSent: heldAccessor('headersSent'),
  writableEnded: heldAccessor('writableEnded'),
};

/** What the shared wrappers below know about one captured response. */
interface CaptureState {
  readonly sink: CaptureSink<unknown>;
  readonly context: unknown;
  /** Lower-case names of the headers to keep. */
  readonly keep: readonly string[];
  /** The methods the response had before it was captured (Node's, or an earlier wrapper). */
  readonly writeHead: Method;
  readonly write: Method;
  readonly end: Method;
  chunks: Buffer[];
  bytes: number;
  storable: boolean;
  /** The bytes that reach the capture are encoded (see `encodedAbove`): any is unstorable. */
  encoded: boolean;
  ended: boolean;
  /** Calls made while the end is held back; run, in order, after it. */
  late: [Method, unknown[]][] | undefined;
  /** The state of a second capture of the same response (see `captureResponse`). */
  nested: CaptureState | undefined;
}

/**
 * The key of a captured response's state, a property of the response. Added after `shareShape`,
 * it builds no hidden class of its own (a `WeakMap` entry, which this was, costs more: the
 * collector treats every entry as an ephemeron).
 */
const STATE = Symbol('resourceful.idempotency.capture');

type Captured = ServerResponse & { [STATE]?: CaptureState };

function stateOf(res: ServerResponse): CaptureState | undefined {
  return (res as Captured)[STATE];
}

/** The body is not kept for replay (a repeat then gets `RESPONSE_NOT_REPLAYABLE`). */
function unstorable(state: CaptureState): void {
  state.storable = false;
  state.chunks.length = 0;
}

function record(state: CaptureState, chunk: unknown, encoding: unknown): void {
  if (!state.storable || chunk === undefined || chunk === null || typeof chunk === 'function') {
    return;
  }
  let buffer: Buffer | undefined;
  try {
    buffer = toBuffer(chunk, encoding);
  } catch {
    buffer = undefined;
  }
  if (
    buffer === undefined ||
    state.bytes + buffer.length > state.sink.maxBodyBytes ||
    (state.encoded && buffer.length > 0)
  ) {
    unstorable(state);
    return;
  }
  state.bytes += buffer.length;
  state.chunks.push(buffer);
}

// What the wrappers do, given the state of the capture they belong to.

function writeHeadWith(
  res: ServerResponse,
  state: CaptureState,
  statusCode: unknown,
  second?: unknown,
  third?: unknown,
) {
  if (state.late !== undefined) {
    // What Node does once a response has ended.
    throw Object.assign(new Error('Cannot write headers after they are sent to the client'), {
      code: 'ERR_HTTP_HEADERS_SENT',
    });
  }
  const reason = typeof second === 'string' ? second : undefined;
  if (!res.headersSent) {
    const headers = reason === undefined ? second : third;
    if (headers !== undefined) applyHeaderArgument(res, headers);
    res.removeHeader(state.sink.stripHeader);
    if (encodedAbove(res)) state.encoded = true;
  }
  return reason === undefined
    ? state.writeHead.call(res, statusCode)
    : state.writeHead.call(res, statusCode, reason);
}

function writeWith(res: ServerResponse, state: CaptureState, args: unknown[]) {
  if (state.late !== undefined) {
    state.late.push([state.write, args]);
    return true;
  }
  if (!state.ended) {
    if (!res.headersSent && encodedAbove(res)) state.encoded = true;
    record(state, args[0], args[1]);
  }
  return state.write.apply(res, args);
}

/** The headers to keep, read one by one (not `getHeaders()`, which copies them all). */
function keptHeaders(res: ServerResponse, keep: readonly string[]) {
  const headers: Record<string, string | string[]> = {};
  for (const name of keep) {
    const value = res.getHeader(name);
    if (value !== undefined)
      headers[name] = Array.isArray(value) ? value.map(String) : String(value);
  }
  return headers;
}

function endWith(res: ServerResponse, state: CaptureState, args: unknown[]) {
  if (state.late !== undefined) {
    state.late.push([state.end, args]);
    return res;
  }
  if (state.ended) return state.end.apply(res, args);
  if (!res.headersSent) {
    res.removeHeader(state.sink.stripHeader);
    if (encodedAbove(res)) state.encoded = true;
  } else if (res.destroyed && wasCutByErrorHandler(res)) {
    // A response already under way that the error handler cut: whatever ends it now, its
    // answer is no answer. Not stored; the lock renewer gives the id back (only a response
    // whose head went out before its end, a streamed one, gets here).
    abandonCapture(res);
    return state.end.apply(res, args);
  }
  state.ended = true;
  record(state, args[0], args[1]);
  const captured: CapturedResponse = {
    status: res.statusCode,
    headers: keptHeaders(res, state.keep),
    // Every chunk is already a copy of its own (see toBuffer), so the app changing a Buffer
    // after writing it cannot change what is stored; one chunk (the common `res.end(body)`)
    // is not copied again.
    body: state.storable ? joined(state.chunks) : null,
  };
  const stored = state.sink.onEnd(state.context, captured);
  if (stored === undefined) return state.end.apply(res, args);
  hold(res, state, captured.status, args, stored);
  return res;
}

// One set of wrappers shared by every captured response, each reading the response's state:
// closures made per response cost an allocation each on every request.

function capturedWriteHead(
  this: ServerResponse,
  statusCode: unknown,
  second?: unknown,
  third?: unknown,
) {
  return writeHeadWith(this, stateOf(this)!, statusCode, second, third);
}

function capturedWrite(this: ServerResponse, ...args: unknown[]) {
  return writeWith(this, stateOf(this)!, args);
}

function capturedEnd(this: ServerResponse, ...args: unknown[]) {
  return endWith(this, stateOf(this)!, args);
}

/** Sends the held end once `stored` settles, then the calls made meanwhile. */
function hold(
  res: ServerResponse,
  state: CaptureState,
  status: number,
  args: unknown[],
  stored: Promise<void>,
): void {
  const held: [Method, unknown[]][] = [];
  state.late = held;
  showAsFinished(res);
  const finish = () => {
    state.late = undefined;
    // The status that was stored is the one sent, whatever was set on `res` meanwhile.
    if (!res.headersSent) res.statusCode = status;
    state.end.apply(res, args);
    for (const [method, late] of held) method.apply(res, late);
  };
  stored.then(finish, finish);
}

/**
 * Gives up every capture of `res`: nothing it writes from now on is stored, and an `end` goes
 * straight on to the response. For a response the error handler cut, whose lock was given back:
 * were the handler to end it after all (a stream piped into it that ends), its truncated body
 * must not become the id's answer.
 */
export function abandonCapture(res: ServerResponse): void {
  for (let state = stateOf(res); state !== undefined; state = state.nested) {
    state.ended = true;
    unstorable(state);
  }
}

/**
 * Wraps `writeHead`, `write` and `end` of one response, and keeps the capture's state on it under
 * a symbol of this module. The response itself is unchanged, except that `stripHeader` never
 * leaves. `keep`: lower-case names of the headers to capture.
 */
export function captureResponse<Context>(
  res: ServerResponse,
  sink: CaptureSink<Context>,
  keep: readonly string[],
  context: Context,
): void {
  const state: CaptureState = {
    sink: sink as CaptureSink<unknown>,
    context,
    keep,
    writeHead: res.writeHead as Method,
    write: res.write as Method,
    end: res.end as Method,
    chunks: [],
    bytes: 0,
    storable: true,
    encoded: false,
    ended: false,
    late: undefined,
    nested: undefined,
  };
  const first = stateOf(res);
  if (first === undefined) {
    // Before the capture's own properties: one hidden class for every such response (V8 < 13).
    shareShape(res);
    (res as Captured)[STATE] = state;
    res.writeHead = capturedWriteHead as ServerResponse['writeHead'];
    res.write = capturedWrite as ServerResponse['write'];
    res.end = capturedEnd as ServerResponse['end'];
    return;
  }
  // Captured again (a second `serviceRequestIdempotency()` on the request's way, in a sub-app,
  // say): the shared wrappers find the first capture's state, so this one's wrappers are
  // closures over its own, and call the first capture's as they would any earlier wrapper.
  let last = first;
  while (last.nested !== undefined) last = last.nested;
  last.nested = state;
  res.writeHead = function capturedAgainWriteHead(
    this: ServerResponse,
    statusCode: unknown,
    second?: unknown,
    third?: unknown,
  ) {
    return writeHeadWith(this, state, statusCode, second, third);
  } as ServerResponse['writeHead'];
  res.write = function capturedAgainWrite(this: ServerResponse, ...args: unknown[]) {
    return writeWith(this, state, args);
  } as ServerResponse['write'];
  res.end = function capturedAgainEnd(this: ServerResponse, ...args: unknown[]) {
    return endWith(this, state, args);
  } as ServerResponse['end'];
}
