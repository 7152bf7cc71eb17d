/**
 * @module Charsets: the names of the ones served and read (UTF-8 and ISO-8859-1 with its IANA
 * aliases), and JSON text written in Latin-1 without losing a character.
 */

export type Charset = 'utf-8' | 'iso-8859-1';

/** IANA's registered names of ISO-8859-1 (https://www.iana.org/assignments/character-sets). */
export const LATIN1_ALIASES: readonly string[] = [
  'iso-8859-1',
  'iso_8859-1:1987',
  'iso-ir-100',
  'iso_8859-1',
  'latin1',
  'l1',
  'ibm819',
  'cp819',
  'csisolatin1',
];

/** UTF-8, and US-ASCII, which is a subset of it (RFC 8259 §8.1: JSON is UTF-8). */
export const UTF8_NAMES: readonly string[] = ['utf-8', 'utf8', 'us-ascii', 'csutf8'];

const LATIN1 = new Set(LATIN1_ALIASES);
const UTF8 = new Set(UTF8_NAMES);

/** The charset a `charset` parameter names, or `undefined` when it is neither served one. */
export function charsetOf(name: string): Charset | undefined {
  const lower = name.trim().toLowerCase();
  if (UTF8.has(lower)) return 'utf-8';
  if (LATIN1.has(lower)) return 'iso-8859-1';
  return undefined;
}

/** How the charset is written in `Content-Type`. */
export function charsetLabel(charset: Charset): string {
  return charset === 'utf-8' ? 'utf-8' : 'ISO-8859-1';
}

/**
 * JSON text with every character beyond Latin-1 written as a `\uXXXX` escape (RFC 8259 §7), so
 * the text encodes to Latin-1 bytes and parses back to the same value. Outside strings JSON text
 * is ASCII, so escaping every such character is always inside a string.
 */
export function jsonToLatin1(json: string): string {
  return json.replace(
    /[\u0100-\uFFFF]/g,
    (character) => `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
