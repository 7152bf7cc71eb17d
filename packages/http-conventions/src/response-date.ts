/**
 * @module The `Date` response header. The spec asks for an RFC 3339 timestamp of "the time at
 * which the request finished"; HTTP defines `Date` as an IMF-fixdate (RFC 9110 §6.6.1), which
 * caches use for age calculation (RFC 9111 §4.2.3). Both are offered; the spec's by default.
 */
import { type IncomingMessage, ServerResponse } from 'node:http';
import onHeaders from 'on-headers';
import { checkOptions, optionError } from './options.js';

export type DateFormat = 'rfc3339' | 'imf-fixdate';

export const DATE_FORMATS: readonly DateFormat[] = ['rfc3339', 'imf-fixdate'];

export interface ResponseDateOptions {
  /**
   * `'rfc3339'` (`2026-11-23T19:03:11.123Z`, the spec's form) or `'imf-fixdate'`
   * (`Mon, 23 Nov 2026 19:03:11 GMT`, HTTP's form). @default 'rfc3339'
   */
  format?: DateFormat;
  /** The clock. @default () => new Date() */
  now?: () => Date;
}

/** RFC 3339 §5.6 `date-time` in UTC with milliseconds, as `create_time` fields are written. */
export function formatRfc3339(date: Date): string {
  return date.toISOString();
}

/** RFC 9110 §5.6.7 IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`. */
export function formatImfFixdate(date: Date): string {
  return date.toUTCString();
}

type Next = (err?: unknown) => void;

/** What `responseDate()` does to one response: the hook that stamps `Date`. */
export type HookDate = (res: ServerResponse) => void;

/** Checks the options and makes the per-response work (shared with `httpConventions`). */
export function responseDateStep(options: ResponseDateOptions = {}): HookDate {
  const factory = 'responseDate';
  const checked = checkOptions<ResponseDateOptions>(factory, options, ['format', 'now']);
  const format = checked.format ?? 'rfc3339';
  if (!DATE_FORMATS.includes(format)) {
    throw optionError(factory, 'format', '"rfc3339" or "imf-fixdate"', format);
  }
  const now = checked.now ?? undefined;
  if (now !== undefined && typeof now !== 'function') {
    throw optionError(factory, 'now', 'a function', now);
  }
  const formatDate = format === 'rfc3339' ? formatRfc3339 : formatImfFixdate;
  // Many answers are written within the same millisecond: the text is made once for each.
  let lastTime = Number.NaN;
  let lastText = '';
  function dateText(time: number): string {
    if (time !== lastTime) {
      lastText = formatDate(new Date(time));
      lastTime = time;
    }
    return lastText;
  }

  // One listener for every response (on-headers calls it with the response as `this`).
  function stampDate(this: ServerResponse) {
    const time = now === undefined ? Date.now() : now().getTime();
    // A clock that returns an invalid date leaves Node's own Date in place.
    if (Number.isNaN(time)) return;
    this.setHeader('Date', dateText(time));
  }

  function stampingWriteHead(this: ServerResponse, ...args: unknown[]): ServerResponse {
    return writeHeadStamped(this, stampDate, args);
  }

  return function hookDate(res: ServerResponse) {
    const writeHead = res.writeHead;
    if (writeHead === applicationWriteHead && !datedBy.has(res)) datedBy.set(res, stampDate);
    else if (writeHead !== nodeWriteHead) {
      // Another middleware's writeHead wrapper is kept, under on-headers' own.
      onHeaders(res, stampDate);
    } else if (stampsThroughPrototype(res)) datedBy.set(res, stampDate);
    else res.writeHead = stampingWriteHead;
  };
}

/**
 * Node's `writeHead` with `Date` stamped first: one function for every response, where
 * on-headers makes a closure and copies the arguments per response. It takes the common call,
 * `writeHead(status)` (what `res.end()` and `res.send()` make); headers passed to `writeHead`
 * go through on-headers, which sets them before `Date`, as before.
 */
function writeHeadStamped(
  res: ServerResponse,
  stampDate: (this: ServerResponse) => void,
  args: unknown[],
): ServerResponse {
  if (args.length > 1) {
    // on-headers wraps a writeHead of its own here and calls it on this response.
    const once = { writeHead: nodeWriteHead };
    onHeaders(once as unknown as ServerResponse, stampDate);
    return (once.writeHead as (...all: unknown[]) => ServerResponse).apply(res, args);
  }
  // A second call throws Node's own ERR_HTTP_HEADERS_SENT, not setHeader's.
  if (!res.headersSent) stampDate.call(res);
  return nodeWriteHead.call(res, args[0] as number);
}

/** The responses whose `Date` the application's `writeHead` stamps, with the stamp. */
const datedBy = new WeakMap<ServerResponse, (this: ServerResponse) => void>();

/**
 * Under Express, `writeHead` defined once on the application's response prototype (the
 * outermost `app.response`, which mounted sub-apps inherit), stamping the responses in
 * `datedBy` and passing the others to Node's: a `writeHead` set on each response would give
 * every response a hidden class of its own (Express sets its prototype per request).
 */
function applicationWriteHead(this: ServerResponse, ...args: unknown[]): ServerResponse {
  const stampDate = datedBy.get(this);
  if (stampDate === undefined)
    return (nodeWriteHead as (...all: unknown[]) => ServerResponse).apply(this, args);
  return writeHeadStamped(this, stampDate, args);
}

/** Per response prototype: whether `applicationWriteHead` is its `writeHead`. */
const stampingOn = new WeakMap<object, boolean>();

function stampsThroughPrototype(res: ServerResponse): boolean {
  const proto = Object.getPrototypeOf(res) as object | null;
  if (proto === null) return false;
  let known = stampingOn.get(proto);
  if (known === undefined) {
    const root = rootApplicationResponse(res);
    if (root !== undefined && !Object.hasOwn(root, 'writeHead')) {
      Object.defineProperty(root, 'writeHead', {
        value: applicationWriteHead,
        writable: true,
        enumerable: false,
        configurable: true,
      });
    }
    known = root !== undefined && res.writeHead === applicationWriteHead;
    stampingOn.set(proto, known);
  }
  return known;
}

/** The outermost `app.response` in the response's prototype chain, if any. */
function rootApplicationResponse(res: ServerResponse): object | undefined {
  let root: object | undefined;
  let proto: unknown = Object.getPrototypeOf(res);
  while (typeof proto === 'object' && proto !== null && Object.hasOwn(proto, 'app')) {
    const app: unknown = (proto as { app?: unknown }).app;
    if (
      typeof app !== 'function' ||
      (app as unknown as { response?: unknown }).response !== proto
    ) {
      break;
    }
    root = proto;
    proto = Object.getPrototypeOf(proto);
  }
  return root;
}

/**
 * Stamps `Date` when the response head is written: the last moment a header can be set, so
 * the time is when the answer was ready (for a streamed body, when it started).
 */
export function responseDate(options: ResponseDateOptions = {}) {
  const hook = responseDateStep(options);
  return function responseDateMiddleware(_req: IncomingMessage, res: ServerResponse, next: Next) {
    hook(res);
    next();
  };
}

const nodeWriteHead = ServerResponse.prototype.writeHead;
