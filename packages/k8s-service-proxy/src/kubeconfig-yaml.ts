/**
 * @module Kubeconfig YAML read as kubectl reads it. kubectl converts YAML to JSON with go-yaml v2
 * (YAML 1.1 scalars: `yes`, `on`, `y` are booleans; `0123` is octal, `1_000` and `0b101` are
 * numbers) and then decodes the JSON into typed Go structs, which refuse a number or a boolean
 * where a string belongs and a string where a boolean belongs. go-yaml v2 has no sexagesimal
 * numbers (`1:20` stays a string) and its timestamps reach JSON as the original text; it reads
 * `0o17` as a number (Go's `ParseInt` base 0). The differences from YAML 1.2 are tabled in the
 * README and tested.
 */
import { parse, type ScalarTag } from 'yaml';

/** go-yaml v2 hands `0o17` to Go's `strconv.ParseInt(s, 0, 64)`, which reads it as octal. */
const goOctal: ScalarTag = {
  identify: (value) => typeof value === 'number',
  default: true,
  tag: 'tag:yaml.org,2002:int',
  test: /^[-+]?0o[0-7_]+$/,
  resolve: (text) => {
    const negative = text.startsWith('-');
    const digits = text.replace(/^[-+]?0o/, '').replaceAll('_', '');
    const value = Number.parseInt(digits, 8);
    return negative ? -value : value;
  },
};

/** Parses kubeconfig text with go-yaml v2's scalar rules. Throws the parser's error. */
export function parseKubeconfigYaml(text: string): unknown {
  return parse(text, {
    version: '1.1',
    // No base-60 numbers and no timestamps in go-yaml v2's JSON path; both stay strings.
    customTags: (tags) => [
      goOctal,
      ...tags.filter(
        (tag) =>
          !(typeof tag === 'object' && 'format' in tag && tag.format === 'TIME') &&
          !(typeof tag === 'object' && tag.tag === 'tag:yaml.org,2002:timestamp'),
      ),
    ],
  });
}

/** What JSON type a YAML value became, in Go's wording for decode errors. */
export function goTypeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'object') return 'object';
  return typeof value === 'boolean' ? 'bool' : typeof value === 'number' ? 'number' : 'string';
}
