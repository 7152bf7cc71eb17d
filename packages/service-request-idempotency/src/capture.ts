/**
 * @module Capturing the response of the first run, however the handler writes it: `res.json`,
 * `res.send`, `res.write` + `res.end`, with or without `res.writeHead`.
 */
import {
  type IncomingMessage,
  type OutgoingHttpHeaders,
  OutgoingMessage,
  type ServerResponse,
} from 'node:http';

export interface CapturedResponse {
  readonly status: number;
  /** Lower-case names; only the headers asked for. */
  readonly headers: Record<string, string | string[]>;
  /** The body, or null when it exceeded the byte limit (or could not be read). */
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
      const state = states.get(this) ?? hooked.get(this);
      return state?.late !== undefined || inherited?.call(this) === true;
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
  writeHead: Method;
  write: Method;
  end: Method;
  chunks: Buffer[];
  bytes: number;
  storable: boolean;
  ended: boolean;
  /** Calls made while the end is held back; run, in order, after it. */
  late: [Method, unknown[]][] | undefined;
}

/**
 * The state of each captured response. Not a property of the response: every property added
 * to an Express response costs V8 a copy of its object shape (Express sets the response's
 * prototype per request, so no two responses share one), about as much as the rest of the
 * capture; a `WeakMap` entry costs a fraction of that.
 */
const states = new WeakMap<ServerResponse, CaptureState>();

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
  if (buffer === undefined || state.bytes + buffer.length > state.sink.maxBodyBytes) {
    state.storable = false;
    state.chunks.length = 0;
    return;
  }
  state.bytes += buffer.length;
  state.chunks.push(buffer);
}

// The capture itself, given the response's state: called by the per-response wrappers and by
// the methods shared through the app's `response` object alike.

function writeHeadWith(
  res: ServerResponse,
  state: CaptureState,
  statusCode: unknown,
  second: unknown,
  third: unknown,
): unknown {
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
  }
  return reason === undefined
    ? state.writeHead.call(res, statusCode)
    : state.writeHead.call(res, statusCode, reason);
}

function writeWith(res: ServerResponse, state: CaptureState, args: ArrayLike<unknown>): unknown {
  if (state.late !== undefined) {
    state.late.push([state.write, Array.from(args)]);
    return true;
  }
  if (!state.ended) record(state, args[0], args[1]);
  return Reflect.apply(state.write, res, args);
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

function endWith(res: ServerResponse, state: CaptureState, args: ArrayLike<unknown>): unknown {
  if (state.late !== undefined) {
    state.late.push([state.end, Array.from(args)]);
    return res;
  }
  if (state.ended) return Reflect.apply(state.end, res, args);
  state.ended = true;
  record(state, args[0], args[1]);
  if (!res.headersSent) res.removeHeader(state.sink.stripHeader);
  const captured: CapturedResponse = {
    status: res.statusCode,
    headers: keptHeaders(res, state.keep),
    // Every chunk is already a copy of its own (see toBuffer), so the app changing a Buffer
    // after writing it cannot change what is stored; one chunk (the common `res.end(body)`)
    // is not copied again.
    body: state.storable ? joined(state.chunks) : null,
  };
  const stored = state.sink.onEnd(state.context, captured);
  if (stored === undefined) return Reflect.apply(state.end, res, args);
  hold(res, state, captured.status, Array.from(args), stored);
  return res;
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

// The per-response wrappers: own methods of one response, each reading the response's state
// (closures made per response would cost an allocation each on every request).

function capturedWriteHead(
  this: ServerResponse,
  statusCode: unknown,
  second?: unknown,
  third?: unknown,
) {
  return writeHeadWith(this, states.get(this)!, statusCode, second, third);
}

function capturedWrite(this: ServerResponse) {
  // `arguments` passes on exactly what the caller gave, without the array a rest parameter
  // would allocate.
  // biome-ignore lint/complexity/noArguments: forwarding, see above
  return writeWith(this, states.get(this)!, arguments);
}

function capturedEnd(this: ServerResponse) {
  // biome-ignore lint/complexity/noArguments: forwarding, see above
  return endWith(this, states.get(this)!, arguments);
}

function ownWrappers(res: ServerResponse, state: CaptureState): void {
  states.set(res, state);
  res.writeHead = capturedWriteHead as ServerResponse['writeHead'];
  res.write = capturedWrite as ServerResponse['write'];
  res.end = capturedEnd as ServerResponse['end'];
}

/*
 * The shared path. Three own methods per response cost more than the rest of the capture:
 * Express gives every response its app's prototype, after which V8 shares no hidden-class
 * transition between responses, so each property added to one builds a hidden class for it
 * alone (a copy of the descriptors of its forty-odd properties). So in an Express app the
 * three methods below are defined once, on the `response` object of the app at the top of the
 * tree (never on Express's own `express.response`, which every app in the process shares): a
 * sub-app mounted with `app.use` has a `response` that inherits from its parent's (Express links
 * them when it mounts it), so the methods are found whichever app of the tree answers, and
 * Express's prototype swaps on entering and leaving a sub-app do not lose them. They look the
 * response up in a `WeakMap`: a response nothing captures goes straight to the method it would
 * have called without them.
 *
 * Where that would not reach the response as surely as its own methods do, the response gets
 * its own wrappers, as before: a response with no Express app, one whose `writeHead`, `write` or
 * `end` is found before the app's `response` (a middleware such as `compression` replaced it,
 * or another `serviceRequestIdempotency()` captures the response already), an app whose
 * `response` defines one of them itself, and every response of a middleware that once saw a
 * response bypass the shared methods (see `sharedFinish`).
 */

/** The state of each response captured through the shared methods. */
const hooked = new WeakMap<ServerResponse, CaptureState>();

function sharedWriteHead(
  this: ServerResponse,
  statusCode: unknown,
  second?: unknown,
  third?: unknown,
): unknown {
  const state = hooked.get(this);
  if (state !== undefined) return writeHeadWith(this, state, statusCode, second, third);
  // biome-ignore lint/complexity/noArguments: forwarding exactly what the caller gave
  return Reflect.apply(inherited(this, 'writeHead'), this, arguments);
}

function sharedWrite(this: ServerResponse): unknown {
  const state = hooked.get(this);
  // biome-ignore lint/complexity/noArguments: forwarding exactly what the caller gave
  if (state !== undefined) return writeWith(this, state, arguments);
  // biome-ignore lint/complexity/noArguments: forwarding exactly what the caller gave
  return Reflect.apply(inherited(this, 'write'), this, arguments);
}

function sharedEnd(this: ServerResponse): unknown {
  const state = hooked.get(this);
  // biome-ignore lint/complexity/noArguments: forwarding exactly what the caller gave
  if (state !== undefined) return endWith(this, state, arguments);
  // biome-ignore lint/complexity/noArguments: forwarding exactly what the caller gave
  return Reflect.apply(inherited(this, 'end'), this, arguments);
}

type Captured = 'writeHead' | 'write' | 'end';
const CAPTURED: readonly Captured[] = ['writeHead', 'write', 'end'];
const SHARED: Readonly<Record<Captured, Method>> = {
  writeHead: sharedWriteHead,
  write: sharedWrite,
  end: sharedEnd,
};

/**
 * The method the response would call without the shared ones: the first definition up its
 * prototype chain that is not one of them (an app tree mounted into another one that also uses
 * the middleware has them on two `response` objects).
 */
function inherited(res: ServerResponse, name: Captured): Method {
  for (
    let at: object | null = Object.getPrototypeOf(res);
    at !== null;
    at = Object.getPrototypeOf(at)
  ) {
    if (Object.hasOwn(at, name)) {
      const value = (at as Record<Captured, unknown>)[name];
      if (value !== SHARED[name] && typeof value === 'function') return value as Method;
    }
  }
  // Unreachable for a ServerResponse (Node defines all three); a clear error otherwise.
  throw new TypeError(`the response has no ${name} method`);
}

function reachesShared(res: ServerResponse): boolean {
  return res.end === sharedEnd && res.write === sharedWrite && res.writeHead === sharedWriteHead;
}

interface ExpressApp {
  handle: unknown;
  set: unknown;
  parent?: unknown;
  response?: unknown;
}

function isExpressApp(value: unknown): value is ExpressApp {
  return (
    typeof value === 'function' &&
    typeof (value as Partial<ExpressApp>).handle === 'function' &&
    typeof (value as Partial<ExpressApp>).set === 'function'
  );
}

/** `response` objects that define one of the methods themselves: nothing is put there. */
const declined = new WeakSet<object>();

/**
 * Puts the shared methods on the `response` of the app at the top of `req.app`'s tree, once.
 * True when the response now reaches them (nothing before that object defines them).
 */
function reachesSharedAfterInstalling(req: IncomingMessage, res: ServerResponse): boolean {
  const app: unknown = (req as IncomingMessage & { app?: unknown }).app;
  if (!isExpressApp(app)) return false;
  let top: ExpressApp = app;
  while (isExpressApp(top.parent)) top = top.parent;
  const response = top.response;
  if (typeof response !== 'object' || response === null || declined.has(response)) return false;
  const installed =
    Object.hasOwn(response, 'end') && (response as Record<Captured, unknown>).end === sharedEnd;
  if (!installed) {
    if (CAPTURED.some((name) => Object.hasOwn(response, name))) {
      declined.add(response);
      return false;
    }
    // Not enumerable: code that lists an app's response methods sees Express's alone.
    for (const name of CAPTURED) {
      Object.defineProperty(response, name, {
        value: SHARED[name],
        writable: true,
        configurable: true,
        enumerable: false,
      });
    }
  }
  return reachesShared(res);
}

/** Sinks that saw a response bypass the shared methods: their responses get own wrappers. */
const bypassedBy = new WeakSet<CaptureSink<unknown>>();

/**
 * The safety net of the shared path, a listener of every response captured through it. A
 * response can still leave without passing the shared methods when, between this middleware and
 * the handler, the request enters an Express app that was not mounted with `app.use` (an app
 * given to `router.use()` or as a route handler: Express then gives the response that app's
 * prototype, which does not inherit from the one the methods are on), or an app whose
 * `response` defines its own `end` that does not call on, and that app answers before the
 * middleware's `next()` returns (else `captureAfterNext` has given the response its own
 * wrappers). Nothing of the body is seen then; what is stored is that the request ran, with its
 * status and no body, so a repeat is refused (409, as for a body over `maxBodyBytes`) rather
 * than run a second time or left waiting for the lock to expire. The middleware gives every
 * later response its own wrappers, which see every byte whatever app answers, and says so once
 * in a process warning.
 */
function sharedFinish(this: ServerResponse): void {
  const state = hooked.get(this);
  if (state === undefined || state.ended) return;
  state.ended = true;
  const sink = state.sink;
  if (!bypassedBy.has(sink)) {
    bypassedBy.add(sink);
    process.emitWarning(
      'A response left without passing serviceRequestIdempotency(): the request entered an Express app not mounted with app.use() (or one whose response replaces end). Its outcome is stored without a body, so a repeat is refused (409); from now on this middleware wraps every response it captures, which sees every byte whatever app answers.',
      { code: 'RESOURCEFUL_IDEMPOTENCY_CAPTURE_BYPASSED' },
    );
  }
  void sink.onEnd(state.context, {
    status: this.statusCode,
    headers: keptHeaders(this, state.keep),
    body: null,
  });
}

/**
 * Called once the middleware's `next()` has returned: when the request has by then entered an
 * app whose responses do not reach the shared methods (see `sharedFinish`) and nothing of the
 * answer has been written yet (the handler is waiting on something, as most do), the response
 * gets its own wrappers now, which see the whole answer. When something was written already,
 * the safety net at `finish` takes over.
 */
export function captureAfterNext(res: ServerResponse): void {
  const state = hooked.get(res);
  if (state === undefined || state.ended || res.headersSent || reachesShared(res)) return;
  hooked.delete(res);
  state.writeHead = res.writeHead as Method;
  state.write = res.write as Method;
  state.end = res.end as Method;
  ownWrappers(res, state);
}

/**
 * Captures what the handler writes on `res`: `writeHead`, `write` and `end`, through the methods
 * shared by the app's responses where they reach it, else through wrappers of its own. The
 * response itself is unchanged, except that `stripHeader` never leaves. `keep`: lower-case
 * names of the headers to capture.
 */
export function captureResponse<Context>(
  req: IncomingMessage,
  res: ServerResponse,
  sink: CaptureSink<Context>,
  keep: readonly string[],
  context: Context,
): void {
  const shared =
    !bypassedBy.has(sink as CaptureSink<unknown>) &&
    !hooked.has(res) &&
    (reachesShared(res) || reachesSharedAfterInstalling(req, res));
  const state: CaptureState = {
    sink: sink as CaptureSink<unknown>,
    context,
    keep,
    writeHead: shared ? inherited(res, 'writeHead') : (res.writeHead as Method),
    write: shared ? inherited(res, 'write') : (res.write as Method),
    end: shared ? inherited(res, 'end') : (res.end as Method),
    chunks: [],
    bytes: 0,
    storable: true,
    ended: false,
    late: undefined,
  };
  if (!shared) {
    ownWrappers(res, state);
    return;
  }
  hooked.set(res, state);
  res.on('finish', sharedFinish);
}
