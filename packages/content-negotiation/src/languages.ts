/**
 * @module Accept-Language (RFC 9110 §12.5.4) answered with the "lookup" scheme of RFC 4647 §3.4:
 * one language is chosen among those the service has. Hand-written because negotiator implements
 * prefix filtering (§3.3), which can select a tag the service does not have as such.
 */

import { isWeight } from './header-limits.js';

interface LanguageRange {
  readonly range: string;
  readonly q: number;
  readonly order: number;
}

const RANGE = /^(?:\*|[A-Za-z]{1,8}(?:-[A-Za-z0-9]{1,8})*)$/;
const WEIGHT = /^[qQ]=(.*)$/;

/**
 * The ranges of an Accept-Language value, best first (q-value, then the client's order).
 * Malformed elements are skipped: the header is advice, and a bad element must not cost the
 * client an answer. `q=0` ranges are kept: they refuse a language.
 */
export function parseAcceptLanguage(header: string): LanguageRange[] {
  const ranges: LanguageRange[] = [];
  let order = 0;
  for (const element of header.split(',')) {
    const [rawRange = '', ...params] = element.split(';');
    const range = rawRange.trim();
    if (!RANGE.test(range)) continue;
    let q = 1;
    let valid = true;
    for (const param of params) {
      // The weights the bounds check lets through (`q=.5`, more than three decimals), read as
      // negotiator reads them for Accept, Accept-Charset and Accept-Encoding.
      const match = WEIGHT.exec(param.trim());
      if (match === null || !isWeight(match[1]!)) valid = false;
      else q = Number(match[1]);
    }
    if (valid) ranges.push({ range: range.toLowerCase(), q, order: order++ });
  }
  return ranges.sort((a, b) => b.q - a.q || a.order - b.order);
}

/**
 * RFC 4647 §3.4 lookup: for each range, best first, the range and then ever shorter prefixes
 * of it (`zh-Hant-CN` → `zh-Hant` → `zh`; a single-letter subtag is dropped with the one after
 * it) are looked for among `available`; `*` gives `defaultLanguage`, or else the first of
 * `available`, that no `q=0` range refuses (RFC 9110 §12.5.4); no match gives `defaultLanguage`.
 * A language refused with `q=0` is never chosen by a prefix.
 * @returns one of `available` (as spelled there), or `defaultLanguage`
 */
export function lookupLanguage(
  header: string | undefined,
  available: readonly string[],
  defaultLanguage: string,
): string {
  if (header === undefined) return defaultLanguage;
  const byLower = new Map(available.map((tag) => [tag.toLowerCase(), tag]));
  const ranges = parseAcceptLanguage(header);
  const refusedRanges = ranges.filter((r) => r.q === 0).map((r) => r.range);
  const refused = new Set(refusedRanges);
  for (const { range, q } of ranges) {
    if (q === 0) break;
    if (range === '*') {
      // RFC 9110 §12.5.4: "*" matches only the languages no other range of the header matches,
      // so it never brings back one a range refused with q=0 (`en;q=0, *`).
      const chosen = [defaultLanguage, ...available].find(
        (tag) => !refusedRanges.some((refusedRange) => matchesRange(refusedRange, tag)),
      );
      if (chosen !== undefined) return chosen;
      continue;
    }
    let candidate = range;
    while (candidate !== '') {
      const found = byLower.get(candidate);
      if (found !== undefined && !refused.has(candidate)) return found;
      candidate = truncate(candidate);
    }
  }
  return defaultLanguage;
}

/** RFC 4647 §3.3.1 basic filtering: the range is the tag or a prefix of it ending at a `-`. */
function matchesRange(range: string, tag: string): boolean {
  const lower = tag.toLowerCase();
  return lower === range || lower.startsWith(`${range}-`);
}

function truncate(tag: string): string {
  const subtags = tag.split('-');
  subtags.pop();
  // RFC 4647 §3.4: a trailing singleton ("x", "u") goes with the subtag that followed it.
  if (subtags.length > 0 && subtags[subtags.length - 1]?.length === 1) subtags.pop();
  return subtags.join('-');
}
