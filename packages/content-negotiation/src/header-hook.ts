/**
 * @module Running a function just before a response's head is written, as on-headers does, but
 * without adding a property to the response when it is an Express response.
 *
 * on-headers (the jshttp module compression and morgan use) replaces `res.writeHead` with a
 * closure made for that response: a function object, and a property added to the response.
 * Express gives every response its prototype with `Object.setPrototypeOf`, after which V8 builds
 * a new hidden class for each property added to the object (no transition is shared between
 * responses); on a plain JSON answer that property and its closure were about half of what
 * this middleware cost per request (bench/README.md, "content-negotiation: hot path, second
 * pass").
 *
 * So for an Express response this module defines `writeHead` once on Express's own response
 * prototype (`express.response`, which every app's `app.response` inherits from, mounted apps
 * included: the route Express documents for overriding its response methods), and keeps each
 * response's hook in a `WeakMap`. The function it defines runs the hook of the responses that
 * have one and hands every call on to Node's `writeHead` unchanged; responses without a hook
 * (other apps, answers written before this middleware ran) pay one `WeakMap` lookup.
 *
 * Whenever that cannot be shown to run, the hook goes through on-headers as before: not an
 * Express response; a response that already carries a `writeHead` of its own (another
 * middleware's wrapper, which may call Node's directly); an `app.response` with a `writeHead`
 * of its own; a response hooked twice; another copy of this package having defined it first.
 */
import { ServerResponse } from 'node:http';
import onHeaders from 'on-headers';

/** What runs before the head is written, with the response as `this`'s stand-in. */
export interface HeaderHook<State> {
  readonly run: (res: ServerResponse, state: State) => void;
  readonly state: State;
}

type WriteHead = (this: ServerResponse, ...args: unknown[]) => ServerResponse;

const nodeResponse = ServerResponse.prototype;
const hooks = new WeakMap<ServerResponse, HeaderHook<unknown>>();

/**
 * `writeHead` for Express's response prototype. A hooked response's hook runs once, before the
 * head is written, as on-headers runs its listener: `writeHead(status)` (what `res.end()`,
 * `res.write()` and Express's `res.send()` make) directly; any other call through on-headers
 * itself, so that headers given as arguments are set first, exactly as on-headers sets them.
 */
function writeHeadWithHook(this: ServerResponse, ...args: unknown[]): ServerResponse {
  const writeHead = nodeResponse.writeHead as WriteHead;
  const hook = hooks.get(this);
  if (hook === undefined) return writeHead.apply(this, args);
  hooks.delete(this);
  if (args.length !== 1) {
    const once = { writeHead };
    onHeaders(once as unknown as ServerResponse, function (this: ServerResponse) {
      hook.run(this, hook.state);
    });
    return (once.writeHead as WriteHead).apply(this, args);
  }
  const [statusCode] = args;
  this.statusCode = statusCode as number;
  hook.run(this, hook.state);
  // A status changed by the hook is the one written (on-headers does the same).
  return writeHead.call(this, typeof statusCode === 'number' ? this.statusCode : statusCode);
}

/** Express responses' own prototypes already given `writeHeadWithHook`, or refused it. */
const prepared = new WeakMap<object, boolean>();

/**
 * Defines `writeHeadWithHook` on the Express response prototype `res` descends from, when there
 * is one and it has no `writeHead` of its own: the object whose prototype is Node's
 * `ServerResponse.prototype`, reached from `res` through the `app.response` objects (each an
 * own `app` property) of the app and the apps it is mounted in.
 */
function prepare(res: ServerResponse): void {
  let proto: object | null = Object.getPrototypeOf(res) as object | null;
  let apps = 0;
  while (proto !== null && Object.hasOwn(proto, 'app')) {
    apps++;
    proto = Object.getPrototypeOf(proto) as object | null;
  }
  if (proto === null || apps === 0 || prepared.has(proto)) return;
  const express =
    Object.getPrototypeOf(proto) === nodeResponse && !Object.hasOwn(proto, 'writeHead');
  prepared.set(proto, express);
  if (express) {
    Object.defineProperty(proto, 'writeHead', {
      configurable: true,
      enumerable: false,
      writable: true,
      value: writeHeadWithHook,
    });
  }
}

/**
 * Runs `run(res, state)` once, just before the head of `res` is written (the status and every
 * header set by then, including those given to `writeHead`), as `onHeaders(res, listener)` does.
 */
export function beforeHeaders<State>(
  res: ServerResponse,
  run: (res: ServerResponse, state: State) => void,
  state: State,
): void {
  // A response with a writeHead of its own gets nothing from the shared one: it is defined only
  // when it can serve this response, so that an app whose every response is wrapped before this
  // middleware runs (http-conventions' responseDate) keeps Node's writeHead as it was.
  if (res.writeHead !== writeHeadWithHook && !Object.hasOwn(res, 'writeHead')) prepare(res);
  if (res.writeHead === writeHeadWithHook && !hooks.has(res)) {
    hooks.set(res, { run, state } as HeaderHook<unknown>);
    return;
  }
  onHeaders(res, function (this: ServerResponse) {
    run(this, state);
  });
}
