/**
 * @module Evaluation of `If-Match` and `If-None-Match` against the current entity tag, in the
 * order of RFC 9110 §13.2.2.
 */
import type { IncomingMessage } from 'node:http';
import { ApiError } from '@resourceful/error-envelope';
import { assertKnownOptions, assertOptionsObject, booleanOption } from '@resourceful/option-checks';
import {
  type EntityTag,
  parseETag,
  parseETagList,
  strongMatch,
  VARIANT_SEPARATOR,
  weakMatch,
} from './entity-tag.js';

/** `proceed`: perform the method. `not-modified`: answer 304 (GET and HEAD only). */
export type PreconditionOutcome = 'proceed' | 'not-modified';

export interface EvaluatePreconditionsOptions {
  /**
   * Answer 428 when an unsafe request to an existing resource carries no `If-Match`
   * (RFC 6585 §3), so that no client can update without saying which version it read.
   * @default false
   */
  requireIfMatch?: boolean;
}

const SAFE_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);

/** GET, HEAD, OPTIONS, TRACE (RFC 9110 §9.2.1). */
export function isSafeMethod(method: string | undefined): boolean {
  return SAFE_METHODS.has((method ?? 'GET').toUpperCase());
}

/**
 * Evaluates the request's preconditions against the current representation's entity tag.
 * Call it only when the request would otherwise succeed: a request that would be a 404 or a 409
 * anyway is answered so, never with 412 (RFC 9110 §13.2.1).
 *
 * @param currentETag the current entity tag, or `undefined` when the resource does not exist
 * @throws ApiError 412 `PRECONDITION_FAILED`, 428 `PRECONDITION_REQUIRED`, or 400
 *   `INVALID_REQUEST` (target `If-Match` / `If-None-Match`) for a malformed header
 * @see https://www.rfc-editor.org/rfc/rfc9110#section-13.2.2
 */
export function evaluatePreconditions(
  req: IncomingMessage,
  currentETag: string | undefined,
  options?: EvaluatePreconditionsOptions,
): PreconditionOutcome {
  const fn = 'evaluatePreconditions';
  if (options !== undefined) {
    assertOptionsObject(fn, options);
    assertKnownOptions(fn, options, ['requireIfMatch']);
  }
  const requireIfMatch = booleanOption(fn, 'requireIfMatch', options?.requireIfMatch, false);
  const current = currentETag === undefined ? undefined : parseETag(currentETag);
  if (currentETag !== undefined && current === undefined) {
    throw new TypeError(
      `evaluatePreconditions: ${JSON.stringify(currentETag)} is not an entity tag`,
    );
  }
  return evaluate(req, current, requireIfMatch);
}

/**
 * The evaluation of a read whose answer carries a representation without an entity tag (a HEAD
 * handler that sends no body): `*` holds, since a current representation exists (RFC 9110
 * §13.1.1, §13.1.2), and no listed tag matches one the representation does not have.
 */
export function evaluateUntaggedRead(req: IncomingMessage): PreconditionOutcome {
  return evaluate(req, UNTAGGED, false);
}

/** A current representation without an entity tag. */
const UNTAGGED = null;

/**
 * @param current the current representation's tag; `null` when it has none, `undefined` when
 *   there is no current representation
 */
function evaluate(
  req: IncomingMessage,
  current: EntityTag | null | undefined,
  requireIfMatch: boolean,
): PreconditionOutcome {
  const safe = isSafeMethod(req.method);

  // A read selects one representation, so its tag must match exactly (another format or coding
  // is another representation, RFC 9110 §8.8.3). A write changes the resource: any of its
  // representations' tags names the version the client read (§13.1.1: the client asserts which
  // state it expects), so the representation's variant is set aside.
  const strong = safe
    ? strongMatch
    : (a: EntityTag, b: EntityTag) => strongMatch(asVersionOf(a, b), b);
  const weak = safe ? weakMatch : (a: EntityTag, b: EntityTag) => weakMatch(asVersionOf(a, b), b);

  // Step 1: If-Match, strong comparison; "*" holds when a current representation exists.
  const ifMatch = parseETagList(req.headers['if-match'], 'If-Match');
  if (ifMatch !== undefined && !matches(ifMatch, current, strong)) {
    throw ApiError.preconditionFailed(
      current === undefined
        ? 'If-Match does not hold: the resource does not exist.'
        : current === null
          ? 'If-Match does not hold: the current representation has no entity tag to match.'
          : 'If-Match does not hold: the resource has changed since that version was read.',
      { target: 'If-Match' },
    );
  }

  // Step 3: If-None-Match, weak comparison; "*" fails when a current representation exists.
  const ifNoneMatch = parseETagList(req.headers['if-none-match'], 'If-None-Match');
  if (ifNoneMatch !== undefined && matches(ifNoneMatch, current, weak)) {
    if (safe) return 'not-modified';
    throw ApiError.preconditionFailed(
      ifNoneMatch === '*'
        ? 'If-None-Match: * does not hold: the resource already exists.'
        : 'If-None-Match does not hold: the resource still has that version.',
      { target: 'If-None-Match' },
    );
  }

  if (requireIfMatch && !safe && current !== undefined && ifMatch === undefined) {
    throw ApiError.preconditionRequired(
      'This update requires If-Match with the entity tag of the version it is based on.',
      { target: 'If-Match' },
    );
  }
  return 'proceed';
}

/**
 * A client's tag as the version tag it names, when it names a representation of `current` (the
 * current tag with variant names appended, `"abc~xml~gzip"` for `"abc"`); otherwise as it is.
 * The current tag is the application's (conditionalWrite's `etag`, a route's version) and is
 * never cut at a `~` of its own: `"rev~7"` is not a representation of `"rev"`, or a client
 * holding `"rev~6"` would pass `If-Match` against it.
 */
function asVersionOf(tag: EntityTag, current: EntityTag): EntityTag {
  const version = current.opaque;
  return tag.opaque.length > version.length &&
    tag.opaque.startsWith(version) &&
    tag.opaque.startsWith(VARIANT_SEPARATOR, version.length)
    ? { weak: tag.weak, opaque: version }
    : tag;
}

function matches(
  list: '*' | readonly EntityTag[],
  current: EntityTag | null | undefined,
  compare: (a: EntityTag, b: EntityTag) => boolean,
): boolean {
  if (current === undefined) return false;
  if (list === '*') return true;
  return current !== null && list.some((tag) => compare(tag, current));
}
