export {
  type CheckRoutesOptions,
  checkRoutes,
  type RouteFinding,
  type RoutePattern,
  type RouteRule,
} from './check-routes.js';
export { type DeprecationOptions, formatStructuredDate } from './deprecation.js';
export { listRoutes, type RouteInfo } from './express-routes.js';
export {
  DEFAULT_DISCOVERY_PATH,
  type VersionedRouterOptions,
  type VersionHandler,
  type VersionOptions,
} from './options.js';
export { isVersionLike } from './version-segment.js';
export {
  MOUNTED_VERSIONS,
  type MountedVersion,
  type VersionedRouterMiddleware,
  versionedRouter,
} from './versioned-router.js';
export { DEFAULT_VERBS, isPluralWord } from './words.js';
