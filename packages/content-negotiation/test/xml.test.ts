import { parseXmlMirror } from '@resourceful/test-support';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toXml } from '../src/index.js';

const DECLARATION = '<?xml version="1.0" encoding="UTF-8"?>\n';
/** XML 1.0 §2.2 `Char`: a document made only of these (`u`: surrogates must be paired). */
const XML_CHARS_ONLY = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

describe('the XML mirror of a JSON value', () => {
  describe('mapping', () => {
    it.each([
      [
        'a resource',
        { id: 'CUS-1', name: 'Ada' },
        '<response><id>CUS-1</id><name>Ada</name></response>',
      ],
      [
        'numbers, booleans and null, typed',
        { n: 1.5, ok: false, none: null },
        '<response><n type="number">1.5</n><ok type="boolean">false</ok><none type="null"></none></response>',
      ],
      [
        'arrays as repeated elements',
        { items: [{ id: 'a' }, { id: 'b' }] },
        '<response><items array="true"><id>a</id></items><items array="true"><id>b</id></items></response>',
      ],
      ['an empty array', { items: [] }, '<response><items array="empty"></items></response>'],
      ['an empty object', { meta: {} }, '<response><meta type="object"></meta></response>'],
      ['an empty string', { note: '' }, '<response><note></note></response>'],
      [
        'names that are not XML names',
        { 'a b': 1, '1st': 'x', xmlns: 'y' },
        '<response><property name="a b" type="number">1</property><property name="1st">x</property><property name="xmlns">y</property></response>',
      ],
      [
        'a top-level array',
        [1, 'a'],
        '<response type="array"><item array="true" type="number">1</item><item array="true">a</item></response>',
      ],
      ['a top-level string', 'hi', '<response>hi</response>'],
    ])('writes %s', (_title, value, expected) => {
      expect(toXml(value)).toBe(DECLARATION + expected);
    });

    it('drops undefined properties and applies toJSON, as JSON.stringify does', () => {
      const when = new Date('2026-01-02T03:04:05.000Z');
      expect(toXml({ when, gone: undefined })).toBe(
        `${DECLARATION}<response><when>2026-01-02T03:04:05.000Z</when></response>`,
      );
    });
  });

  describe('escaping: nothing a client stored breaks the document', () => {
    it.each([
      ['markup', '<script>alert("x")</script>'],
      ['a CDATA end', ']]>'],
      ['entities', '&amp; &lt; &#0;'],
      ['quotes', `"'`],
      ['a NUL and other controls', 'a\u0000b\u0001c\u001F'],
      ['U+FFFE and U+FFFF', '\uFFFE\uFFFF'],
      ['a lone surrogate', 'x\uD800y'],
      ['emoji and accents', 'Zoë 😀 €'],
      ['CR, LF and tab', 'a\r\nb\tc'],
    ])('keeps %s intact in text and in names', (_title, text) => {
      const value = { text, [text]: text, list: [text] };
      const xml = toXml(value);
      // Every character is one XML 1.0 allows (its `Char` production), so any parser reads it.
      expect(xml).toMatch(XML_CHARS_ONLY);
      expect(parseXmlMirror(xml)).toEqual(value);
    });

    it('never sets a prototype from a __proto__ key', () => {
      const value = JSON.parse('{"__proto__": {"polluted": true}, "a": 1}') as unknown;
      const xml = toXml(value);
      expect(xml).toContain('<property name="__proto__">');
      expect(parseXmlMirror(xml)).toEqual(value);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  });

  describe('nesting', () => {
    /** The deepest element of a document written without self-closing tags. */
    function elementDepth(xml: string): number {
      let depth = 0;
      let deepest = 0;
      for (const [, close] of xml.matchAll(/<(\/?)[A-Za-z_]/g)) {
        depth += close === '' ? 1 : -1;
        deepest = Math.max(deepest, depth);
      }
      return deepest;
    }
    function nested(levels: number, wrap: (inner: unknown) => unknown): unknown {
      let value: unknown = 'bottom';
      for (let i = 0; i < levels; i++) value = wrap(value);
      return value;
    }

    it.each([
      ['objects', (inner: unknown) => ({ a: inner, n: 1 })],
      ['arrays inside arrays', (inner: unknown) => [inner, 1]],
      ['array properties', (inner: unknown) => ({ list: [inner] })],
    ])(
      'writes %s nested deeper than XML parsers read by default (100 elements) as JSON text there',
      (_title, wrap) => {
        const value = nested(1100, wrap);
        const xml = toXml(value);
        expect(elementDepth(xml)).toBeLessThanOrEqual(100);
        expect(xml).toMatch(/ encoding="json">[[{]/);
        expect(parseXmlMirror(xml)).toEqual(value);
      },
    );

    it('writes a value 100 elements deep as elements only', () => {
      const value = nested(99, (inner) => ({ a: inner }));
      const xml = toXml(value);
      expect(elementDepth(xml)).toBe(100);
      expect(xml).not.toContain('encoding="json"');
    });
  });

  it('writes only Latin-1 with { latin1: true }, the rest as character references', () => {
    const xml = toXml({ text: 'Zoë 😀 €' }, { latin1: true });
    expect(xml).toBe(
      '<?xml version="1.0" encoding="ISO-8859-1"?>\n<response><text>Zoë &#x1F600; &#x20AC;</text></response>',
    );
    expect(parseXmlMirror(xml)).toEqual({ text: 'Zoë 😀 €' });
  });

  it('round-trips any JSON value (seeded property test)', () => {
    const json = fc
      .jsonValue({ maxDepth: 4, stringUnit: 'binary' })
      .map((value) => JSON.parse(JSON.stringify(value)) as unknown);
    fc.assert(
      fc.property(json, (value) => {
        const xml = toXml(value);
        expect(xml).toMatch(XML_CHARS_ONLY);
        expect(parseXmlMirror(xml)).toEqual(value);
      }),
      { seed: 12, numRuns: 300 },
    );
  });
});
