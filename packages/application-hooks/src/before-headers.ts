/**
 * @module Running a function just before a response's head is written, as on-headers does,
 * without adding a property to an Express response.
 *
 * on-headers (the jshttp module compression and morgan use) replaces `res.writeHead` with a
 * closure made for that response. Express gives every response its app's prototype with
 * `Object.setPrototypeOf`, after which V8 records no hidden-class transition from it: each
 * property then added makes a hidden class for that one response (bench/findings/content-negotiation.md, "content-
 * negotiation: hot path, second pass"). So for an Express response the hook is kept in a
 * `WeakMap`, and a `writeHead` of this module, defined once on the outermost `app.response` of
 * the response's chain (never on Express's module-wide `express.response`), runs it and then
 * calls the `writeHead` it shadowed: what that prototype's chain gave before (Node's, or the
 * `writeHead` another copy of this module defined there), never Node's directly, so hooks of
 * several packages, each bundling its own copy, compose.
 *
 * Wherever that cannot be shown to reach the hook, the response gets an on-headers wrapper as
 * before: a response with a `writeHead` of its own (another middleware's wrapper runs first and
 * may call whatever it likes), a response outside Express, an `app.response` (or a prototype
 * between it and the response) with a `writeHead` that is not one of this module's.
 */
import type { ServerResponse } from 'node:http';
import onHeaders from 'on-headers';
import { outermostApplicationPrototype } from './application-prototype.js';
import { shareShape } from './shared-shape.js';

/** What runs just before the head is written: the response, and what was registered with it. */
export type HeadListener<State> = (res: ServerResponse, state: State) => void;

type WriteHead = (this: ServerResponse, ...args: unknown[]) => ServerResponse;

/** One registered hook; `next` is the one registered before it, which runs after it. */
interface Entry {
  readonly run: HeadListener<unknown>;
  readonly state: unknown;
  readonly next: Entry | undefined;
}

/** A response whose hooks have run: later `writeHead` calls keep on-headers' handling. */
const FIRED: Entry = { run: () => {}, state: undefined, next: undefined };

/**
 * On every `writeHead` any copy of this module defines: a function returning the `writeHead`
 * it calls after its hooks. Shared by name so each copy can tell that another's hands on.
 */
const SHADOWED = Symbol.for('@resourceful/application-hooks.shadowed-writeHead');

type Marked = WriteHead & { [SHADOWED]?: unknown };

/** This copy's hooks, newest first, per response. */
const pending = new WeakMap<ServerResponse, Entry>();
/** The `writeHead` functions this copy defined. */
const ours = new WeakSet<object>();

/** Runs the hooks from `entry` on, each marked as run before it runs (as on-headers' `fired`). */
function runHooks(res: ServerResponse, entry: Entry): void {
  for (let at: Entry | undefined = entry; at !== undefined; at = at.next) {
    pending.set(res, at.next ?? FIRED);
    at.run(res, at.state);
  }
}

/**
 * Any call other than `writeHead(status)`, and any call after the hooks ran: through on-headers
 * itself on a holder, one wrapper per hook as if each had been registered with it, so headers
 * given as arguments are set (and a second call refused) exactly as on-headers does.
 */
function throughOnHeaders(
  res: ServerResponse,
  entry: Entry,
  next: WriteHead,
  args: ArrayLike<unknown>,
): ServerResponse {
  const holder = { writeHead: next };
  const entries: Entry[] = [];
  for (let at: Entry | undefined = entry; at !== undefined && at !== FIRED; at = at.next) {
    entries.push(at);
  }
  if (entries.length === 0) onHeaders(holder as unknown as ServerResponse, () => {});
  // Oldest first, so that the newest wraps the others and runs first.
  for (let i = entries.length - 1; i >= 0; i--) {
    const at = entries[i]!;
    onHeaders(holder as unknown as ServerResponse, function (this: ServerResponse) {
      pending.set(this, at.next ?? FIRED);
      at.run(this, at.state);
    });
  }
  return Reflect.apply(holder.writeHead, res, args) as ServerResponse;
}

/** Makes the `writeHead` defined on `home`, handing on to what `shadowed()` gives. */
function hookedWriteHead(shadowed: () => unknown): WriteHead {
  const writeHead = function writeHead(this: ServerResponse, statusCode?: unknown): ServerResponse {
    const next = shadowed() as WriteHead;
    const entry = pending.get(this);
    // biome-ignore lint/complexity/noArguments: passes on exactly what the caller gave
    if (entry === undefined) return Reflect.apply(next, this, arguments) as ServerResponse;
    // biome-ignore lint/complexity/noArguments: the call shape decides the path
    const count = arguments.length;
    if (entry === FIRED || count !== 1) {
      // biome-ignore lint/complexity/noArguments: passes on exactly what the caller gave
      return throughOnHeaders(this, entry, next, arguments);
    }
    // The common call (`res.end()`, `res.write()` and Express's `res.send()` make it), with
    // on-headers' semantics: the status is set first, and one a hook sets is the one written.
    this.statusCode = statusCode as number;
    runHooks(this, entry);
    return next.call(this, typeof statusCode === 'number' ? this.statusCode : statusCode);
  } as Marked;
  Object.defineProperty(writeHead, SHADOWED, { value: shadowed });
  ours.add(writeHead);
  return writeHead;
}

/** Whether calling `writeHead` reaches one of this copy's, through other copies' at most. */
function reachesOurs(writeHead: unknown): boolean {
  let at = writeHead;
  // Bounded: each copy defines at most one per prototype.
  for (let step = 0; step < 64 && typeof at === 'function'; step++) {
    if (ours.has(at)) return true;
    const shadowed = (at as Marked)[SHADOWED];
    if (typeof shadowed !== 'function') return false;
    at = (shadowed as () => unknown)();
  }
  return false;
}

/**
 * Defines this copy's `writeHead` on `home` (an `app.response`): over nothing of its own (it then
 * hands on to whatever `home`'s prototype gives at the time of the call), or over another copy's
 * (it then hands on to that one). Leaves alone a `home` whose own `writeHead` is anyone else's,
 * or that already reaches one of this copy's.
 */
function defineOn(home: object): void {
  const own = Object.getOwnPropertyDescriptor(home, 'writeHead');
  let shadowed: () => unknown;
  if (own === undefined) {
    shadowed = () => (Object.getPrototypeOf(home) as { writeHead?: unknown } | null)?.writeHead;
  } else {
    const previous: unknown = own.value;
    if (
      typeof previous !== 'function' ||
      typeof (previous as Marked)[SHADOWED] !== 'function' ||
      own.configurable !== true ||
      reachesOurs(previous)
    ) {
      return;
    }
    shadowed = () => previous;
  }
  Object.defineProperty(home, 'writeHead', {
    value: hookedWriteHead(shadowed),
    writable: true,
    enumerable: false,
    configurable: true,
  });
}

interface ExpressApp {
  handle: unknown;
  set: unknown;
  response?: unknown;
  lazyrouter?: unknown;
  _router?: unknown;
  router?: unknown;
}

function isExpressApp(value: unknown): value is ExpressApp {
  return (
    typeof value === 'function' &&
    typeof (value as Partial<ExpressApp>).handle === 'function' &&
    typeof (value as Partial<ExpressApp>).set === 'function'
  );
}

interface Layer {
  handle?: unknown;
  route?: { stack?: unknown };
}

function stackOf(value: unknown): readonly Layer[] | undefined {
  if ((typeof value === 'function' || typeof value === 'object') && value !== null) {
    const stack = (value as { stack?: unknown }).stack;
    if (Array.isArray(stack)) return stack as Layer[];
  }
  return undefined;
}

/** An Express 4 or 5 app's layers (4's `app.router` getter throws; its router is `_router`). */
function appStack(app: ExpressApp): readonly Layer[] | undefined {
  if (typeof app.lazyrouter === 'function') return stackOf(app._router);
  return stackOf(app.router);
}

const MAX_DEPTH = 32;

/**
 * An Express app used as a router's middleware (`router.use(subApp)`, `app.get(path, subApp)`)
 * rather than mounted with `app.use` gives the response its own `app.response`, which does not
 * inherit from the outer app's: the `writeHead` defined on the outer one would not run there. The
 * apps found so in the tree as built get this copy's `writeHead` on their `response` too. (An app
 * called from inside another function, as `vhost` does, cannot be found: see the README.)
 */
function defineOnAppsUsedAsMiddleware(
  stack: readonly Layer[],
  seen: Set<unknown>,
  depth: number,
): void {
  if (depth > MAX_DEPTH) return;
  for (const layer of stack) {
    const handles: unknown[] = [layer.handle];
    const routeStack = stackOf(layer.route);
    if (routeStack !== undefined) for (const inner of routeStack) handles.push(inner.handle);
    for (const handle of handles) {
      if (seen.has(handle)) continue;
      seen.add(handle);
      if (isExpressApp(handle)) {
        const response = handle.response;
        if (typeof response === 'object' && response !== null) {
          if (!reachesOurs((response as { writeHead?: unknown }).writeHead)) defineOn(response);
        }
        const inner = appStack(handle);
        if (inner !== undefined) defineOnAppsUsedAsMiddleware(inner, seen, depth + 1);
        continue;
      }
      const inner = stackOf(handle);
      if (inner !== undefined) defineOnAppsUsedAsMiddleware(inner, seen, depth + 1);
    }
  }
}

/** Roots whose app tree was searched for apps used as middleware. */
const searched = new WeakSet<object>();

/**
 * Per response prototype: the `writeHead` a response with that prototype finds, and whether it
 * reaches this copy's (worked out once per prototype; found again when the chain changed).
 */
const known = new WeakMap<object, { readonly writeHead: unknown; readonly reaches: boolean }>();

function reachable(res: ServerResponse, proto: object): boolean {
  if (Object.hasOwn(res, 'writeHead')) return false;
  const root = outermostApplicationPrototype(res, 'response');
  if (root === undefined) return false;
  if (!reachesOurs(res.writeHead)) defineOn(root);
  if (!searched.has(root)) {
    searched.add(root);
    const app: unknown = (root as { app?: unknown }).app;
    const stack = isExpressApp(app) ? appStack(app) : undefined;
    if (stack !== undefined) defineOnAppsUsedAsMiddleware(stack, new Set([app]), 0);
  }
  const writeHead: unknown = res.writeHead;
  const reaches = reachesOurs(writeHead);
  known.set(proto, { writeHead, reaches });
  return reaches;
}

/**
 * Runs `run(res, state)` once, just before the head of `res` is written, as
 * `onHeaders(res, listener)` does: with the status and every header set by then, those given to
 * `writeHead` included, and the hooks of one response in the reverse order of registration (a
 * hook registered through an on-headers wrapper on the response itself, such as compression's,
 * registered after this one, runs before it).
 */
export function beforeHeaders<State>(
  res: ServerResponse,
  run: HeadListener<State>,
  state: State,
): void {
  const entry = pending.get(res);
  if (entry !== FIRED) {
    const proto = Object.getPrototypeOf(res) as object | null;
    if (proto !== null) {
      const seen = known.get(proto);
      const reaches =
        // A response given the very function found before as its own still reaches the hooks.
        seen !== undefined && res.writeHead === seen.writeHead
          ? seen.reaches
          : reachable(res, proto);
      if (reaches) {
        // Once per response: its first hook here (the WeakMap keeps the state, not `res`).
        if (entry === undefined) shareShape(res);
        pending.set(res, { run: run as HeadListener<unknown>, state, next: entry });
        return;
      }
    }
  }
  // A function expression passed as an argument gets no `__name()` wrapper in keepNames builds.
  onHeaders(res, function (this: ServerResponse) {
    run(this, state);
  });
}
