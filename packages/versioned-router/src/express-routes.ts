/**
 * @module Listing the routes of an Express 4 or 5 app or router, from the router internals.
 *
 * Express 4: `app._router.stack`; a mounted router's path survives only in `layer.regexp` (built
 * by path-to-regexp 0.1) and `layer.keys`, so it is decoded back from the regexp source.
 * Express 5 (router 2.3+): `app.router.stack`; the path is kept as `layer.rawPath`.
 * Routes: `layer.route.path` and `layer.route.methods` in both.
 */
import { MOUNTED_VERSIONS, type MountedVersion } from './mounted-versions.js';

/** One method of one registered route path, with its mount prefixes joined. */
export interface RouteInfo {
  /** Upper-case method; `ALL` for `.all()`. */
  method: string;
  /** The full path as registered, for instance `/v1/vault/credit-cards/:id`. */
  path: string;
}

interface Layer {
  route?: { path?: unknown; methods?: Record<string, boolean | undefined> };
  handle?: unknown;
  regexp?: RegExp & { fast_slash?: boolean };
  keys?: { name: string | number }[];
  rawPath?: unknown;
  slash?: boolean;
}

type Stack = readonly Layer[];

function stackOf(value: unknown): Stack | undefined {
  if ((typeof value === 'function' || typeof value === 'object') && value !== null) {
    const stack = (value as { stack?: unknown }).stack;
    if (Array.isArray(stack)) return stack as Stack;
  }
  return undefined;
}

/** The layer stack of an app (Express 4 or 5) or of a router. */
export function routerStack(appOrRouter: object): Stack {
  const own = stackOf(appOrRouter);
  if (own !== undefined) return own;
  const app = appOrRouter as { lazyrouter?: unknown; _router?: unknown; router?: unknown };
  if (typeof app.lazyrouter === 'function') {
    // Express 4 creates `_router` with the first route; `app.router` throws there.
    return stackOf(app._router) ?? [];
  }
  const stack = stackOf(app.router);
  if (stack !== undefined) return stack;
  throw new TypeError('checkRoutes: expected an Express 4 or 5 application or router.');
}

export function joinPaths(...parts: string[]): string {
  const joined = parts.join('/').replace(/\/{2,}/g, '/');
  const trimmed = joined.length > 1 && joined.endsWith('/') ? joined.slice(0, -1) : joined;
  return trimmed.startsWith('/') ? trimmed : `/${trimmed}`;
}

const PARAM_GROUPS = ['(?:\\/([^/]+?))', '(?:\\/([^\\/]+?))'];

/** Reverses path-to-regexp 0.1 for the paths it builds from strings; `undefined` if unsure. */
function decodeExpress4Alternative(
  source: string,
  keys: { name: string | number }[],
): string | undefined {
  let body = source.startsWith('^') ? source.slice(1) : source;
  for (const suffix of ['\\/?(?=\\/|$)', '(?=\\/|$)', '\\/?$', '$']) {
    if (body.endsWith(suffix)) {
      body = body.slice(0, -suffix.length);
      break;
    }
  }
  let path = '';
  let i = 0;
  while (i < body.length) {
    const group = PARAM_GROUPS.find((candidate) => body.startsWith(candidate, i));
    if (group !== undefined) {
      const key = keys.shift();
      if (key === undefined) return undefined;
      path += `/:${String(key.name)}`;
      i += group.length;
      if (body[i] === '?') {
        path += '?';
        i++;
      }
      continue;
    }
    if (body.startsWith('(.*)', i)) {
      keys.shift();
      path += '*';
      i += 4;
      continue;
    }
    const ch = body[i] as string;
    if (ch === '\\') {
      path += body[i + 1] ?? '';
      i += 2;
      continue;
    }
    if ('()[]{}|+?*^$'.includes(ch)) return undefined;
    path += ch;
    i++;
  }
  return path;
}

/** Mount paths of a `use` layer; `undefined` when they cannot be known. */
function mountPaths(layer: Layer): string[] | undefined {
  if (layer.rawPath !== undefined) {
    // Express 5 (router 2.3+)
    const raw = Array.isArray(layer.rawPath) ? layer.rawPath : [layer.rawPath];
    const strings = raw.filter((path): path is string => typeof path === 'string');
    return strings.length === raw.length ? strings : undefined;
  }
  if (layer.slash === true) return ['']; // Express 5 before router 2.3: only "/" is known
  const regexp = layer.regexp;
  if (regexp === undefined) return undefined;
  if (regexp.fast_slash === true) return [''];
  const keys = [...(layer.keys ?? [])];
  const paths: string[] = [];
  for (const alternative of regexp.source.split('|^')) {
    const path = decodeExpress4Alternative(alternative, keys);
    if (path === undefined) return undefined;
    paths.push(path);
  }
  return paths;
}

function routeMethods(methods: Record<string, boolean | undefined> | undefined): string[] {
  if (methods === undefined) return [];
  return Object.keys(methods)
    .filter((name) => methods[name] === true)
    .map((name) => (name === '_all' ? 'ALL' : name.toUpperCase()));
}

function routePaths(path: unknown): string[] {
  const all = Array.isArray(path) ? path.flat(Number.POSITIVE_INFINITY) : [path];
  // RegExp route paths cannot be checked segment by segment; they are left out.
  return all.filter((p): p is string => typeof p === 'string');
}

function mountedVersions(handle: unknown): readonly MountedVersion[] | undefined {
  if (typeof handle !== 'function') return undefined;
  const versions = (handle as unknown as Record<symbol, unknown>)[MOUNTED_VERSIONS];
  return Array.isArray(versions) ? (versions as readonly MountedVersion[]) : undefined;
}

function walk(stack: Stack, prefix: string, out: RouteInfo[], visiting: Set<Stack>): void {
  if (visiting.has(stack)) return; // a router mounted inside itself
  visiting.add(stack);
  for (const layer of stack) {
    if (layer.route !== undefined) {
      for (const path of routePaths(layer.route.path)) {
        for (const method of routeMethods(layer.route.methods)) {
          out.push({ method, path: joinPaths(prefix, path) });
        }
      }
      continue;
    }
    const versions = mountedVersions(layer.handle);
    const child = stackOf(layer.handle);
    if (versions === undefined && child === undefined) continue;
    const mounts = mountPaths(layer);
    if (mounts === undefined) continue;
    for (const mount of mounts) {
      if (versions !== undefined) {
        for (const version of versions) {
          const versionStack = stackOf(version.handler);
          if (versionStack !== undefined) {
            walk(versionStack, joinPaths(prefix, mount, version.prefix), out, visiting);
          }
        }
      } else if (child !== undefined) {
        walk(child, joinPaths(prefix, mount), out, visiting);
      }
    }
  }
  visiting.delete(stack);
}

/**
 * Every route of an app or router, one entry per method and path, with mount paths (including
 * `versionedRouter` versions) joined. Routes registered with a RegExp path, and routers mounted
 * at a RegExp or inside a sub-app (`app.use(path, otherApp)`), are not listed.
 */
export function listRoutes(appOrRouter: object): RouteInfo[] {
  const out: RouteInfo[] = [];
  const versions = mountedVersions(appOrRouter);
  if (versions !== undefined) {
    for (const version of versions) {
      const stack = stackOf(version.handler);
      if (stack !== undefined) walk(stack, version.prefix, out, new Set());
    }
    return out;
  }
  walk(routerStack(appOrRouter), '', out, new Set());
  return out;
}
