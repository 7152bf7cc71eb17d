import { describe, expect, it } from 'vitest';
import {
  MAX_DELTA_SECONDS,
  PREFER_MAX_LENGTH,
  type Preferences,
  parsePrefer,
} from '../src/index.js';

/** The parsed preferences as plain data: name → [value, params]. */
function plain(preferences: Preferences) {
  return Object.fromEntries(
    [...preferences.all].map(([name, pref]) => [
      name,
      [pref.value, Object.fromEntries(pref.params)],
    ]),
  );
}

function interpreted(preferences: Preferences) {
  const { all: _all, ...rest } = preferences;
  return rest;
}

describe('parsePrefer', () => {
  describe('with the examples of RFC 7240', () => {
    // [section, header field line(s), expected name → [value, params]]
    const table: [string, string | string[], Record<string, [string | undefined, object]>][] = [
      ['§2', 'respond-async, wait=100', { 'respond-async': [undefined, {}], wait: ['100', {}] }],
      [
        '§2 (two field lines)',
        ['respond-async, wait=100', 'handling=lenient'],
        { 'respond-async': [undefined, {}], wait: ['100', {}], handling: ['lenient', {}] },
      ],
      [
        '§2 (one field line)',
        'handling=lenient, wait=100, respond-async',
        { handling: ['lenient', {}], wait: ['100', {}], 'respond-async': [undefined, {}] },
      ],
      ['§2 empty parameter value', 'foo; bar', { foo: [undefined, { bar: undefined }] }],
      ['§2 empty quoted parameter value', 'foo; bar=""', { foo: [undefined, { bar: undefined }] }],
      ['§2 empty quoted preference value', 'foo=""; bar', { foo: [undefined, { bar: undefined }] }],
      [
        '§2.1',
        'return=minimal; foo="some parameter"',
        { return: ['minimal', { foo: 'some parameter' }] },
      ],
      ['§4.1', 'respond-async, wait=10', { 'respond-async': [undefined, {}], wait: ['10', {}] }],
      ['§4.2 minimal', 'return=minimal', { return: ['minimal', {}] }],
      ['§4.2 representation', 'return=representation', { return: ['representation', {}] }],
      ['§4.3', 'wait=10', { wait: ['10', {}] }],
      ['§4.4 strict', 'handling=strict', { handling: ['strict', {}] }],
      ['§4.4 lenient', 'handling=lenient', { handling: ['lenient', {}] }],
    ];

    it.each(table)('parses %s: %j', (_section, header, expected) => {
      expect(plain(parsePrefer(header))).toEqual(expected);
    });

    it('treats one combined field line and two field lines alike (§2)', () => {
      const two = parsePrefer(['respond-async, wait=100', 'handling=lenient']);
      const one = parsePrefer('handling=lenient, wait=100, respond-async');
      expect(interpreted(two)).toEqual(interpreted(one));
      expect(interpreted(one)).toEqual({
        return: undefined,
        respondAsync: true,
        wait: 100,
        handling: 'lenient',
      });
    });

    it('treats the three spellings of a "foo" preference with a "bar" parameter alike (§2)', () => {
      const forms = ['foo; bar', 'foo; bar=""', 'foo=""; bar'].map((h) => plain(parsePrefer(h)));
      expect(forms[1]).toEqual(forms[0]);
      expect(forms[2]).toEqual(forms[0]);
    });
  });

  describe('interpreting the preferences RFC 7240 defines', () => {
    it.each([
      ['return=minimal', { return: 'minimal' }],
      ['return=representation', { return: 'representation' }],
      ['return="representation"', { return: 'representation' }],
      ['RETURN=Minimal', { return: 'minimal' }],
      ['return=headers-only', { return: undefined }],
      ['return', { return: undefined }],
      ['respond-async', { respondAsync: true }],
      ['Respond-Async', { respondAsync: true }],
      ['respond-async=false', { respondAsync: false }],
      ['wait=0', { wait: 0 }],
      ['wait="30"', { wait: 30 }],
      ['wait=-1', { wait: undefined }],
      ['wait=1.5', { wait: undefined }],
      ['wait=1e3', { wait: undefined }],
      ['wait', { wait: undefined }],
      [`wait=${'9'.repeat(400)}`, { wait: MAX_DELTA_SECONDS }],
      ['handling=STRICT', { handling: 'strict' }],
      ['handling=sloppy', { handling: undefined }],
    ])('reads %s', (header, expected) => {
      expect(parsePrefer(header)).toMatchObject(expected);
    });

    it('answers nothing for an absent or empty header', () => {
      for (const header of [undefined, '', '   ', ',,,', []]) {
        const preferences = parsePrefer(header);
        expect(interpreted(preferences)).toEqual({
          return: undefined,
          respondAsync: false,
          wait: undefined,
          handling: undefined,
        });
        expect(preferences.all.size).toBe(0);
      }
    });
  });

  describe('grammar', () => {
    it('lower-cases preference and parameter names but keeps values as sent', () => {
      expect(plain(parsePrefer('FOO=Bar; BAZ=Qux'))).toEqual({ foo: ['Bar', { baz: 'Qux' }] });
    });

    it('accepts whitespace around "=", ";" and ","', () => {
      expect(plain(parsePrefer(' return = minimal ;\tx = "y" , wait = 5 '))).toEqual({
        return: ['minimal', { x: 'y' }],
        wait: ['5', {}],
      });
    });

    it('unescapes quoted-pairs and keeps commas and semicolons inside quotes', () => {
      expect(plain(parsePrefer('foo="a\\"b, c; d\\\\", bar'))).toEqual({
        foo: ['a"b, c; d\\', {}],
        bar: [undefined, {}],
      });
    });

    it('keeps the first occurrence of a preference (§2)', () => {
      const preferences = parsePrefer('return=minimal, return=representation');
      expect(preferences.return).toBe('minimal');
      expect(parsePrefer(['wait=1', 'WAIT=2']).wait).toBe(1);
    });

    it('keeps the first occurrence even when it has an unknown value', () => {
      expect(parsePrefer('return=everything, return=minimal').return).toBeUndefined();
    });

    it('keeps the first occurrence of a parameter', () => {
      expect(plain(parsePrefer('foo; a=1; A=2'))).toEqual({ foo: [undefined, { a: '1' }] });
    });

    it('keeps unknown preferences, which change nothing else', () => {
      const preferences = parsePrefer('timezone=America/Los_Angeles, priority=5, return=minimal');
      expect(preferences.all.get('timezone')?.value).toBeUndefined(); // "/" is not a tchar
      expect(preferences.all.get('priority')?.value).toBe('5');
      expect(preferences.return).toBe('minimal');
    });

    it('stores "__proto__" and "constructor" like any other name', () => {
      const preferences = parsePrefer('__proto__=x; constructor=y, hasOwnProperty');
      expect(preferences.all.get('__proto__')?.params.get('constructor')).toBe('y');
      expect(preferences.all.has('hasownproperty')).toBe(true);
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    });

    it('returns frozen results', () => {
      expect(Object.isFrozen(parsePrefer('return=minimal'))).toBe(true);
    });
  });

  describe('malformed parts', () => {
    it.each([
      [
        'a value that is neither token nor quoted-string',
        'return=mini mal, wait=5',
        { wait: ['5', {}] },
      ],
      ['a missing name', '=minimal, wait=5', { wait: ['5', {}] }],
      ['a missing value after "="', 'return=, wait=5', { wait: ['5', {}] }],
      ['a name with a separator', 'ret@urn=minimal, wait=5', { wait: ['5', {}] }],
      ['garbage after a quoted value', 'foo="x"y, wait=5', { wait: ['5', {}] }],
      ['a control character in a quoted value', 'foo="a\u0001b", wait=5', { wait: ['5', {}] }],
      ['a backslash ending the input', 'wait=5, foo="a\\', { wait: ['5', {}] }],
      ['a non-ASCII name', 'rétour=minimal, wait=5', { wait: ['5', {}] }],
      ['empty list elements', ' , ,wait=5,, ', { wait: ['5', {}] }],
    ])('skips %s', (_what, header, expected) => {
      expect(plain(parsePrefer(header))).toEqual(expected);
    });

    it('skips a malformed parameter and keeps the preference', () => {
      expect(plain(parsePrefer('return=minimal; @@; x=1; y=a b; z=2'))).toEqual({
        return: ['minimal', { x: '1', z: '2' }],
      });
    });

    it('drops everything after an unbalanced quote in the same field line only', () => {
      expect(plain(parsePrefer('wait=5, foo="abc, return=minimal'))).toEqual({ wait: ['5', {}] });
      expect(parsePrefer(['foo="abc, wait=1', 'return=minimal']).return).toBe('minimal');
    });

    it('lets a later occurrence count when the first was malformed', () => {
      expect(parsePrefer('return=mini mal, return=representation').return).toBe('representation');
    });

    it('accepts obs-text in quoted values and ignores non-string field lines', () => {
      const lines = ['foo="café"', 42 as unknown as string];
      expect(parsePrefer(lines).all.get('foo')?.value).toBe('café');
    });
  });

  describe('the length bound', () => {
    it(`reads ${PREFER_MAX_LENGTH} characters by default`, () => {
      const filler = `x=${'a'.repeat(PREFER_MAX_LENGTH - 20)}`;
      expect(parsePrefer(`${filler}, wait=1, return=minimal`).wait).toBe(1);
      expect(parsePrefer(`${filler}, wait=1, return=minimal`).return).toBeUndefined();
    });

    it('keeps preferences that end before the bound and drops the one cut by it', () => {
      expect(plain(parsePrefer('wait=1, return=minimal', { maxLength: 16 }))).toEqual({
        wait: ['1', {}],
      });
      expect(plain(parsePrefer('wait=1, return=minimal', { maxLength: 21 }))).toEqual({
        wait: ['1', {}],
      });
      expect(parsePrefer('wait=1, return=minimal', { maxLength: 22 }).return).toBe('minimal');
    });

    it('counts all field lines together', () => {
      const preferences = parsePrefer(['wait=1', 'return=minimal', 'handling=strict'], {
        maxLength: 20,
      });
      expect(preferences.wait).toBe(1);
      expect(preferences.return).toBe('minimal');
      expect(preferences.handling).toBeUndefined();
    });

    it('refuses a bound that is not a positive integer', () => {
      for (const maxLength of [0, -1, 1.5, Number.NaN, '10' as unknown as number]) {
        expect(() => parsePrefer('wait=1', { maxLength })).toThrow(/maxLength/);
      }
    });

    it.each([
      [{ maxLength: null }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'maxLength'],
      [{ maxLenght: 10 }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION', 'maxLenght'],
      [null, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
      ['x', 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
      [[], 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
    ])('refuses the options %j with %s', (options, code, option) => {
      expect(() => parsePrefer('wait=1', options as never)).toThrow(
        expect.objectContaining({ code, factory: 'parsePrefer', ...(option && { option }) }),
      );
    });

    it('takes the default bound for undefined, {} and { maxLength: undefined }', () => {
      for (const options of [undefined, {}, { maxLength: undefined }]) {
        expect(parsePrefer('wait=1', options).wait).toBe(1);
      }
    });
  });

  describe('hostile input (no length bound, so the parser itself is exercised)', () => {
    const unbounded = { maxLength: Number.POSITIVE_INFINITY };
    const MiB = 1024 * 1024;

    it('parses a 4 MiB header of one long token', () => {
      const preferences = parsePrefer(`foo=${'a'.repeat(4 * MiB)}, wait=1`, unbounded);
      expect(preferences.all.get('foo')?.value).toHaveLength(4 * MiB);
      expect(preferences.wait).toBe(1);
    });

    it('parses 100 000 parameters on one preference', () => {
      const header = `return=minimal${'; p=1'.repeat(100_000)}`;
      const preferences = parsePrefer(header, unbounded);
      expect(preferences.return).toBe('minimal');
      expect(preferences.all.get('return')?.params.size).toBe(1);
    });

    it('parses 100 000 distinct preferences', () => {
      const header = Array.from({ length: 100_000 }, (_, i) => `p${i}=${i}`).join(', ');
      expect(parsePrefer(header, unbounded).all.size).toBe(100_000);
    });

    it('parses 100 000 repeated preferences, keeping the first', () => {
      const header = Array.from({ length: 100_000 }, (_, i) => `wait=${i}`).join(',');
      expect(parsePrefer(header, unbounded).wait).toBe(0);
    });

    it.each([
      ['unbalanced quotes', 'a="'.repeat(200_000)],
      ['quotes and separators', '";,='.repeat(200_000)],
      ['backslashes in an open quote', `a="${'\\'.repeat(MiB)}`],
      ['escaped quotes', `a="${'\\"'.repeat(MiB / 2)}`],
      ['semicolons only', ';'.repeat(MiB)],
      ['equals signs only', '='.repeat(MiB)],
      ['whitespace only', ' \t'.repeat(MiB / 2)],
      ['malformed parameters', `a${'; =x'.repeat(200_000)}`],
      ['values with spaces', 'a=b c, '.repeat(200_000)],
      ['control characters', '\u0000\u0001\u007f'.repeat(300_000)],
      ['open quotes in parameters', `a${'; b="x'.repeat(100_000)}`],
    ])('parses %s without throwing', (_what, header) => {
      expect(() => parsePrefer(header, unbounded)).not.toThrow();
    });

    it('works through a malformed megabyte without quadratic rescans', () => {
      // Each malformed element is skipped from where the error was found, never re-read. Were
      // the parser quadratic, 2 MiB of this would take hours and the test would time out.
      const header = `${'x=a b'.repeat(400_000)}, return=minimal`;
      expect(parsePrefer(header, unbounded).return).toBe('minimal');
      expect(parsePrefer(`${'x=a b'.repeat(400_000)}; return=minimal`, unbounded).return).toBe(
        undefined,
      );
      expect(parsePrefer(`${'x=a b,'.repeat(400_000)} return=minimal`, unbounded).return).toBe(
        'minimal',
      );
    });

    it('never throws on random strings', () => {
      const alphabet = 'ab=;," \\\t\u0000é';
      let seed = 42;
      const random = () => {
        seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
        return seed / 2_147_483_648;
      };
      for (let round = 0; round < 2000; round++) {
        const length = Math.floor(random() * 40);
        let header = '';
        for (let i = 0; i < length; i++) header += alphabet[Math.floor(random() * alphabet.length)];
        const preferences = parsePrefer(header);
        for (const [name, pref] of preferences.all) {
          expect(name).toBe(name.toLowerCase());
          expect(pref.name).toBe(name);
        }
      }
    });
  });
});
