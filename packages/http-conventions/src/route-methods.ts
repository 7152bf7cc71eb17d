/**
 * @module The methods an Express 4 or 5 app serves at a path, read from its live router stack:
 * routes, routers mounted with `use` (at any depth), and `versionedRouter` middleware (which
 * lists its per-version routers under a registered symbol).
 *
 * Both majors give each layer `match(path)`, which sets `layer.path` to the matched part;
 * `layer.route.methods` lists a route's methods (`_all` for `.all()`); a router keeps its
 * layers in `handle.stack`. A sub-app mounted with `app.use(path, subApp)` is reached through a
 * `mounted_app` closure in both majors, which keeps no reference the parent can read: its routes
 * are read by an `allowedMethods()` mounted in the sub-app itself.
 */

/** Where `@resourceful/versioned-router` lists its versions (read without importing it). */
const MOUNTED_VERSIONS = Symbol.for('@resourceful/versioned-router/versions');

interface Layer {
  route?: { path?: unknown; methods?: Record<string, boolean | undefined> };
  handle?: unknown;
  /** Express 4 and router 2.0/2.1: a boolean, `path` set on the layer; router 2.2+: the match. */
  match?: (path: string) => boolean | { path?: string } | null | undefined;
  path?: string;
}

interface MountedVersion {
  readonly name: string;
  readonly handler: unknown;
}

/** What an app serves at one path. */
export interface ServedMethods {
  /** Upper-case methods of the routes matching the path, as registered. */
  readonly methods: ReadonlySet<string>;
  /** True when a route matching the path takes every method (`.all()`). */
  readonly anyMethod: boolean;
}

const MAX_DEPTH = 32;

function stackOf(value: unknown): readonly Layer[] | undefined {
  if ((typeof value === 'function' || typeof value === 'object') && value !== null) {
    const stack = (value as { stack?: unknown }).stack;
    if (Array.isArray(stack)) return stack as Layer[];
  }
  return undefined;
}

/** The root layer stack of an Express 4 (`_router`) or 5 (`router`) app, or of a router. */
export function appStack(appOrRouter: unknown): readonly Layer[] {
  const own = stackOf(appOrRouter);
  if (own !== undefined) return own;
  if ((typeof appOrRouter !== 'function' && typeof appOrRouter !== 'object') || !appOrRouter) {
    return [];
  }
  const app = appOrRouter as { lazyrouter?: unknown; _router?: unknown; router?: unknown };
  // Express 4's `app.router` getter throws; its router is `_router`, made with the first route.
  if (typeof app.lazyrouter === 'function') return stackOf(app._router) ?? [];
  return stackOf(app.router) ?? [];
}

/** The part of `path` the layer matched, or `undefined` when it does not match. */
function matchedPart(layer: Layer, path: string): string | undefined {
  if (typeof layer.match !== 'function') return undefined;
  let result: ReturnType<NonNullable<Layer['match']>>;
  try {
    result = layer.match(path);
  } catch {
    // A malformed %-escape in a path parameter: the router itself answers 400 for it.
    return undefined;
  }
  if (!result) return undefined;
  if (typeof result === 'object') return result.path ?? '';
  return layer.path ?? '';
}

/**
 * Express 4 and `route.all()` record `_all`; Express 5's `app.all()` registers the route for
 * each of the ~30 methods Node knows instead. No resource serves that many on purpose.
 */
const ALL_METHODS_THRESHOLD = 20;

/** `*` and `/*` (Express 4), `/*splat` and `/{*splat}` (Express 5): every path. */
const CATCH_ALL = /^\/?(?:\*\w*|\{\/?\*\w*\})$/;

function isCatchAll(path: unknown): boolean {
  return typeof path === 'string' && CATCH_ALL.test(path);
}

/** `v1`, `v1.0` and `V1` alike, as versioned-router resolves them. */
function versionKey(segment: string): string | undefined {
  const match = /^[vV](0|[1-9]\d{0,8})(?:\.(0|[1-9]\d{0,8}))?$/.exec(segment);
  return match === null ? undefined : `${match[1]}.${match[2] ?? '0'}`;
}

function rest(path: string, matched: string): string {
  const remainder = path.slice(matched.length);
  return remainder.startsWith('/') ? remainder : `/${remainder}`;
}

interface Found {
  methods: Set<string>;
  anyMethod: boolean;
  /** Stop walking once this method is known to be served (a request that will pass anyway). */
  readonly enough: string | undefined;
}

function isEnough(found: Found): boolean {
  if (found.enough === undefined) return false;
  if (found.anyMethod) return true;
  return found.methods.has(found.enough) || (found.enough === 'HEAD' && found.methods.has('GET'));
}

/** The layers of a stack a walk goes through: all of them, or those leading to some routes. */
type LayersOf = (stack: readonly Layer[]) => readonly Layer[];

const everyLayer: LayersOf = (stack) => stack;

function collect(
  stack: readonly Layer[],
  path: string,
  found: Found,
  depth: number,
  layersOf: LayersOf,
): void {
  if (depth > MAX_DEPTH) return;
  for (const layer of layersOf(stack)) {
    if (isEnough(found)) return;
    if (layer.route !== undefined) {
      if (matchedPart(layer, path) === undefined) continue;
      const served = routeMethods(layer.route);
      // An `.all()` route stands for every method; its registrations say nothing more. On a
      // catch-all path it is the app's fallback (a 404 page, a proxy), not a resource: passed.
      if (served === undefined) {
        if (!isCatchAll(layer.route.path)) found.anyMethod = true;
        continue;
      }
      for (const method of served) found.methods.add(method);
      continue;
    }
    const inner = stackOf(layer.handle);
    const versions = (layer.handle as { [MOUNTED_VERSIONS]?: readonly MountedVersion[] } | null)?.[
      MOUNTED_VERSIONS
    ];
    if (inner === undefined && versions === undefined) continue;
    const matched = matchedPart(layer, path);
    if (matched === undefined) continue;
    const below = rest(path, matched);
    if (inner !== undefined) collect(inner, below, found, depth + 1, layersOf);
    if (versions !== undefined) {
      const end = below.indexOf('/', 1);
      const segment = end === -1 ? below.slice(1) : below.slice(1, end);
      const key = versionKey(segment);
      if (key === undefined) continue;
      for (const version of versions) {
        if (versionKey(version.name) !== key) continue;
        const versionStack = stackOf(version.handler);
        if (versionStack !== undefined) {
          collect(versionStack, end === -1 ? '/' : below.slice(end), found, depth + 1, layersOf);
        }
      }
    }
  }
}

/**
 * The methods `app` (Express 4 or 5 app, or a router) has routes for at `path`. With `method`,
 * the walk stops as soon as that method is found served (the list is then incomplete): enough
 * to let a request through without walking every route.
 */
export function servedMethods(app: unknown, path: string, method?: string): ServedMethods {
  const found: Found = { methods: new Set<string>(), anyMethod: false, enough: method };
  collect(appStack(app), path, found, 0, everyLayer);
  return { methods: found.methods, anyMethod: found.anyMethod };
}

/**
 * The methods some route of `app` serves, at any path: what `OPTIONS *` lists, the request
 * that "applies to the server in general rather than to a specific resource" (RFC 9110 §9.3.7).
 * An `.all()` route on a catch-all path (the app's fallback) is passed over, as by `collect`.
 */
export function methodsOfAnyRoute(app: unknown): ServedMethods {
  const found = { methods: new Set<string>(), anyMethod: false };
  const walk = (stack: readonly Layer[], depth: number): void => {
    if (depth > MAX_DEPTH) return;
    for (const layer of stack) {
      if (layer.route !== undefined) {
        const served = routeMethods(layer.route);
        if (served === undefined) {
          if (!isCatchAll(layer.route.path)) found.anyMethod = true;
        } else {
          for (const method of served) found.methods.add(method);
        }
        continue;
      }
      const inner = stackOf(layer.handle);
      if (inner !== undefined) walk(inner, depth + 1);
      const versions = (
        layer.handle as { [MOUNTED_VERSIONS]?: readonly MountedVersion[] } | null
      )?.[MOUNTED_VERSIONS];
      for (const version of versions ?? []) {
        const versionStack = stackOf(version.handler);
        if (versionStack !== undefined) walk(versionStack, depth + 1);
      }
    }
  };
  walk(appStack(app), 0);
  return found;
}

/**
 * What the walk can reach in one app, read once and read again when it changes: Express
 * changes an app's routing only by appending to a stack (`app.use`, `app.route`, `app.get`,
 * `router.use`, …, each a push onto the app's, a router's or a route's own `stack`; a route's
 * methods change only with a push onto that route's `stack`), so a table whose every stack still
 * has the length it was read with, on the object it was read from, describes the app as it is.
 * A stack shortened (`splice`) or replaced by another array is seen the same way.
 */
interface RouteTable {
  readonly root: readonly Layer[];
  readonly rootLength: number;
  /** Each stack read after the root (routers', versions' and routes'), and where it hangs. */
  readonly owners: readonly { readonly stack?: unknown }[];
  readonly stacks: readonly (readonly unknown[])[];
  readonly lengths: readonly number[];
  /** The layer stacks read (the root's, routers', versions'). */
  readonly layerStacks: readonly (readonly Layer[])[];
  /** The upper-case methods of each route that serves some methods, but not all of them. */
  readonly routeMethods: ReadonlyMap<Layer, ReadonlySet<string>>;
  /** The stacks a router layer leads to (its router's, its versions'). */
  readonly below: ReadonlyMap<Layer, readonly (readonly Layer[])[]>;
  /** Per method asked: the routes refusing it, and the layers leading to them. */
  readonly refusing: Map<string, RefusingRoutes>;
}

/**
 * The routes refusing a method (serving others), and the layers of each stack that lead to
 * them, in their order; a stack leading to none is absent. Empty: every route serves the method.
 */
export type RefusingRoutes = ReadonlyMap<readonly Layer[], readonly Layer[]>;

const tables = new WeakMap<object, RouteTable>();

const MAX_METHODS_KEPT = 64;

/** The methods a route serves, as `collect` reads them; `undefined` for every method. */
function routeMethods(route: NonNullable<Layer['route']>): Set<string> | undefined {
  const methods = route.methods ?? {};
  const served = new Set<string>();
  let count = 0;
  let all = false;
  for (const method in methods) {
    if (!methods[method]) continue;
    count++;
    if (method === '_all') all = true;
    served.add(method.toUpperCase());
  }
  return all || count > ALL_METHODS_THRESHOLD ? undefined : served;
}

/** Reads every route reachable from `root`; `undefined` when a route's changes cannot be seen. */
function readTable(root: readonly Layer[]): RouteTable | undefined {
  const owners: { stack?: unknown }[] = [];
  const stacks: (readonly unknown[])[] = [];
  const lengths: number[] = [];
  const layerStacks: (readonly Layer[])[] = [root];
  const methodsOf = new Map<Layer, ReadonlySet<string>>();
  const below = new Map<Layer, (readonly Layer[])[]>();
  const seen = new Set<readonly unknown[]>([root]);
  let complete = true;

  /** The owner's stack, noted (with its length) the first time it is seen. */
  function note(owner: unknown): { stack: readonly Layer[]; first: boolean } | undefined {
    const stack = stackOf(owner);
    if (stack === undefined) return undefined;
    if (seen.has(stack)) return { stack, first: false };
    seen.add(stack);
    owners.push(owner as { stack?: unknown });
    stacks.push(stack);
    lengths.push(stack.length);
    return { stack, first: true };
  }

  // Every stack `collect` could enter for some path (a superset is only more cautious).
  function read(stack: readonly Layer[]): void {
    for (const layer of stack) {
      const route = layer.route;
      if (route !== undefined) {
        if (!Array.isArray((route as { stack?: unknown }).stack)) complete = false;
        note(route);
        const methods = routeMethods(route);
        // A route serving every method, or none, never makes a 405 by itself.
        if (methods !== undefined && methods.size > 0) methodsOf.set(layer, methods);
        continue;
      }
      const leadsTo: (readonly Layer[])[] = [];
      const enter = (owner: unknown) => {
        const inner = note(owner);
        if (inner === undefined) return;
        leadsTo.push(inner.stack);
        if (inner.first) {
          layerStacks.push(inner.stack);
          read(inner.stack);
        }
      };
      enter(layer.handle);
      const versions = (
        layer.handle as { [MOUNTED_VERSIONS]?: readonly MountedVersion[] } | null
      )?.[MOUNTED_VERSIONS];
      if (versions !== undefined) {
        // versioned-router freezes its list; another list could change unseen.
        if (!Object.isFrozen(versions)) complete = false;
        for (const version of versions) enter(version.handler);
      }
      if (leadsTo.length > 0) below.set(layer, leadsTo);
    }
  }

  read(root);
  if (!complete) return undefined;
  return {
    root,
    rootLength: root.length,
    owners,
    stacks,
    lengths,
    layerStacks,
    routeMethods: methodsOf,
    below,
    refusing: new Map(),
  };
}

function isCurrent(table: RouteTable, root: readonly Layer[]): boolean {
  if (table.root !== root) return false;
  const { owners, stacks, lengths } = table;
  if (root.length !== table.rootLength) return false;
  for (let index = 0; index < stacks.length; index++) {
    const stack = stacks[index]!;
    if (stack.length !== lengths[index] || owners[index]!.stack !== stack) return false;
  }
  return true;
}

function refusingIn(table: RouteTable, method: string): RefusingRoutes {
  const refuses = (layer: Layer) => {
    const methods = table.routeMethods.get(layer);
    return (
      methods !== undefined && !methods.has(method) && !(method === 'HEAD' && methods.has('GET'))
    );
  };
  const leading = new Set<readonly Layer[]>();
  const leads = (layer: Layer) =>
    refuses(layer) || (table.below.get(layer)?.some((stack) => leading.has(stack)) ?? false);
  // Routers can be mounted in each other (and in themselves): until nothing changes.
  for (let changed = true; changed; ) {
    changed = false;
    for (const stack of table.layerStacks) {
      if (!leading.has(stack) && stack.some(leads)) {
        leading.add(stack);
        changed = true;
      }
    }
  }
  return new Map([...leading].map((stack) => [stack, stack.filter(leads)]));
}

/**
 * The routes of `app` that refuse `method` (they serve other methods), with the layers leading
 * to them: only a path one of them matches can answer 405 to `method`, so a request whose path
 * none matches needs no walk of the other routes; when there is none (GET in many APIs), no
 * request needs a walk. Read from a table of the app's routes kept per app, read again whenever
 * a stack has changed since. `undefined` when the routes cannot be tabled (walk them all).
 */
export function routesRefusing(app: unknown, method: string): RefusingRoutes | undefined {
  if ((typeof app !== 'function' && typeof app !== 'object') || app === null) return undefined;
  const root = appStack(app);
  let table = tables.get(app);
  if (table === undefined || !isCurrent(table, root)) {
    table = readTable(root);
    if (table === undefined) return undefined;
    tables.set(app, table);
  }
  let refusing = table.refusing.get(method);
  if (refusing === undefined) {
    refusing = refusingIn(table, method);
    // Node's parser knows a few dozen methods; anything else (a hand-made request) is not kept.
    if (table.refusing.size < MAX_METHODS_KEPT) table.refusing.set(method, refusing);
  }
  return refusing;
}

const NO_LAYERS: readonly Layer[] = [];

/** Whether one of `refusing` matches `path` in `app`, matched exactly as `servedMethods` does. */
export function refusedAt(app: unknown, path: string, refusing: RefusingRoutes): boolean {
  const found: Found = { methods: new Set<string>(), anyMethod: false, enough: undefined };
  collect(appStack(app), path, found, 0, (stack) => refusing.get(stack) ?? NO_LAYERS);
  return found.methods.size > 0;
}

/** RFC 9110 §9 order, then any extension methods alphabetically. */
const METHOD_ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * What `Allow` lists for a path an `.all()` route serves: the methods of RFC 9110 §9 a resource
 * serves, and PATCH (RFC 5789). Not CONNECT, which Node hands to the server's `connect` event
 * and never to Express (RFC 9110 §9.3.6: it is for proxies), nor TRACE, which echoes the
 * request (RFC 9110 §9.3.8) and is best left off an API.
 */
export const ANY_METHOD_ALLOW: readonly string[] = Object.freeze([...METHOD_ORDER]);

/**
 * The `Allow` list for the served methods: HEAD wherever GET is (RFC 9110 §9.3.2, and Express
 * answers it), OPTIONS always (this package answers it), `ANY_METHOD_ALLOW` and the other
 * routes' methods where an `.all()` route matches. Empty when nothing is served.
 */
export function allowList(served: ServedMethods): string[] {
  if (served.methods.size === 0 && !served.anyMethod) return [];
  const methods = new Set(served.methods);
  if (served.anyMethod) for (const method of ANY_METHOD_ALLOW) methods.add(method);
  if (methods.has('GET')) methods.add('HEAD');
  methods.add('OPTIONS');
  return [...methods].sort((a, b) => {
    const ia = METHOD_ORDER.indexOf(a);
    const ib = METHOD_ORDER.indexOf(b);
    if (ia !== -1 || ib !== -1) return (ia === -1 ? 99 : ia) - (ib === -1 ? 99 : ib);
    return a < b ? -1 : 1;
  });
}
