/**
 * @module `@resourceful/versioned-router/check-routes`, the dev-time route checker, an entry point
 * of its own so that the router does not carry its word lists and route decoding. The checker: lists the routes of an app that break the spec's path rules
 * ("Path shape", "Verbs and idempotency"):
 *
 * - the version is the first segment (`version-prefix`);
 * - collections are plural nouns (`plural-collection`);
 * - no verbs, except in routes declared as complex operations (`verb-in-path`);
 * - at most two levels of identifiers (`identifier-depth`);
 * - never an identifier straight after another identifier (`identifier-after-identifier`).
 */

import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  invalidOption,
} from '@resourceful/option-checks';
import { listRoutes, type RouteInfo } from './express-routes.js';
import { isVersionLike } from './version-segment.js';
import { DEFAULT_VERBS, isPluralWord, splitWords } from './words.js';

export { listRoutes, type RouteInfo } from './express-routes.js';
export { DEFAULT_VERBS, isPluralWord } from './words.js';

export type RouteRule =
  | 'version-prefix'
  | 'plural-collection'
  | 'verb-in-path'
  | 'identifier-depth'
  | 'identifier-after-identifier';

export interface RouteFinding {
  method: string;
  path: string;
  rule: RouteRule;
  message: string;
}

/** A route path (`/v1/payments/billing-agreements/:id/suspend`, `{id}` works too), or a RegExp. */
export type RoutePattern = string | RegExp;

export interface CheckRoutesOptions {
  /**
   * Routes that are complex operations (actions, composite, transient, search): their last
   * segment may be a verb or singular. A path (`/v1/risk/evaluate`,
   * `/v1/payments/billing-agreements/{id}/suspend`; parameter names do not matter), a bare
   * segment name (`'suspend'`: any route ending in it), or a RegExp tested on the full path.
   * @default []
   */
  complexOperations?: readonly RoutePattern[];
  /**
   * Words that count as verbs. Replaces the default list; extend it with
   * `[...DEFAULT_VERBS, 'approve']`.
   * @default DEFAULT_VERBS
   */
  verbs?: readonly string[];
  /**
   * Segment names (or last words of a segment) accepted as collection names although they do
   * not look plural: singleton sub-resources, mass nouns, irregular plurals.
   * @default []
   */
  allowSingular?: readonly string[];
  /**
   * Report routes whose first segment is not a version (`v1`, `v1.0`).
   * @default true
   */
  requireVersion?: boolean;
  /**
   * Levels of identifiers allowed in one path (the spec says two).
   * @default 2
   */
  maxIdentifiers?: number;
  /** Routes left out of the check: paths as for `complexOperations`, or RegExps. @default [] */
  ignore?: readonly RoutePattern[];
}

const KNOWN_OPTIONS = [
  'complexOperations',
  'verbs',
  'allowSingular',
  'requireVersion',
  'maxIdentifiers',
  'ignore',
] as const;

interface Segment {
  text: string;
  identifier: boolean;
}

/**
 * Segments of an Express 4 or 5 path; parameters are identifiers. Wildcards (`*`, `*rest`) match
 * any remainder, not one resource, so they are left out.
 */
function segmentsOf(path: string): Segment[] {
  return path
    .replace(/[{}]/g, '') // Express 5 optional groups: `/cards{/:id}` is checked as `/cards/:id`
    .split('/')
    .filter((text) => text !== '' && !text.startsWith('*'))
    .map((text) => ({ text, identifier: /^[:(]/.test(text) }));
}

/** Compares paths with parameter names ignored: `/a/:id/b` ≡ `/a/{x}/b`. */
function normalizePattern(path: string): string {
  return `/${path
    .split('/')
    .filter((text) => text !== '')
    .map((text) => (/^[:*(]/.test(text) || /^\{.*\}$/.test(text) ? ':' : text.toLowerCase()))
    .join('/')}`;
}

interface Matcher {
  matches(path: string, lastSegment: string | undefined): boolean;
}

function compilePatterns(patterns: readonly RoutePattern[], name: string): Matcher {
  const paths = new Set<string>();
  const names = new Set<string>();
  const regexps: RegExp[] = [];
  for (const pattern of patterns) {
    if (pattern instanceof RegExp) regexps.push(pattern);
    else if (typeof pattern === 'string' && pattern.includes('/'))
      paths.add(normalizePattern(pattern));
    else if (typeof pattern === 'string' && pattern !== '') names.add(pattern.toLowerCase());
    else {
      invalidOption('checkRoutes', name, 'a list of paths, segment names or RegExps', pattern);
    }
  }
  return {
    matches(path, lastSegment) {
      if (paths.has(normalizePattern(path))) return true;
      if (lastSegment !== undefined && names.has(lastSegment.toLowerCase())) return true;
      return regexps.some((regexp) => {
        regexp.lastIndex = 0;
        return regexp.test(path);
      });
    },
  };
}

function stringList(value: unknown, name: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    invalidOption('checkRoutes', name, 'an array of strings', value);
  }
  return value as string[];
}

function patternList(value: unknown, name: string): readonly RoutePattern[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    invalidOption('checkRoutes', name, 'an array', value);
  }
  return value as RoutePattern[];
}

interface Checker {
  complex: Matcher;
  ignored: Matcher;
  verbs: ReadonlySet<string>;
  singular: ReadonlySet<string>;
  requireVersion: boolean;
  maxIdentifiers: number;
}

function resolveChecker(options: unknown): Checker {
  assertOptionsObject('checkRoutes', options);
  assertKnownOptions('checkRoutes', options, KNOWN_OPTIONS);
  const o = options as CheckRoutesOptions;
  const requireVersion = booleanOption('checkRoutes', 'requireVersion', o.requireVersion, true);
  const maxIdentifiers = o.maxIdentifiers === undefined ? 2 : o.maxIdentifiers;
  if (!Number.isInteger(maxIdentifiers) || maxIdentifiers < 0) {
    invalidOption('checkRoutes', 'maxIdentifiers', 'a whole number', o.maxIdentifiers);
  }
  const verbs = stringList(o.verbs, 'verbs') ?? DEFAULT_VERBS;
  const singular = stringList(o.allowSingular, 'allowSingular') ?? [];
  return {
    complex: compilePatterns(
      patternList(o.complexOperations, 'complexOperations'),
      'complexOperations',
    ),
    ignored: compilePatterns(patternList(o.ignore, 'ignore'), 'ignore'),
    verbs: new Set(verbs.map((verb) => verb.toLowerCase())),
    singular: new Set(singular.map((word) => word.toLowerCase())),
    requireVersion,
    maxIdentifiers,
  };
}

interface Problem {
  rule: RouteRule;
  message: string;
}

/** The literal part of a segment, before any Express parameter or pattern syntax. */
function literalOf(text: string): string {
  const cut = text.search(/[:*(?]/);
  return cut === -1 ? text : text.slice(0, cut);
}

function verbIn(literal: string, checker: Checker): string | undefined {
  return splitWords(literal).find((word) => checker.verbs.has(word));
}

function checkPath(path: string, checker: Checker): Problem[] {
  const problems: Problem[] = [];
  const segments = segmentsOf(path);
  let index = 0;
  if (segments[0] !== undefined && !segments[0].identifier && isVersionLike(segments[0].text)) {
    index = 1;
  } else if (checker.requireVersion) {
    problems.push({
      rule: 'version-prefix',
      message: 'The path does not start with a version segment such as "v1".',
    });
  }
  const last = segments[segments.length - 1];
  const complex =
    last !== undefined && !last.identifier && checker.complex.matches(path, literalOf(last.text));
  let identifiers = 0;
  for (let i = index; i < segments.length; i++) {
    const segment = segments[i] as Segment;
    if (segment.identifier) {
      identifiers++;
      const previous = segments[i - 1];
      if (i > index && previous?.identifier) {
        problems.push({
          rule: 'identifier-after-identifier',
          message: `Identifier "${segment.text}" follows identifier "${previous.text}" without a sub-resource name between them.`,
        });
      }
      continue;
    }
    if (complex && i === segments.length - 1) continue; // the operation's own name
    const literal = literalOf(segment.text);
    const verb = verbIn(literal, checker);
    if (verb !== undefined) {
      problems.push({
        rule: 'verb-in-path',
        message: `"${segment.text}" contains the verb "${verb}"; verbs are allowed only in complex operations (declare the route in complexOperations).`,
      });
      continue;
    }
    if (i === index) continue; // the namespace: any noun
    const words = splitWords(literal);
    const lastWord = words[words.length - 1];
    const accepted =
      lastWord === undefined ||
      checker.singular.has(literal.toLowerCase()) ||
      checker.singular.has(lastWord) ||
      isPluralWord(lastWord);
    if (!accepted) {
      problems.push({
        rule: 'plural-collection',
        message: `"${segment.text}" is not a plural noun; collections are named with plural nouns (list singleton sub-resources and mass nouns in allowSingular).`,
      });
    }
  }
  if (identifiers > checker.maxIdentifiers) {
    problems.push({
      rule: 'identifier-depth',
      message: `The path nests ${identifiers} identifiers; at most ${checker.maxIdentifiers} levels are allowed.`,
    });
  }
  return problems;
}

/**
 * Checks every route of an Express 4 or 5 app or router (or a `versionedRouter` middleware)
 * against the spec's path rules and returns one finding per method, path and problem; an empty
 * array means every route complies.
 *
 * @example
 * expect(checkRoutes(app, { complexOperations: ['/v1/risk/evaluate'] })).toEqual([]);
 */
export function checkRoutes(appOrRouter: object, options: CheckRoutesOptions = {}): RouteFinding[] {
  const checker = resolveChecker(options);
  const findings: RouteFinding[] = [];
  const cache = new Map<string, Problem[]>();
  for (const route of listRoutes(appOrRouter) as RouteInfo[]) {
    const segments = segmentsOf(route.path);
    const last = segments[segments.length - 1];
    if (
      checker.ignored.matches(route.path, last === undefined ? undefined : literalOf(last.text))
    ) {
      continue;
    }
    let problems = cache.get(route.path);
    if (problems === undefined) {
      problems = checkPath(route.path, checker);
      cache.set(route.path, problems);
    }
    for (const problem of problems)
      findings.push({ method: route.method, path: route.path, ...problem });
  }
  return findings;
}
