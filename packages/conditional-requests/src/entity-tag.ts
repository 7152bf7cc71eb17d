/**
 * @module Entity tags (RFC 9110 §8.8.3): generating, formatting, parsing lists, and the strong
 * and weak comparison functions of §8.8.3.2.
 */
import { createHash } from 'node:crypto';
import { ApiError } from '@resourceful/error-envelope';

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

// etagc = %x21 / %x23-7E / obs-text (RFC 9110 §8.8.3)
function isEtagChar(code: number): boolean {
  return code === 0x21 || (code >= 0x23 && code <= 0x7e) || (code >= 0x80 && code <= 0xff);
}

/**
 * Formats an opaque value (a version number, a hash) as an entity tag: `formatETag(7)` is `"7"`.
 * @throws TypeError when the value holds a character an entity tag cannot carry (`"`, space, control)
 */
export function formatETag(opaque: string | number, options: ETagOptions = {}): string {
  const text = String(opaque);
  for (let i = 0; i < text.length; i++) {
    if (!isEtagChar(text.charCodeAt(i))) {
      throw new TypeError(
        `formatETag: ${JSON.stringify(text)} holds a character not allowed in an entity tag ` +
          '(allowed: visible ASCII except the double quote)',
      );
    }
  }
  return `${options.weak ? 'W/' : ''}"${text}"`;
}

/**
 * A strong entity tag derived from the bytes of a representation (SHA-256, base64url), so two
 * identical bodies always get the same tag and any change of a byte gives another.
 */
export function generateETag(body: string | Uint8Array, options: ETagOptions = {}): string {
  const digest = createHash('sha256').update(body).digest('base64url');
  return formatETag(digest, options);
}

/**
 * The tag of a value's JSON representation: identical to `generateETag` over the body that
 * `res.json(value)` sends (with Express's default `json spaces` and replacer).
 */
export function etagFor(value: unknown, options: ETagOptions = {}): string {
  return generateETag(JSON.stringify(value) ?? '', options);
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
    if (parsed === undefined || tags.length >= MAX_LIST_ENTRIES) {
      throw malformed(headerName);
    }
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
