/**
 * @module The options of `versionedRouter`, checked and resolved once.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  assertKnownOptions,
  assertOptionsObject,
  helpLinkOption,
  invalidOption,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import {
  type DeprecationHeaders,
  type DeprecationOptions,
  resolveDeprecation,
} from './deprecation.js';
import { declaredVersionKey, isVersionLike } from './version-segment.js';

/**
 * A version's request handler: an Express `Router` (4 or 5), or any `(req, res, next)` function.
 * Declared as a method so that handlers typed with Express's `Request` are accepted.
 */
export type VersionHandler = {
  handle(req: IncomingMessage, res: ServerResponse, next: (err?: unknown) => void): unknown;
}['handle'];

export interface VersionOptions {
  /** The version's router. */
  router: VersionHandler;
  /** Marks the version deprecated: every response under it carries the deprecation headers. */
  deprecation?: DeprecationOptions;
}

export interface VersionedRouterOptions {
  /**
   * The served versions, in the order discovery lists them: name (`v1`, `v2`, `v2.1`) → router,
   * or `{ router, deprecation }`. `v1` also answers `/v1.0`, and `v1.0` also answers `/v1`.
   */
  versions: Readonly<Record<string, VersionHandler | VersionOptions>>;
  /**
   * Path (relative to where the middleware is mounted) answering `GET` with
   * `{ "versions": [...] }`; `false` for none.
   * @default '/api'
   */
  discoveryPath?: string | false;
  /**
   * Header that selects the version for paths without a version segment; the same name is
   * accepted as a query parameter. `false` (the default) selects by path only, as the spec
   * prefers.
   * @default false
   */
  header?: string | false;
  /**
   * URL of the API's documentation, sent on the discovery path's OPTIONS answer as
   * `Link: <help>; rel="help"` (RFC 8288), as `@resourceful/http-conventions`' `allowedMethods`
   * sends it on every other path; several URLs are one link each, in order. `false` sends none.
   * @default false
   */
  help?: string | readonly string[] | false;
}

export interface ResolvedVersion {
  /** As declared: `v1`, `v2.1`. */
  readonly name: string;
  /** Canonical `major.minor`. */
  readonly key: string;
  readonly handler: VersionHandler;
  readonly deprecation: DeprecationHeaders | undefined;
}

export interface ResolvedOptions {
  readonly versions: readonly ResolvedVersion[];
  readonly byKey: ReadonlyMap<string, ResolvedVersion>;
  readonly discoveryPath: string | undefined;
  readonly header: string | undefined;
  /** The `Link` value of the discovery path's OPTIONS answer, or `undefined`. */
  readonly helpLink: string | undefined;
}

export const DEFAULT_DISCOVERY_PATH = '/api';

const FACTORY = 'versionedRouter';
const KNOWN_OPTIONS = ['versions', 'discoveryPath', 'header', 'help'] as const;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}$/;
const DISCOVERY_PATH = /^(\/[A-Za-z0-9._~!$&'()*+,;=:@-]+)+$/;

function resolveVersion(name: string, value: unknown): ResolvedVersion {
  const key = declaredVersionKey(name);
  if (key === undefined) {
    invalidOption(
      FACTORY,
      'versions',
      'keyed by names like "v1" or "v1.0" (lower-case v, numbers without leading zeros)',
      name,
    );
  }
  if (typeof value === 'function') {
    return { name, key, handler: value as VersionHandler, deprecation: undefined };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    invalidOption(FACTORY, `versions.${name}`, 'a router or { router, deprecation }', value);
  }
  assertKnownOptions(FACTORY, value, ['router', 'deprecation'], `versions.${name}`);
  const { router, deprecation } = value as { router?: unknown; deprecation?: unknown };
  if (typeof router !== 'function') {
    invalidOption(
      FACTORY,
      `versions.${name}.router`,
      'an Express router or a (req, res, next) function',
      router,
    );
  }
  return {
    name,
    key,
    handler: router as VersionHandler,
    deprecation:
      deprecation === undefined
        ? undefined
        : resolveDeprecation(deprecation, `versions.${name}.deprecation`),
  };
}

/** Checks the options and resolves the defaults; throws a TypeError that says how to fix them. */
export function resolveOptions(options: unknown): ResolvedOptions {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, KNOWN_OPTIONS);
  const { versions, discoveryPath, header, help } = options as Partial<VersionedRouterOptions>;
  if (versions === null || typeof versions !== 'object' || Array.isArray(versions)) {
    if (versions === undefined) {
      throw optionError(
        OPTION_ERROR_CODES.missingOption,
        FACTORY,
        '"versions" is required: an object such as { v1: v1Router }.',
        'versions',
      );
    }
    invalidOption(FACTORY, 'versions', 'an object such as { v1: v1Router }', versions);
  }
  const resolved: ResolvedVersion[] = [];
  const byKey = new Map<string, ResolvedVersion>();
  for (const [name, value] of Object.entries(versions)) {
    const version = resolveVersion(name, value);
    const clash = byKey.get(version.key);
    if (clash !== undefined) {
      throw optionError(
        OPTION_ERROR_CODES.conflictingOptions,
        FACTORY,
        `"${clash.name}" and "${name}" name the same version (a major-only version implies ".0"); declare one of them.`,
        `versions.${name}`,
      );
    }
    byKey.set(version.key, version);
    resolved.push(version);
  }
  if (resolved.length === 0) {
    invalidOption(FACTORY, 'versions', 'at least one version, such as { v1: v1Router }', versions);
  }

  let discovery: string | undefined = DEFAULT_DISCOVERY_PATH;
  if (discoveryPath === false) discovery = undefined;
  else if (discoveryPath !== undefined) {
    if (typeof discoveryPath !== 'string' || !DISCOVERY_PATH.test(discoveryPath)) {
      invalidOption(FACTORY, 'discoveryPath', 'a path such as "/api", or false', discoveryPath);
    }
    const first = discoveryPath.split('/')[1] ?? '';
    if (isVersionLike(first)) {
      invalidOption(
        FACTORY,
        'discoveryPath',
        'a path that does not start with a version segment',
        discoveryPath,
      );
    }
    discovery = discoveryPath;
  }

  let headerName: string | undefined;
  if (header !== undefined && header !== false) {
    if (typeof header !== 'string' || !HEADER_NAME.test(header)) {
      invalidOption(FACTORY, 'header', 'a header name such as "Api-Version", or false', header);
    }
    headerName = header;
  }

  return {
    versions: resolved,
    byKey,
    discoveryPath: discovery,
    header: headerName,
    helpLink: helpLinkOption(FACTORY, help),
  };
}
