/**
 * @module Where `conditionalRequests()` sees an answer's body: `res.json`, `res.send` and
 * `res.end`, replaced once per Express app tree instead of on every response.
 *
 * Express gives every response its app's prototype (`Object.setPrototypeOf(res, app.response)`),
 * after which V8 shares no hidden-class transition between responses: each property added to a
 * response builds a new hidden class (a copy of the descriptors of its fifty-odd properties) for
 * that response alone, garbage the collector then has to trace. Three replaced methods per
 * response cost more than tagging the body (bench/findings/conditional-requests-and-prefer-header.md). So in an Express app the three
 * functions below are defined once, on the `response` object of the app at the top of the tree
 * (never on Express's own `express.response`, which every app in the process shares): a sub-app
 * mounted with `app.use` has a `response` that inherits from its parent's (Express sets that
 * when it mounts it), so a response finds them whichever app of the tree is handling it, and
 * Express's prototype swaps on entering and leaving a sub-app do not lose them. They look the
 * response up in a `WeakMap`: a response no `conditionalRequests()` ran for goes straight to
 * Express's methods.
 *
 * Where that would not reach the response exactly as replacing its own methods does, the
 * middleware replaces its own methods as before (`attach` returns `undefined`): a response with no
 * Express app, a response on which `json`, `send` or `end` is found anywhere before the app's
 * `response` (another middleware replaced them, or a sub-app's `response` defines its own), or an
 * app whose `response` already defines one of them.
 */
import type { ServerResponse } from 'node:http';
import { outermostApplicationPrototype } from '@resourceful/application-hooks';
import { countAttached } from './representation-variant.js';

export type End = ServerResponse['end'];
export type Send = (this: ServerResponse, body?: unknown) => unknown;

/** What a `conditionalRequests()` does with a response's calls; one per middleware. */
export interface ResponseHooks {
  json(res: ServerResponse, state: HookedResponse, value: unknown): unknown;
  send(res: ServerResponse, state: HookedResponse, body: unknown): unknown;
  end(res: ServerResponse, state: HookedResponse, args: ArrayLike<unknown>): ServerResponse;
}

/**
 * What one middleware knows about one response, and where its calls go next: to the state of
 * the middleware that attached before it on this response (`below`), or to the methods the
 * response had before (`json`, `send`, `end`). It holds nothing of the request or the response
 * (the request is `res.req`): the value of a `WeakMap` entry that reached the request's objects
 * kept all of them alive through every young-generation collection while the response lived,
 * and then promoted them to the old generation (about 12 µs of collector time per request).
 */
export interface HookedResponse {
  readonly hooks: ResponseHooks;
  readonly method: string;
  readonly below: HookedResponse | undefined;
  readonly end: End;
  readonly json: Send | undefined;
  readonly send: Send | undefined;
  /** Express's own res.json (not one another middleware replaced). */
  readonly expressJson: boolean;
  settled: boolean;
}

/**
 * A response's state, one object literal of one shape: a class with these fields as parameter
 * properties compiles (ES2022 class fields) to a field initialiser that defines each of them
 * before the constructor assigns it, twice the stores for one object made per response.
 */
export function hookedResponse(
  hooks: ResponseHooks,
  method: string,
  below: HookedResponse | undefined,
  end: End,
  json: Send | undefined,
  send: Send | undefined,
  expressJson: boolean,
): HookedResponse {
  return { hooks, method, below, end, json, send, expressJson, settled: false };
}

/** Calls what the response's `json` was before this middleware. */
export function nextJson(res: ServerResponse, state: HookedResponse, value: unknown): unknown {
  const below = state.below;
  return below === undefined ? state.json!.call(res, value) : below.hooks.json(res, below, value);
}

/** Calls what the response's `send` was before this middleware. */
export function nextSend(res: ServerResponse, state: HookedResponse, body: unknown): unknown {
  const below = state.below;
  return below === undefined ? state.send!.call(res, body) : below.hooks.send(res, below, body);
}

/** Calls what the response's `end` was before this middleware, with the caller's arguments. */
export function nextEnd(
  res: ServerResponse,
  state: HookedResponse,
  args: ArrayLike<unknown>,
): ServerResponse {
  const below = state.below;
  return below === undefined
    ? (Reflect.apply(state.end, res, args) as ServerResponse)
    : below.hooks.end(res, below, args);
}

/** The state of the last middleware attached to each response through the shared methods. */
const attached = new WeakMap<ServerResponse, HookedResponse>();

function sharedJson(this: ServerResponse, value?: unknown): unknown {
  const state = attached.get(this);
  if (state !== undefined) return state.hooks.json(this, state, value);
  return (inherited(this, 'json') as Send).call(this, value);
}

function sharedSend(this: ServerResponse, body?: unknown): unknown {
  const state = attached.get(this);
  if (state !== undefined) return state.hooks.send(this, state, body);
  return (inherited(this, 'send') as Send).call(this, body);
}

function sharedEnd(this: ServerResponse): ServerResponse {
  const state = attached.get(this);
  // `arguments` passes on exactly what the caller gave (a callback too), without the array a
  // rest parameter would allocate.
  // biome-ignore lint/complexity/noArguments: forwarding, see above
  if (state !== undefined) return state.hooks.end(this, state, arguments);
  // biome-ignore lint/complexity/noArguments: forwarding, see above
  return Reflect.apply(inherited(this, 'end') as End, this, arguments) as ServerResponse;
}

type Method = 'json' | 'send' | 'end';
const SHARED: Readonly<Record<Method, unknown>> = {
  json: sharedJson,
  send: sharedSend,
  end: sharedEnd,
};
const METHODS: readonly Method[] = ['json', 'send', 'end'];

// `hasConditionalRequests` reads this map: a response in it needs no mark of its own. It is
// needed while `sharedEnd` lives: every response in it reaches `sharedEnd` through its app's
// `response`, and any middleware that can still add one keeps this module, and it, alive.
countAttached(attached, sharedEnd);

/**
 * The method the response would call without the shared ones: the first definition up its
 * prototype chain that is not one of them (an app tree mounted into another one that also uses
 * the middleware has them on two `response` objects).
 */
function inherited(res: ServerResponse, name: Method): unknown {
  for (
    let at: object | null = Object.getPrototypeOf(res);
    at !== null;
    at = Object.getPrototypeOf(at)
  ) {
    if (Object.hasOwn(at, name)) {
      const value = (at as Record<Method, unknown>)[name];
      if (value !== SHARED[name]) return value;
    }
  }
  return undefined;
}

/** `response` objects that define a method of their own: the shared methods are not put there. */
const declined = new WeakSet<object>();

function reachesShared(res: ServerResponse): boolean {
  const methods = res as unknown as Record<Method, unknown>;
  return methods.end === sharedEnd && methods.send === sharedSend && methods.json === sharedJson;
}

/**
 * Puts the shared methods on the outermost `app.response` of the response's prototype chain
 * (application-hooks: the `response` of the app at the top of the tree the response is in),
 * once. True when the response now reaches them (nothing before that object defines them).
 */
function reachesSharedAfterInstalling(res: ServerResponse): boolean {
  const response = outermostApplicationPrototype(res, 'response');
  if (response === undefined || declined.has(response)) return false;
  const installed =
    Object.hasOwn(response, 'end') && (response as Record<Method, unknown>).end === sharedEnd;
  if (!installed) {
    if (METHODS.some((name) => Object.hasOwn(response, name))) {
      declined.add(response);
      return false;
    }
    // Not enumerable: code that lists an app's response methods sees Express's alone.
    for (const name of METHODS) {
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

/** Which of the three methods the walk below has found, as bits. */
const FOUND_END = 1;
const FOUND_JSON = 2;
const FOUND_SEND = 4;
const ALL_FOUND = FOUND_END | FOUND_JSON | FOUND_SEND;

/**
 * The state of the first middleware attached to a response: the methods it calls next are what
 * `inherited` finds for each name, looked up in one walk up the prototype chain instead of one
 * walk per name (this runs for every response). `undefined` when one of them is not a function.
 */
function expressMethodsState(
  hooks: ResponseHooks,
  res: ServerResponse,
  method: string,
): HookedResponse | undefined {
  let end: unknown;
  let json: unknown;
  let send: unknown;
  let found = 0;
  for (
    let at: object | null = Object.getPrototypeOf(res);
    at !== null && found !== ALL_FOUND;
    at = Object.getPrototypeOf(at)
  ) {
    const methods = at as Record<Method, unknown>;
    if ((found & FOUND_END) === 0 && Object.hasOwn(at, 'end') && methods.end !== sharedEnd) {
      end = methods.end;
      found |= FOUND_END;
    }
    if ((found & FOUND_JSON) === 0 && Object.hasOwn(at, 'json') && methods.json !== sharedJson) {
      json = methods.json;
      found |= FOUND_JSON;
    }
    if ((found & FOUND_SEND) === 0 && Object.hasOwn(at, 'send') && methods.send !== sharedSend) {
      send = methods.send;
      found |= FOUND_SEND;
    }
  }
  if (typeof end !== 'function' || typeof json !== 'function' || typeof send !== 'function') {
    return undefined;
  }
  return hookedResponse(hooks, method, undefined, end as End, json as Send, send as Send, true);
}

/**
 * Makes `hooks` see this response's `json`, `send` and `end` calls through the shared methods,
 * before those of any middleware that attached earlier. `undefined` when the response does not
 * reach them: the caller replaces the response's own methods instead.
 */
export function attach(
  hooks: ResponseHooks,
  res: ServerResponse,
  method: string,
): HookedResponse | undefined {
  if (!reachesShared(res) && !reachesSharedAfterInstalling(res)) return undefined;
  const below = attached.get(res);
  // Another middleware's calls come after this one's, as when each replaced the response's own
  // methods: what this one calls next is not Express's res.json.
  const state =
    below === undefined
      ? expressMethodsState(hooks, res, method)
      : hookedResponse(hooks, method, below, below.end, below.json, below.send, false);
  if (state === undefined) return undefined;
  attached.set(res, state);
  return state;
}
