/**
 * @module Names and values in messages: the "did you mean" search over option names, and short,
 * safe descriptions of the values a caller passed.
 */

/** Characters of a name compared; keeps the distance table small whatever the input. */
const COMPARED_LENGTH = 64;

/**
 * Optimal string alignment distance, case-insensitive: the edits (insert, delete, replace, swap
 * two neighbours) from a misspelt option name to a real one. Names are cut at 64 characters.
 */
export function editDistance(first: string, second: string): number {
  const a = first.toLowerCase().slice(0, COMPARED_LENGTH);
  const b = second.toLowerCase().slice(0, COMPARED_LENGTH);
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/** The candidate nearest to `input`, when it is near enough to be a likely typo. */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const d = editDistance(input, candidate);
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  // The bound follows the compared length: were it taken from the whole input, a long enough
  // name would be "near" every candidate, since no distance exceeds the cut.
  const compared = Math.min(input.length, COMPARED_LENGTH);
  return bestDistance <= Math.max(2, Math.floor(compared / 3)) ? best : undefined;
}

/** Characters of a value's text a message echoes. */
const ECHOED_LENGTH = 40;

/** `text` cut to `ECHOED_LENGTH` characters, marked with `…` where it was cut. */
function cut(text: string): string {
  return text.length > ECHOED_LENGTH ? `${text.slice(0, ECHOED_LENGTH)}…` : text;
}

/** A short, safe description of a value for an error message. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') {
    return `the string ${JSON.stringify(value.slice(0, ECHOED_LENGTH))}`;
  }
  if (typeof value === 'object') {
    // A `Symbol.toStringTag` is anyone's text, of any length.
    const tag = Object.prototype.toString.call(value).slice(8, -1);
    return tag === 'Object' ? 'an object' : `a ${cut(tag)}`;
  }
  if (typeof value === 'function') return 'a function';
  // A BigInt reads `5n`, so it is not taken for the number 5.
  if (typeof value === 'bigint') return `${cut(String(value))}n`;
  if (typeof value === 'symbol') return `Symbol(${cut(value.description ?? '')})`;
  return String(value);
}
