export { type DeprecationOptions, formatStructuredDate } from './deprecation.js';
export {
  DEFAULT_DISCOVERY_PATH,
  type VersionedRouterOptions,
  type VersionHandler,
  type VersionOptions,
} from './options.js';
export { isVersionLike } from './version-segment.js';
export { type VersionedRouterMiddleware, versionedRouter } from './versioned-router.js';
