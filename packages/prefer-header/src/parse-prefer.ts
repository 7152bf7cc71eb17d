/**
 * @module The `Prefer` header parser (RFC 7240 §2). One forward pass over the input, no regular
 * expressions: every character is looked at a bounded number of times, so hostile headers (very
 * long, thousands of parameters, unbalanced quotes) cost linear time and never throw.
 *
 * @see https://www.rfc-editor.org/rfc/rfc7240#section-2
 */
import { assertKnownOptions, assertOptionsObject, invalidOption } from '@resourceful/option-checks';

/** One preference as sent: `name[=value] *(; param[=value])`. */
export interface Preference {
  /** Lower-cased: preference names are case-insensitive. */
  name: string;
  /** The token or unquoted quoted-string; an empty value is no value (RFC 7240 §2). */
  value: string | undefined;
  /** Lower-cased parameter name → value; the first occurrence of a parameter wins. */
  params: ReadonlyMap<string, string | undefined>;
}

/** The preferences of one request, with the ones RFC 7240 defines already interpreted. */
export interface Preferences {
  /** `return=minimal` or `return=representation` (RFC 7240 §4.2); any other value: `undefined`. */
  return: 'minimal' | 'representation' | undefined;
  /** `respond-async` was sent, without a value (RFC 7240 §4.1). */
  respondAsync: boolean;
  /** `wait=<delta-seconds>` (RFC 7240 §4.3), in seconds, capped at 2^31; malformed: `undefined`. */
  wait: number | undefined;
  /** `handling=strict` or `handling=lenient` (RFC 7240 §4.4); any other value: `undefined`. */
  handling: 'strict' | 'lenient' | undefined;
  /** Every preference parsed, lower-cased name → first occurrence (unknown ones included). */
  all: ReadonlyMap<string, Preference>;
}

export interface ParsePreferOptions {
  /**
   * Characters of `Prefer` read, over all field lines together. Preferences that do not end
   * within the bound are dropped; the ones before it are kept.
   * @default PREFER_MAX_LENGTH (4096)
   */
  maxLength?: number;
}

/**
 * Default bound on the characters of `Prefer` that are read. Real headers are a few dozen
 * characters; 4 KiB leaves room for every registered preference with parameters while keeping
 * the work per request small.
 */
export const PREFER_MAX_LENGTH = 4096;

/**
 * RFC 9111 §1.2.2: a delta-seconds value too large to represent is taken as 2^31.
 * @see https://www.rfc-editor.org/rfc/rfc9111#section-1.2.2
 */
export const MAX_DELTA_SECONDS = 2_147_483_648;

const TAB = 0x09;
const SPACE = 0x20;
const DQUOTE = 0x22;
const COMMA = 0x2c;
const SEMICOLON = 0x3b;
const EQUALS = 0x3d;
const BACKSLASH = 0x5c;

// tchar (RFC 9110 §5.6.2): "!#$%&'*+-.^_`|~", DIGIT, ALPHA.
const TCHAR = new Uint8Array(128);
for (const ch of "!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ") {
  TCHAR[ch.charCodeAt(0)] = 1;
}

function isTchar(code: number): boolean {
  return code < 128 && TCHAR[code] === 1;
}

/** qdtext (RFC 9110 §5.6.4): HTAB, SP, %x21, %x23-5B, %x5D-7E, obs-text (and wider code units). */
function isQdtext(code: number): boolean {
  return (
    code === TAB ||
    code === SPACE ||
    code === 0x21 ||
    (code >= 0x23 && code <= 0x5b) ||
    (code >= 0x5d && code <= 0x7e) ||
    code >= 0x80
  );
}

/** The character after a backslash in a quoted-pair: HTAB, SP, VCHAR, obs-text. */
function isQuotedPairChar(code: number): boolean {
  return code === TAB || (code >= SPACE && code !== 0x7f);
}

function skipOws(input: string, i: number): number {
  let j = i;
  while (j < input.length) {
    const code = input.charCodeAt(j);
    if (code !== SPACE && code !== TAB) break;
    j++;
  }
  return j;
}

function scanToken(input: string, i: number): number {
  let j = i;
  while (j < input.length && isTchar(input.charCodeAt(j))) j++;
  return j;
}

/**
 * Index of the next delimiter (`,` or, when `stopAtSemicolon`, `;`) outside quotes, or the end.
 * `inQuotes` says whether `i` lies inside a quoted-string that is still open.
 */
function skipToDelimiter(
  input: string,
  i: number,
  stopAtSemicolon: boolean,
  inQuotes = false,
): number {
  let j = i;
  while (j < input.length) {
    const code = input.charCodeAt(j);
    if (inQuotes) {
      if (code === BACKSLASH) j++;
      else if (code === DQUOTE) inQuotes = false;
    } else if (code === COMMA || (stopAtSemicolon && code === SEMICOLON)) {
      return j;
    } else if (code === DQUOTE) {
      inQuotes = true;
    }
    j++;
  }
  return input.length;
}

interface Word {
  ok: boolean;
  /** On failure: scanning stopped inside a quoted-string that is still open. */
  inQuotes: boolean;
  /** The unescaped value (`''` for `""`). */
  value: string;
  /** On success, the index after the word; on failure, where scanning stopped. */
  end: number;
}

/** word = token / quoted-string. */
function parseWord(input: string, i: number): Word {
  if (i < input.length && input.charCodeAt(i) === DQUOTE) return parseQuotedString(input, i);
  const end = scanToken(input, i);
  return { ok: end > i, inQuotes: false, value: input.slice(i, end), end };
}

function parseQuotedString(input: string, start: number): Word {
  let value = '';
  let chunkStart = start + 1;
  let j = chunkStart;
  while (j < input.length) {
    const code = input.charCodeAt(j);
    if (code === DQUOTE) {
      return { ok: true, inQuotes: false, value: value + input.slice(chunkStart, j), end: j + 1 };
    }
    if (code === BACKSLASH) {
      if (j + 1 >= input.length) break;
      if (!isQuotedPairChar(input.charCodeAt(j + 1))) {
        return { ok: false, inQuotes: true, value: '', end: j + 2 };
      }
      value += input.slice(chunkStart, j) + input[j + 1];
      j += 2;
      chunkStart = j;
      continue;
    }
    if (!isQdtext(code)) break;
    j++;
  }
  // Unbalanced quote (j is the end) or a forbidden character inside the quotes: malformed. The
  // quote is still open, so the caller skips to its end before looking for a delimiter.
  return { ok: false, inQuotes: j < input.length, value: '', end: j + 1 };
}

interface Element {
  preference: Preference | undefined;
  /** Index of the `,` that ends the element, or the input length. */
  end: number;
}

/**
 * preference = token [ BWS "=" BWS word ] *( OWS ";" [ OWS parameter ] )
 * parameter  = token [ BWS "=" BWS word ]
 */
function parseElement(input: string, start: number): Element {
  const n = input.length;
  const nameEnd = scanToken(input, start);
  if (nameEnd === start)
    return { preference: undefined, end: skipToDelimiter(input, start, false) };
  const name = input.slice(start, nameEnd).toLowerCase();
  let i = skipOws(input, nameEnd);
  let value: string | undefined;
  if (i < n && input.charCodeAt(i) === EQUALS) {
    const word = parseWord(input, skipOws(input, i + 1));
    if (!word.ok) {
      return { preference: undefined, end: skipToDelimiter(input, word.end, false, word.inQuotes) };
    }
    value = word.value === '' ? undefined : word.value;
    i = skipOws(input, word.end);
  }

  const params = new Map<string, string | undefined>();
  while (i < n) {
    const code = input.charCodeAt(i);
    if (code === COMMA) break;
    if (code !== SEMICOLON) {
      // Garbage after the preference: the whole element is malformed.
      return { preference: undefined, end: skipToDelimiter(input, i, false) };
    }
    i = skipOws(input, i + 1);
    if (i >= n) break;
    const next = input.charCodeAt(i);
    if (next === SEMICOLON || next === COMMA) continue; // an empty parameter is allowed
    i = parseParameter(input, i, params);
  }
  return { preference: { name, value, params }, end: i };
}

/** Parses one parameter into `params`; a malformed one is skipped. Returns the next index. */
function parseParameter(
  input: string,
  start: number,
  params: Map<string, string | undefined>,
): number {
  const n = input.length;
  const nameEnd = scanToken(input, start);
  if (nameEnd === start) return skipToDelimiter(input, start, true);
  let i = skipOws(input, nameEnd);
  let value: string | undefined;
  if (i < n && input.charCodeAt(i) === EQUALS) {
    const word = parseWord(input, skipOws(input, i + 1));
    if (!word.ok) return skipToDelimiter(input, word.end, true, word.inQuotes);
    value = word.value === '' ? undefined : word.value;
    i = skipOws(input, word.end);
  }
  if (i < n) {
    const code = input.charCodeAt(i);
    if (code !== SEMICOLON && code !== COMMA) return skipToDelimiter(input, i, true);
  }
  const name = input.slice(start, nameEnd).toLowerCase();
  if (!params.has(name)) params.set(name, value);
  return i;
}

/**
 * Parses one field line into `into` (first occurrence wins). With `truncated`, the line was cut
 * at the length bound, so its last element, which did not end with a comma, is dropped.
 */
function parseLine(input: string, truncated: boolean, into: Map<string, Preference>): void {
  const n = input.length;
  let i = 0;
  while (i < n) {
    i = skipOws(input, i);
    if (i >= n) break;
    if (input.charCodeAt(i) === COMMA) {
      i++; // empty list element (RFC 9110 §5.6.1)
      continue;
    }
    const element = parseElement(input, i);
    const complete = element.end < n || !truncated;
    if (element.preference !== undefined && complete && !into.has(element.preference.name)) {
      into.set(element.preference.name, element.preference);
    }
    i = element.end + 1;
  }
}

function lowerValue(all: ReadonlyMap<string, Preference>, name: string): string | undefined {
  return all.get(name)?.value?.toLowerCase();
}

function parseDeltaSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  let seconds = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return undefined;
    seconds = Math.min(seconds * 10 + (code - 0x30), MAX_DELTA_SECONDS);
  }
  return seconds;
}

/** Interprets the preferences RFC 7240 defines. */
function interpret(all: ReadonlyMap<string, Preference>): Preferences {
  const ret = lowerValue(all, 'return');
  const handling = lowerValue(all, 'handling');
  const respondAsync = all.get('respond-async');
  return Object.freeze({
    return: ret === 'minimal' || ret === 'representation' ? ret : undefined,
    respondAsync: respondAsync !== undefined && respondAsync.value === undefined,
    wait: parseDeltaSeconds(all.get('wait')?.value),
    handling: handling === 'strict' || handling === 'lenient' ? handling : undefined,
    all,
  });
}

/** Checks a length bound option: a positive integer or `Infinity`. */
export function isValidMaxLength(value: unknown): value is number {
  return (
    typeof value === 'number' &&
    (value === Number.POSITIVE_INFINITY || Number.isInteger(value)) &&
    value > 0
  );
}

/**
 * Parses `Prefer` field values (RFC 7240). Several field lines (an array) are read in order as
 * one list; the first occurrence of a preference wins; malformed parts are skipped; names are
 * lower-cased. Never throws on any string input.
 *
 * @example
 * parsePrefer('return=minimal; foo="some parameter"').return // 'minimal'
 */
export function parsePrefer(
  header: string | readonly string[] | undefined,
  options?: ParsePreferOptions,
): Preferences {
  if (options === undefined) return parsePreferWithin(header, PREFER_MAX_LENGTH);
  assertOptionsObject('parsePrefer', options);
  assertKnownOptions('parsePrefer', options, PARSE_PREFER_OPTIONS);
  return parsePreferWithin(header, maxLengthOption('parsePrefer', options.maxLength));
}

const PARSE_PREFER_OPTIONS = ['maxLength'] as const;

/** The `maxLength` option checked: its default when `undefined` (not `null`), else the bound. */
export function maxLengthOption(factory: string, maxLength: unknown): number {
  if (maxLength === undefined) return PREFER_MAX_LENGTH;
  if (!isValidMaxLength(maxLength)) {
    invalidOption(factory, 'maxLength', 'a positive integer (characters)', maxLength);
  }
  return maxLength;
}

/** `parsePrefer` with a bound already checked: the path each request takes. */
export function parsePreferWithin(
  header: string | readonly string[] | undefined,
  maxLength: number,
): Preferences {
  const all = new Map<string, Preference>();
  const lines = header === undefined ? [] : typeof header === 'string' ? [header] : header;
  let budget = maxLength;
  for (const line of lines) {
    if (budget <= 0) break;
    if (typeof line !== 'string') continue;
    if (line.length > budget) {
      parseLine(line.slice(0, budget), true, all);
      break;
    }
    parseLine(line, false, all);
    budget -= line.length;
  }
  return interpret(all);
}
