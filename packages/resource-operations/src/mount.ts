/**
 * @module Registering declared operations on a router, and telling the route checker of
 * `@resourceful/versioned-router` which routes they are, so no one keeps that list by hand.
 */
import { OPTION_ERROR_CODES, optionError } from '@resourceful/option-checks';
import type { Operation, OperationHandler } from './types.js';

/**
 * Where `versionedRouter` middleware lists the routers of its versions (`{ handler }` each) for
 * route tools. A `Symbol.for` key, so that this package finds them without depending on
 * versioned-router, whichever build or entry point created the middleware.
 */
const MOUNTED_VERSIONS = Symbol.for('@resourceful/versioned-router/versions');

/** The two methods of an Express 4 or 5 router (or app) that operations register with. */
export interface RouterLike {
  get(path: string, handler: OperationHandler): unknown;
  post(path: string, handler: OperationHandler): unknown;
}

/** Where a router keeps the route paths of the operations mounted on it. */
export const DECLARED_OPERATIONS = Symbol.for('@resourceful/resource-operations/declared');

type Tagged = { [DECLARED_OPERATIONS]?: string[] };

/**
 * Registers every route of the operations on the router (a `POST` per operation, the `GET`s of
 * histories and created records), and remembers the operations' own paths on it for
 * `complexOperationRoutes`.
 */
export function mountOperations(router: RouterLike, operations: readonly Operation[]): void {
  if (typeof router !== 'object' && typeof router !== 'function') {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'mountOperations',
      'expected an Express router or app.',
      'router',
    );
  }
  if (!Array.isArray(operations)) {
    throw optionError(
      OPTION_ERROR_CODES.invalidOption,
      'mountOperations',
      'operations must be an array of declared operations.',
      'operations',
    );
  }
  const tagged = router as RouterLike & Tagged;
  if (!Object.hasOwn(tagged, DECLARED_OPERATIONS)) {
    Object.defineProperty(tagged, DECLARED_OPERATIONS, { value: [] });
  }
  const declared = tagged[DECLARED_OPERATIONS] as string[];
  for (const operation of operations) {
    if (!Array.isArray(operation?.routes)) {
      throw optionError(
        OPTION_ERROR_CODES.invalidOption,
        'mountOperations',
        'every entry must be a declared operation (from subResourceActions, compositeOperation, …).',
        'operations',
      );
    }
    for (const route of operation.routes) {
      if (route.method === 'GET') router.get(route.path, route.handler);
      else router.post(route.path, route.handler);
      if (route.complexOperation) declared.push(route.path);
    }
  }
}

/** A path as a pattern for any mount prefix: `/a/:id/b` → `^(?:/[^/]+)*?/a/[^/]+/b$`. */
export function operationPattern(path: string): RegExp {
  const body = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) =>
      segment.startsWith(':') ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'),
    )
    .join('/');
  return new RegExp(`^(?:/[^/]+)*?/${body}$`);
}

interface Layer {
  handle?: unknown;
}

function stackOf(value: unknown): readonly Layer[] | undefined {
  if ((typeof value === 'function' || typeof value === 'object') && value !== null) {
    const stack = (value as { stack?: unknown }).stack;
    if (Array.isArray(stack)) return stack as Layer[];
  }
  return undefined;
}

/** An app's own stack: Express 4 keeps it on `_router` (created lazily), Express 5 on `router`. */
function rootStack(app: object): readonly Layer[] {
  const own = stackOf(app);
  if (own !== undefined) return own;
  const candidate = app as { lazyrouter?: unknown; _router?: unknown; router?: unknown };
  // Express 4's `app.router` getter throws; its router is `_router`.
  if (typeof candidate.lazyrouter === 'function') return stackOf(candidate._router) ?? [];
  return stackOf(candidate.router) ?? [];
}

function collect(value: unknown, into: Set<string>, seen: Set<unknown>): void {
  if ((typeof value !== 'function' && typeof value !== 'object') || value === null) return;
  if (seen.has(value)) return;
  seen.add(value);
  for (const path of (value as Tagged)[DECLARED_OPERATIONS] ?? []) into.add(path);
  for (const layer of stackOf(value) ?? []) collect(layer.handle, into, seen);
  const versions = (value as { [MOUNTED_VERSIONS]?: unknown })[MOUNTED_VERSIONS];
  if (Array.isArray(versions)) {
    for (const version of versions) collect((version as { handler?: unknown }).handler, into, seen);
  }
}

/**
 * The operations mounted anywhere in an app (or router), as patterns for the route checker's
 * `complexOperations`: their last segment may be a verb or singular.
 *
 * @example
 * expect(checkRoutes(app, { complexOperations: complexOperationRoutes(app) })).toEqual([]);
 */
export function complexOperationRoutes(appOrRouter: object): RegExp[] {
  const paths = new Set<string>();
  const seen = new Set<unknown>([appOrRouter]);
  for (const path of (appOrRouter as Tagged)[DECLARED_OPERATIONS] ?? []) paths.add(path);
  for (const layer of rootStack(appOrRouter)) collect(layer.handle, paths, seen);
  return [...paths].map(operationPattern);
}
