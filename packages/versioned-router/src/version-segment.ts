/**
 * @module Version identifiers: `v{N}` and the major.minor form `v{N}.{M}`.
 *
 * `v1` and `v1.0` name the same version: the Microsoft REST API guidelines (§12.1) let a service
 * use a major-only scheme "in which case the '.0' is implied". `v1.1` is another version.
 */

/** A declared version name: lower-case `v`, numbers without leading zeros. */
const DECLARED = /^v(0|[1-9][0-9]{0,8})(?:\.(0|[1-9][0-9]{0,8}))?$/;

/** Anything that looks like a version: `v` or `V`, digits, optionally `.digits`. */
const VERSION_LIKE = /^[vV]([0-9]+)(?:\.([0-9]+))?$/;

/** Whether a path segment looks like a version identifier (served or not). */
export function isVersionLike(segment: string): boolean {
  return VERSION_LIKE.test(segment);
}

/**
 * The canonical key of a declared name (`v1` → `1.0`, `v2.1` → `2.1`), or `undefined` when the
 * name is not a valid declaration.
 */
export function declaredVersionKey(name: string): string | undefined {
  const match = DECLARED.exec(name);
  if (match === null) return undefined;
  return `${match[1]}.${match[2] ?? '0'}`;
}

/**
 * The canonical key of a version sent by a client (`v1`, `V1`, `v1.0`; with `allowBare`, also
 * `1` and `1.0`), or `undefined` when it is not in canonical form (`v01`) or not a version.
 */
export function requestedVersionKey(value: string, allowBare = false): string | undefined {
  const text =
    allowBare && value.length > 0 && value[0] !== 'v' && value[0] !== 'V' ? `v${value}` : value;
  if (text.length > 24) return undefined;
  return declaredVersionKey(text.toLowerCase());
}
