/**
 * @module How `versionedRouter` middleware tells the route checker (a separate entry point,
 * `@resourceful/versioned-router/check-routes`) which versions it mounts, without the checker
 * importing the router or the router the checker.
 */

/** A version as the route checker sees it: mounted at `/{name}`. */
export interface MountedVersion {
  readonly name: string;
  readonly prefix: string;
  readonly handler: unknown;
}

/**
 * Where `versionedRouter` middleware lists its versions, for `checkRoutes`. `Symbol.for`, so the
 * ESM and CommonJS builds, and the two entry points, recognise each other's middleware.
 */
export const MOUNTED_VERSIONS = Symbol.for('@resourceful/versioned-router/versions');
