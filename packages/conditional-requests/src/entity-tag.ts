/**
 * @module Entity tags (RFC 9110 §8.8.3): generating, formatting, parsing lists, and the strong
 * and weak comparison functions of §8.8.3.2.
 */
import { hash } from 'node:crypto';
import { ApiError } from '@resourceful/error-envelope';
import { assertKnownOptions, assertOptionsObject, booleanOption } from '@resourceful/option-checks';

/** A parsed entity tag: `W/"abc"` is `{ weak: true, opaque: 'abc' }`. */
export interface EntityTag {
  readonly weak: boolean;
  /** The opaque-tag without its quotes. */
  readonly opaque: string;
}

/** A parsed `If-Match` / `If-None-Match` value: `*`, or a list of entity tags. */
export type EntityTagList = '*' | readonly EntityTag[];

export interface ETagOptions {
  /**
   * Generate a weak tag (`W/"…"`). Weak tags never satisfy `If-Match`, which uses the strong
   * comparison (RFC 9110 §13.1.1).
   * @default false
   */
  weak?: boolean;
}

/** The upper bound of tags read from one header; Node already caps header size at 16 KiB. */
export const MAX_LIST_ENTRIES = 128;

/**
 * Separates a resource's tag from the representation it names: `"abc~xml~gzip"` is the XML,
 * gzip-coded representation of the resource tagged `"abc"`. RFC 9110 §8.8.3: representations
 * that differ (another format, charset or content coding) never share a strong tag.
 */
export const VARIANT_SEPARATOR = '~';

// etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3)
function isEtagChar(code: number): boolean {
  return code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

/**
 * Formats an opaque value (a version number, a hash) as an entity tag: `formatETag(7)` is `"7"`.
 * @throws TypeError when the value holds a character an entity tag cannot carry (`"`, space, control)
 */
export function formatETag(opaque: string | number, options?: ETagOptions): string {
  const weak = weakOption('formatETag', options);
  const text = String(opaque);
  for (let i = 0; i < text.length; i++) {
    if (!isEtagChar(text.charCodeAt(i)) || text[i] === VARIANT_SEPARATOR) {
      throw new TypeError(
        `formatETag: ${JSON.stringify(text)} holds a character not allowed in an entity tag ` +
          `(allowed: visible ASCII except the double quote, and "${VARIANT_SEPARATOR}", which ` +
          'separates a representation variant)',
      );
    }
  }
  return `${weak ? 'W/' : ''}"${text}"`;
}

/**
 * `{ weak }` of the tag functions, checked on each call as the factories check theirs: a
 * `weak: 'no'` must not make a weak tag, which never satisfies `If-Match`.
 */
function weakOption(fn: string, options: ETagOptions | undefined): boolean {
  if (options === undefined) return false;
  assertOptionsObject(fn, options);
  assertKnownOptions(fn, options, ['weak']);
  return booleanOption(fn, 'weak', options.weak, false);
}

/**
 * A strong entity tag derived from the bytes of a representation (SHA-256, base64url), so two
 * identical bodies always get the same tag and any change of a byte gives another.
 */
export function generateETag(body: string | Uint8Array, options?: ETagOptions): string {
  return hashTag(body, weakOption('generateETag', options));
}

/** `generateETag` with its option already checked (the middleware checks it once, at construction). */
export function hashTag(body: string | Uint8Array, weak: boolean): string {
  // One-shot hashing (Node ≥ 20.12): no Hash object, which is a native handle for the garbage
  // collector to finalise, per tag. A base64url digest is letters, digits, `-` and `_` only, all
  // etagc and never the variant separator, so formatETag's character check has nothing to find.
  const digest = hash('sha256', body, 'base64url');
  return weak ? `W/"${digest}"` : `"${digest}"`;
}

/**
 * The tag of a resource's representation, computed from the value rather than from the bytes
 * sent: the SHA-256 of its canonical serialisation (`JSON.stringify(value)`, no indentation, no
 * replacer), so the tag `conditionalRequests()` puts on `res.json(value)` and the one a write
 * compares `If-Match` against agree whatever the app's `json spaces`, `json replacer` or
 * `json escape` settings, and whatever format, charset or coding the answer is sent in.
 */
export function etagFor(value: unknown, options?: ETagOptions): string {
  return valueTag(value, weakOption('etagFor', options));
}

/** `etagFor` with its option already checked. */
export function valueTag(value: unknown, weak: boolean): string {
  return hashTag(JSON.stringify(value) ?? '', weak);
}

/**
 * The tag of one representation of a resource: the resource's tag with the variant's names
 * appended (`representationETag('"abc"', ['xml', 'gzip'])` is `"abc~xml~gzip"`), weakness kept.
 * A tag that already names a variant, or an empty list, is returned unchanged.
 * @throws TypeError when `tag` is not an entity tag or a variant name is not a token of
 *   letters, digits and `-`
 */
export function representationETag(tag: string, variants: readonly string[]): string {
  const parsed = parseETag(tag);
  if (parsed === undefined) {
    throw new TypeError(`representationETag: ${JSON.stringify(tag)} is not an entity tag`);
  }
  if (variants.length === 0 || parsed.opaque.includes(VARIANT_SEPARATOR)) return tag;
  for (const variant of variants) {
    if (!/^[A-Za-z0-9-]{1,32}$/.test(variant)) {
      throw new TypeError(
        `representationETag: variant names are letters, digits and "-", got ${JSON.stringify(variant)}`,
      );
    }
  }
  const opaque = [parsed.opaque, ...variants].join(VARIANT_SEPARATOR);
  return `${parsed.weak ? 'W/' : ''}"${opaque}"`;
}

/**
 * The resource's tag inside a representation's tag: `"abc~xml~gzip"` → `"abc"`. Writes compare
 * `If-Match` with it, so a client that read the XML or the gzip form can still update.
 */
export function resourceETag(tag: EntityTag): EntityTag;
export function resourceETag(tag: string): string;
export function resourceETag(tag: EntityTag | string): EntityTag | string {
  if (typeof tag === 'string') {
    const parsed = parseETag(tag);
    if (parsed === undefined) return tag;
    const base = resourceETag(parsed);
    return `${base.weak ? 'W/' : ''}"${base.opaque}"`;
  }
  const cut = tag.opaque.indexOf(VARIANT_SEPARATOR);
  return cut === -1 ? tag : { weak: tag.weak, opaque: tag.opaque.slice(0, cut) };
}

/** Parses one entity tag (`"x"` or `W/"x"`); `undefined` when it is not one. */
export function parseETag(value: string): EntityTag | undefined {
  const parsed = readTag(value.trim(), 0);
  return parsed !== undefined && parsed.end === value.trim().length ? parsed.tag : undefined;
}

function readTag(text: string, start: number): { tag: EntityTag; end: number } | undefined {
  let i = start;
  let weak = false;
  if (text.startsWith('W/', i)) {
    weak = true;
    i += 2;
  }
  if (text.charCodeAt(i) !== 0x22) return undefined;
  const open = i + 1;
  let close = open;
  while (close < text.length && text.charCodeAt(close) !== 0x22) {
    if (!isEtagChar(text.charCodeAt(close))) return undefined;
    close++;
  }
  if (close >= text.length) return undefined;
  return { tag: { weak, opaque: text.slice(open, close) }, end: close + 1 };
}

/**
 * Parses `If-Match` / `If-None-Match`: `"*" / #entity-tag` (RFC 9110 §13.1.1). Repeated header
 * lines are one list (Node joins them with `, `); empty list elements are skipped.
 * @returns undefined when the header is absent
 * @throws ApiError 400 `INVALID_REQUEST` naming the header when the value is malformed
 */
export function parseETagList(
  value: string | readonly string[] | undefined,
  headerName = 'If-Match',
): EntityTagList | undefined {
  if (value === undefined) return undefined;
  const text = (typeof value === 'string' ? value : value.join(', ')).trim();
  if (text === '*') return '*';
  const tags: EntityTag[] = [];
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x2c || code === 0x20 || code === 0x09) {
      i++;
      continue;
    }
    const parsed = readTag(text, i);
    if (parsed === undefined) throw malformed(headerName);
    if (tags.length >= MAX_LIST_ENTRIES) throw tooMany(headerName);
    tags.push(parsed.tag);
    i = parsed.end;
    // After a tag only optional whitespace and then a comma (or the end) may follow.
    while (i < text.length && (text.charCodeAt(i) === 0x20 || text.charCodeAt(i) === 0x09)) i++;
    if (i < text.length && text.charCodeAt(i) !== 0x2c) throw malformed(headerName);
  }
  if (tags.length === 0) throw malformed(headerName);
  return tags;
}

function malformed(headerName: string): ApiError {
  return ApiError.invalidRequest(
    `The ${headerName} header must be "*" or a comma-separated list of entity tags such as "abc" or W/"abc".`,
    { target: headerName, innererror: { code: 'MALFORMED_ENTITY_TAG' } },
  );
}

function tooMany(headerName: string): ApiError {
  return ApiError.invalidRequest(
    `The ${headerName} header lists more than ${MAX_LIST_ENTRIES} entity tags; send the tags of the versions the client holds.`,
    { target: headerName, innererror: { code: 'MALFORMED_ENTITY_TAG' } },
  );
}

function toTag(value: EntityTag | string): EntityTag | undefined {
  return typeof value === 'string' ? parseETag(value) : value;
}

/** Strong comparison (RFC 9110 §8.8.3.2): both strong and the opaque tags identical. */
export function strongMatch(a: EntityTag | string, b: EntityTag | string): boolean {
  const x = toTag(a);
  const y = toTag(b);
  return x !== undefined && y !== undefined && !x.weak && !y.weak && x.opaque === y.opaque;
}

/** Weak comparison (RFC 9110 §8.8.3.2): the opaque tags identical, weakness ignored. */
export function weakMatch(a: EntityTag | string, b: EntityTag | string): boolean {
  const x = toTag(a);
  const y = toTag(b);
  return x !== undefined && y !== undefined && x.opaque === y.opaque;
}
