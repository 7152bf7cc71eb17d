/**
 * @module kubectl proxy's request filter: hosts, paths and methods matched with regular
 * expressions (comma-separated lists, unanchored, as Go's `MatchString`). A rejected request
 * gets `403 Forbidden` in plain text and nothing goes upstream.
 */
import { assertKnownOptions, assertOptionsObject, invalidOption } from '@resourceful/option-checks';
import { translateGoRegExp } from './go-regexp.js';

/** kubectl proxy's defaults, flag for flag. */
export const DEFAULT_ACCEPT_HOSTS = '^localhost$,^127\\.0\\.0\\.1$,^\\[::1\\]$';
export const DEFAULT_ACCEPT_PATHS = '^.*';
export const DEFAULT_REJECT_PATHS = '^/api/.*/pods/.*/exec,^/api/.*/pods/.*/attach';
export const DEFAULT_REJECT_METHODS = '^$';

export interface RequestFilterOptions {
  acceptHosts?: string;
  acceptPaths?: string;
  rejectPaths?: string;
  rejectMethods?: string;
}

export interface RequestFilter {
  /** `true` when kubectl proxy would let the request through. `path` is the decoded path. */
  accepts(method: string, path: string, hostHeader: string): boolean;
}

/**
 * Compiles a comma-separated list as kubectl does (`strings.Split(s, ",")`; an empty string is
 * one empty pattern, which matches everything). Go's leading `(?i)`-style flags become JS flags,
 * and the rest of Go's syntax is translated where JavaScript reads it otherwise (go-regexp.ts).
 * A list that is not a string, or holds an invalid expression, is refused naming the option
 * and kubectl's flag.
 */
export function compilePatterns(
  list: unknown,
  option: string,
  flagName: string,
  factory = 'createRequestFilter',
): RegExp[] {
  const expected = `a comma-separated list of regular expressions (kubectl's --${flagName})`;
  if (typeof list !== 'string') invalidOption(factory, option, expected, list);
  return list.split(',').map((source) => {
    const flags = /^\(\?([imsU]+)\)/.exec(source);
    const body = flags ? source.slice(flags[0].length) : source;
    const jsFlags = (flags?.[1] ?? '').replace(/[^ims]/g, '');
    try {
      const translated = translateGoRegExp(body, jsFlags.includes('s'));
      return new RegExp(translated.source, jsFlags + (translated.unicode ? 'u' : ''));
    } catch (error) {
      return invalidOption(
        factory,
        option,
        expected,
        list,
        ` --${flagName}: "${source.slice(0, 40)}" is not a valid regular expression (${(error as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '')}).`,
      );
    }
  });
}

/**
 * The host part of a Host header the way Go's `net.SplitHostPort` gives it, falling back to
 * the whole value when it fails, as kubectl does: `localhost:8001` → `localhost`,
 * `[::1]:8001` → `::1` (so the default `^\[::1\]$` does not match it), `[::1]` → `[::1]`.
 */
export function hostForFilter(hostHeader: string): string {
  if (hostHeader.startsWith('[')) {
    const end = hostHeader.indexOf(']');
    if (end !== -1 && hostHeader[end + 1] === ':' && !hostHeader.slice(end + 2).includes(':')) {
      const host = hostHeader.slice(1, end);
      return host.includes('[') ? hostHeader : host;
    }
    return hostHeader;
  }
  const colon = hostHeader.lastIndexOf(':');
  if (colon === -1 || hostHeader.indexOf(':') !== colon) return hostHeader;
  return hostHeader.slice(0, colon);
}

const FILTER_OPTION_NAMES = ['acceptHosts', 'acceptPaths', 'rejectPaths', 'rejectMethods'];

export function createRequestFilter(options: RequestFilterOptions = {}): RequestFilter {
  assertOptionsObject('createRequestFilter', options);
  assertKnownOptions('createRequestFilter', options, FILTER_OPTION_NAMES);
  return requestFilter(options, 'createRequestFilter');
}

/** The filter of checked options; `factory` names the caller in construction errors. */
export function requestFilter(options: RequestFilterOptions, factory: string): RequestFilter {
  const compile = (option: keyof RequestFilterOptions, flag: string, fallback: string) =>
    compilePatterns(
      options[option] === undefined ? fallback : options[option],
      option,
      flag,
      factory,
    );
  const acceptHosts = compile('acceptHosts', 'accept-hosts', DEFAULT_ACCEPT_HOSTS);
  const acceptPaths = compile('acceptPaths', 'accept-paths', DEFAULT_ACCEPT_PATHS);
  const rejectPaths = compile('rejectPaths', 'reject-paths', DEFAULT_REJECT_PATHS);
  const rejectMethods = compile('rejectMethods', 'reject-methods', DEFAULT_REJECT_METHODS);
  const any = (patterns: readonly RegExp[], text: string) =>
    patterns.some((pattern) => pattern.test(text));
  return {
    accepts(method, path, hostHeader) {
      if (any(rejectPaths, path)) return false;
      if (any(rejectMethods, method)) return false;
      return any(acceptPaths, path) && any(acceptHosts, hostForFilter(hostHeader));
    },
  };
}
