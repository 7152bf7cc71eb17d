/**
 * @module The application prototypes an Express request or response inherits from.
 *
 * Express gives every request and response its app's prototype on every request
 * (`Object.setPrototypeOf(req, app.request)`, in `app.handle` in 5 and `expressInit` in 4), and
 * chains a sub-app mounted with `app.use` to its parent's on `mount`
 * (`Object.setPrototypeOf(subApp.response, parent.response)`). So the outermost
 * `app.request`/`app.response` in an object's chain is the one every app of the tree it is in
 * shares: a property defined there is seen in the app, in each app mounted in it with `app.use`,
 * and after a sub-app hands the request back (Express restores the parent's prototype), while
 * Express's module-wide `express.request`/`express.response` are left alone.
 */

export type ApplicationPrototypeKind = 'request' | 'response';

/**
 * The outermost `app.request` (or `app.response`) in `target`'s prototype chain: the last of
 * the consecutive prototypes, from `target`'s own, that have an own `app` whose `request` (or
 * `response`) is that prototype. `undefined` outside Express (or for an object whose prototype
 * is not an app's, such as a response Express has not reached yet).
 */
export function outermostApplicationPrototype(
  target: object,
  kind: ApplicationPrototypeKind,
): object | undefined {
  let root: object | undefined;
  let proto: unknown = Object.getPrototypeOf(target);
  while (typeof proto === 'object' && proto !== null && Object.hasOwn(proto, 'app')) {
    const app: unknown = (proto as { app?: unknown }).app;
    if (typeof app !== 'function' || (app as unknown as Record<string, unknown>)[kind] !== proto)
      break;
    root = proto;
    proto = Object.getPrototypeOf(proto);
  }
  return root;
}
