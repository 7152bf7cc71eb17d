/**
 * @module Kubeconfig YAML read as kubectl reads it. kubectl converts YAML to JSON with go-yaml v2
 * (YAML 1.1 scalars: `yes`, `on`, `y` are booleans; `0123` is octal, `1_000` and `0b101` are
 * numbers) and then decodes the JSON into typed Go structs, which refuse a number or a boolean
 * where a string belongs and a string where a boolean belongs. go-yaml v2 has no sexagesimal
 * numbers (`1:20` stays a string) and its timestamps reach JSON as the original text; it reads
 * `0o17` as a number (Go's `ParseInt` base 0). The differences from YAML 1.2 are tabled in the
 * README and tested.
 *
 * The parser is js-yaml 4 with the YAML 1.1 scalar types below in place of its YAML 1.2 ones:
 * one small module, which loads and parses a kubeconfig in less than half the CPU time of the
 * `yaml` package this was first built on (bench/findings/k8s-local-proxy-start-up.md); the CLI pays it on every start.
 */
import { FAILSAFE_SCHEMA, type LoadOptions, load, Type, YAMLException } from 'js-yaml';

const TRUE = /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/;
const FALSE = /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
/** Integers as YAML 1.1 writes them, and `0o17`, which go-yaml v2 hands to Go's `ParseInt`. */
const INT_FORMS: readonly (readonly [RegExp, number, number])[] = [
  [/^[-+]?0o[0-7_]+$/, 2, 8],
  [/^[-+]?0b[0-1_]+$/, 2, 2],
  [/^[-+]?0[0-7_]+$/, 1, 8],
  [/^[-+]?[0-9][0-9_]*$/, 0, 10],
  [/^[-+]?0x[0-9a-fA-F_]+$/, 2, 16],
];
const FLOAT_SPECIAL = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT =
  /^[-+]?(?:[0-9][0-9_]*)?(?:\.[0-9_]*)?[eE][-+]?[0-9]+$|^[-+]?(?:[0-9][0-9_]*)?\.[0-9_]*$/;

function intForm(text: string) {
  return INT_FORMS.find(([pattern]) => pattern.test(text));
}

function toInt(text: string): number {
  const [, prefix, radix] = intForm(text) as readonly [RegExp, number, number];
  const negative = text.startsWith('-');
  const signed = negative || text.startsWith('+') ? 1 : 0;
  const value = Number.parseInt(text.slice(signed + prefix).replaceAll('_', ''), radix);
  return negative ? -value : value;
}

function toFloat(text: string): number {
  if (!FLOAT_SPECIAL.test(text)) return Number.parseFloat(text.replaceAll('_', ''));
  if (text.slice(-3).toLowerCase() === 'nan') return Number.NaN;
  return text.startsWith('-') ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
}

/**
 * A YAML 1.1 scalar type. Plain scalars resolve to it when `matches`; an explicit tag (`!!int
 * abc`) whose text does not match stays the string, with no error, as it did on the `yaml`
 * package (js-yaml passes the tag as a second argument only for explicit tags).
 */
function scalarType(
  tag: string,
  matches: (text: string) => boolean,
  value: (text: string) => unknown,
) {
  return new Type(`tag:yaml.org,2002:${tag}`, {
    kind: 'scalar',
    resolve: (text: string, explicitTag?: string) => matches(text) || explicitTag !== undefined,
    construct: (text: string) => (matches(text) ? value(text) : text),
  });
}

/**
 * Any other tag (`!vault secret`, `tag:example.com,2000:x`) keeps the node as it is written,
 * as go-yaml v2 does for tags it does not know (js-yaml would refuse the file).
 */
const unknownTags = (['scalar', 'sequence', 'mapping'] as const).map(
  (kind) =>
    new Type('', {
      kind,
      multi: true,
      construct: (data: unknown) =>
        data ?? (kind === 'scalar' ? '' : kind === 'sequence' ? [] : {}),
    }),
);

/** An explicit `!!timestamp` stays its text, as go-yaml v2's JSON path writes it out. */
const explicitTimestamp = new Type('tag:yaml.org,2002:timestamp', { kind: 'scalar' });

/** `!!binary` is bytes, refused where a string belongs (as it was on the `yaml` package). */
const binary = new Type('tag:yaml.org,2002:binary', {
  kind: 'scalar',
  construct: (text: string) => Buffer.from(text, 'base64'),
});

/** `<<` keys: js-yaml merges the values of keys resolved to this tag. */
const merge = new Type('tag:yaml.org,2002:merge', {
  kind: 'scalar',
  resolve: (text: string) => text === '<<',
});

/**
 * go-yaml v2's YAML 1.1 scalars: no base-60 numbers and no implicit timestamps (both stay
 * strings on the way to JSON); `<<` merge keys. An explicit `!!binary` is bytes, refused where a
 * string belongs; `!!set`, `!!omap` and `!!pairs` keep the node as written.
 */
const KUBECONFIG_SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    scalarType(
      'null',
      (text) => NULL.test(text),
      () => null,
    ),
    scalarType(
      'bool',
      (text) => TRUE.test(text) || FALSE.test(text),
      (text) => TRUE.test(text),
    ),
    scalarType('int', (text) => intForm(text) !== undefined, toInt),
    scalarType('float', (text) => FLOAT_SPECIAL.test(text) || FLOAT.test(text), toFloat),
    merge,
  ],
  explicit: [binary, explicitTimestamp, ...unknownTags],
});

/**
 * go-yaml v2 allows 10 000 levels of nesting; js-yaml's default is 100 (`maxDepth`, js-yaml
 * 4.2+, not yet in `@types/js-yaml`). Past what the stack holds, the RangeError is caught like
 * any other refusal.
 */
const LOAD_OPTIONS: LoadOptions & { maxDepth: number } = {
  schema: KUBECONFIG_SCHEMA,
  maxDepth: 10_000,
};

function notValidYaml(line: number | undefined): Error {
  return new Error(`not valid YAML${line === undefined ? '' : ` (line ${line})`}`);
}

/**
 * Parses kubeconfig text with go-yaml v2's scalar rules. Throws "not valid YAML (line N)" and
 * nothing more: the parser's own message quotes the offending line, which may hold a token.
 */
export function parseKubeconfigYaml(text: string): unknown {
  try {
    return load(text, LOAD_OPTIONS);
  } catch (error) {
    if (!(error instanceof YAMLException)) throw notValidYaml(undefined);
    // js-yaml's one error without a position: a second document.
    const line = error.mark?.line;
    throw notValidYaml(line === undefined ? secondDocumentLine(text) : line + 1);
  }
}

const DOCUMENT_MARKER = /^(---|\.\.\.)(?:[ \t]|$)/;

/**
 * The line where a second document begins: a `---` once the first has begun (with `---` or
 * content), or after `...` the next `---` or content line.
 */
function secondDocumentLine(text: string): number | undefined {
  let state: 'before' | 'in' | 'ended' = 'before';
  const lines = text.split(/\r\n|\r|\n/);
  for (const [index, line] of lines.entries()) {
    const marker = DOCUMENT_MARKER.exec(line)?.[1];
    if (marker === '---') {
      if (state !== 'before') return index + 1;
      state = 'in';
    } else if (marker === '...') {
      if (state === 'in') state = 'ended';
    } else if (/^\s*(?:#|$)/.test(line) || (state !== 'in' && line.startsWith('%'))) {
      // Blank lines, comments and directives begin no document.
    } else if (state === 'ended') {
      return index + 1;
    } else {
      state = 'in';
    }
  }
  return undefined;
}

/** What JSON type a YAML value became, in Go's wording for decode errors. */
export function goTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value === 'number' ? 'number' : 'string';
}
