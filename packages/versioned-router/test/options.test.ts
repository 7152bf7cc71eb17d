import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DISCOVERY_PATH,
  formatStructuredDate,
  isVersionLike,
  type VersionedRouterOptions,
  versionedRouter,
} from '../src/index.js';
import { MOUNTED_VERSIONS } from '../src/mounted-versions.js';

const router = () => {};

describe('versionedRouter options', () => {
  it('returns a named middleware that lists its versions for the route checker', () => {
    const middleware = versionedRouter({ versions: { v1: router, 'v2.0': { router } } });
    expect(middleware.name).toBe('versionedRouterMiddleware');
    expect(middleware[MOUNTED_VERSIONS].map((v) => v.prefix)).toEqual(['/v1', '/v2.0']);
    // The key is registered, so the check-routes entry point (its own bundle) finds the versions.
    expect(MOUNTED_VERSIONS).toBe(Symbol.for('@resourceful/versioned-router/versions'));
    expect(DEFAULT_DISCOVERY_PATH).toBe('/api');
  });

  it('accepts undefined optional values and does not mutate the options', () => {
    const options = Object.freeze({
      versions: Object.freeze({ v1: router }),
      discoveryPath: undefined,
      header: undefined,
      help: undefined,
    });
    expect(() => versionedRouter(options)).not.toThrow();
    expect(() =>
      versionedRouter({ versions: { v1: router }, header: false, discoveryPath: false }),
    ).not.toThrow();
  });

  it.each([
    [undefined, /options must be an object/],
    [{}, /"versions" is required: an object such as \{ v1: v1Router \}/],
    [{ versions: {} }, /at least one version/],
    [
      { versions: { v1: router }, headers: 'Api-Version' },
      /unknown option "headers". Did you mean "header"\?/,
    ],
    [{ versions: { V1: router } }, /"versions" must be keyed by names like "v1" or "v1.0".*"V1"/],
    [{ versions: { v01: router } }, /keyed by names like.*"v01"/],
    [{ versions: { '1': router } }, /keyed by names like.*"1"/],
    [{ versions: { 'v1.2.3': router } }, /keyed by names like/],
    [{ versions: { v1: router, 'v1.0': router } }, /"v1" and "v1.0" name the same version/],
    [{ versions: { v1: 'router' } }, /"versions.v1" must be a router or \{ router, deprecation \}/],
    [{ versions: { v1: {} } }, /"versions.v1.router" must be an Express router/],
    [
      { versions: { v1: { router, deprecated: {} } } },
      /unknown option "versions.v1.deprecated". Did you mean "versions.v1.deprecation"\?/,
    ],
    [{ versions: { v1: { router, deprecation: true } } }, /deprecation" must be an object/],
    [{ versions: { v1: { router, deprecation: {} } } }, /deprecation.date" must be a Date/],
    [
      { versions: { v1: { router, deprecation: { date: 'soon' } } } },
      /deprecation.date" must be a Date/,
    ],
    [
      { versions: { v1: { router, deprecation: { date: '2025-01-01', sunset: '2024-01-01' } } } },
      /sunset" must not be earlier than .*date/,
    ],
    [
      { versions: { v1: { router, deprecation: { date: '2025-01-01', link: 'a b' } } } },
      /link" must be a URL without spaces/,
    ],
    [
      { versions: { v1: { router, deprecation: { date: '2025-01-01', link: 'x>; rel="next"' } } } },
      /link" must be a URL without spaces/,
    ],
    [
      { versions: { v1: { router, deprecation: { date: '2025-01-01', link: 'no-scheme' } } } },
      /link" must be an absolute URL or a path/,
    ],
    [
      { versions: { v1: { router, deprecation: { date: 0, until: 1 } } } },
      /unknown option "versions.v1.deprecation.until"/,
    ],
    [
      { versions: { v1: router }, discoveryPath: 'api' },
      /"discoveryPath" must be a path such as "\/api"/,
    ],
    [{ versions: { v1: router }, discoveryPath: '/a b' }, /"discoveryPath" must be a path/],
    [
      { versions: { v1: router }, discoveryPath: '/v2/list' },
      /does not start with a version segment/,
    ],
    [{ versions: { v1: router }, header: 'Api Version' }, /"header" must be a header name/],
    [{ versions: { v1: router }, header: true }, /"header" must be a header name/],
    [{ versions: { v1: router }, help: 'a <url>' }, /"help" must be a URL/],
    [{ versions: { v1: router }, help: 'http://[' }, /"help" must be a URL/],
    [{ versions: { v1: router }, help: true }, /"help" must be a URL/],
    [{ versions: { v1: router }, help: [] }, /"help" must be at least one URL/],
    [{ versions: { v1: router }, help: ['/docs', 'a b'] }, /"help" must be a URL/],
  ])('refuses %j', (options, message) => {
    expect(() => versionedRouter(options as unknown as VersionedRouterOptions)).toThrow(message);
  });

  it.each([
    [{}, 'ERR_RESOURCEFUL_MISSING_OPTION', 'versions'],
    [{ versions: { v1: router }, headr: 'x' }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION', 'headr'],
    [
      { versions: { v1: { router, deprecation: { dat: 0 } } } },
      'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      'versions.v1.deprecation.dat',
    ],
    [{ versions: { v1: 'router' } }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'versions.v1'],
    [{ versions: { v1: router }, header: true }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'header'],
    [
      { versions: { v1: router, 'v1.0': router } },
      'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
      'versions.v1.0',
    ],
    [
      { versions: { v1: { router, deprecation: { date: 1000, sunset: 0 } } } },
      'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
      'versions.v1.deprecation.sunset',
    ],
  ])('gives %j a stable code and names the option', (options, code, option) => {
    expect(() => versionedRouter(options as unknown as VersionedRouterOptions)).toThrow(
      expect.objectContaining({ code, option, factory: 'versionedRouter' }),
    );
  });

  it('accepts a relative link and a sunset equal to the deprecation date', () => {
    expect(() =>
      versionedRouter({
        versions: { v1: { router, deprecation: { date: 0, sunset: 0, link: '/docs/migrate' } } },
      }),
    ).not.toThrow();
  });
});

describe('formatStructuredDate', () => {
  it('writes an RFC 9651 Date: "@" and whole seconds since the epoch', () => {
    expect(formatStructuredDate(new Date('2023-06-30T23:59:59.999Z'))).toBe('@1688169599');
    expect(formatStructuredDate(new Date(0))).toBe('@0');
  });
});

describe('isVersionLike', () => {
  it.each([
    ['v1', true],
    ['V2', true],
    ['v1.0', true],
    ['v01', true],
    ['v', false],
    ['v1.', false],
    ['v1.0.0', false],
    ['version', false],
    ['1', false],
  ])('%s → %s', (segment, expected) => {
    expect(isVersionLike(segment)).toBe(expected);
  });
});
