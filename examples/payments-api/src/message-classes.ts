/**
 * @module Requests and responses made with the Express app's prototypes from the start.
 *
 * Express gives every request and response its app's prototype (`Object.setPrototypeOf(req,
 * app.request)`, and the same for `res`) when it starts handling them. V8 then gives each object
 * a hidden class (map) of its own: every property added afterwards (Express's own `baseUrl`,
 * `params`, `locals`; `req.body`, `req.preferences`, `req.collectionQuery`, the wrapped `res.end`
 * of the middleware) builds a new map for that one object, about 2–3 µs each, and every function
 * that reads `req` or `res` (Express, the router, Node's http internals) sees a different map per
 * request and falls back to its slowest property lookups.
 *
 * Node's server takes the classes it builds requests and responses with (`IncomingMessage` and
 * `ServerResponse` options of `http.createServer`, documented for extending them). Built here
 * with the app's prototypes, they already have the prototype Express sets, which V8 then treats
 * as no change: every request and response shares its maps with the ones before it, along the
 * whole path. Nothing else differs: the objects are made by Node's own constructors, the
 * prototypes are Express's (`req instanceof http.IncomingMessage` still holds), and a sub-app
 * mounted below still sets its own prototypes while it handles a request.
 */
import { IncomingMessage, type ServerOptions, ServerResponse } from 'node:http';

export type MessageClasses = Required<Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'>>;

/** What an Express 4 or 5 app carries: the prototypes it gives its requests and responses. */
export interface AppPrototypes {
  readonly request: object;
  readonly response: object;
}

/** Whether `listener` is an Express app (a function with its request and response prototypes). */
export function hasMessagePrototypes(listener: unknown): listener is AppPrototypes {
  const candidate = listener as Partial<AppPrototypes> | undefined;
  return (
    typeof listener === 'function' &&
    inherits(candidate?.request, IncomingMessage) &&
    inherits(candidate?.response, ServerResponse)
  );
}

function inherits(value: unknown, base: abstract new (...args: never) => unknown): boolean {
  return typeof value === 'object' && value !== null && value instanceof base;
}

/**
 * Whether `base` can be called on an object made elsewhere (`base.apply(this, args)`): true of
 * Node's `IncomingMessage` and `ServerResponse`, which are constructor functions, not classes.
 */
export function isCallableConstructor(base: unknown): base is (...args: unknown[]) => void {
  return typeof base === 'function' && !Function.prototype.toString.call(base).startsWith('class');
}

/**
 * `http.createServer` options whose requests and responses have `app.request` and
 * `app.response` as prototypes; `{}` (Node's classes) if Node's constructors ever become
 * classes, which cannot be called on an object with another prototype.
 */
export function messageClassesFor(app: AppPrototypes): MessageClasses | Record<string, never> {
  if (!isCallableConstructor(IncomingMessage) || !isCallableConstructor(ServerResponse)) return {};
  const request = IncomingMessage as unknown as (...args: unknown[]) => void;
  const response = ServerResponse as unknown as (...args: unknown[]) => void;
  // Function constructors, not subclasses: V8 makes `new AppRequest()` objects with one initial
  // map whose prototype is `app.request` (a subclass's prototype could not be that object).
  function AppRequest(this: IncomingMessage, ...args: unknown[]): void {
    request.apply(this, args);
  }
  AppRequest.prototype = app.request;
  function AppResponse(this: ServerResponse, ...args: unknown[]): void {
    response.apply(this, args);
  }
  AppResponse.prototype = app.response;
  return {
    IncomingMessage: AppRequest as unknown as typeof IncomingMessage,
    ServerResponse: AppResponse as unknown as typeof ServerResponse,
  };
}
