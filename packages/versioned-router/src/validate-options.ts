/**
 * @module Strict checks of a factory's options object, with "did you mean" hints for typos.
 */

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] ?? 0;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] ?? 0;
      const cost = a[i - 1]?.toLowerCase() === b[j - 1]?.toLowerCase() ? 0 : 1;
      row[j] = Math.min(above + 1, (row[j - 1] ?? 0) + 1, diagonal + cost);
      diagonal = above;
    }
  }
  return row[b.length] ?? 0;
}

/** Throws a TypeError naming an unknown option, and the known one it was probably meant as. */
export function assertKnownOptions(
  factory: string,
  options: object,
  known: readonly string[],
): void {
  for (const key of Object.keys(options)) {
    if (known.includes(key)) continue;
    const closest = known
      .map((name) => ({ name, d: distance(key, name) }))
      .sort((x, y) => x.d - y.d)[0];
    const hint = closest !== undefined && closest.d <= 3 ? ` Did you mean "${closest.name}"?` : '';
    throw new TypeError(
      `${factory}: unknown option "${key}".${hint} Known options: ${known.join(', ')}.`,
    );
  }
}

export function assertOptionsObject(factory: string, options: unknown): asserts options is object {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${factory}: options must be an object, got ${describe(options)}.`);
  }
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.slice(0, 40))}`;
  return typeof value === 'object' || typeof value === 'function'
    ? `a ${typeof value}`
    : String(value);
}
