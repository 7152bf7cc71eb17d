import { describe, expect, it } from 'vitest';
import {
  assertKnownOptions,
  assertOptionsObject,
  closestName,
  describeValue,
  editDistance,
} from '../src/index.js';

describe('editDistance', () => {
  it.each([
    ['', '', 0],
    ['store', 'store', 0],
    ['Store', 'store', 0],
    ['stroe', 'store', 1],
    ['header', 'headers', 1],
    ['', 'abc', 3],
  ])('between %j and %j is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });
});

describe('closestName', () => {
  const known = ['maxPageSize', 'defaultPageSize', 'sortable', 'filterable'];

  it('suggests the nearest known name for a typo', () => {
    expect(closestName('maxPagesize', known)).toBe('maxPageSize');
    expect(closestName('sortabel', known)).toBe('sortable');
  });

  it('suggests nothing for a name far from every known one', () => {
    expect(closestName('colour', known)).toBeUndefined();
  });

  it('suggests nothing for a very long name, though names are compared cut at 64 characters', () => {
    expect(closestName('q'.repeat(300), known)).toBeUndefined();
    expect(closestName(`sortable${'x'.repeat(300)}`, known)).toBeUndefined();
  });
});

describe('assertKnownOptions', () => {
  it('accepts known options', () => {
    expect(() => assertKnownOptions('f()', { a: 1, b: 2 }, ['a', 'b', 'c'])).not.toThrow();
  });

  it('names an unknown option with a hint and the known ones', () => {
    expect(() => assertKnownOptions('paginate()', { maxPagesize: 1 }, ['maxPageSize'])).toThrow(
      'paginate(): unknown option "maxPagesize". Did you mean "maxPageSize"? Known options: maxPageSize.',
    );
  });
});

describe('assertOptionsObject', () => {
  it.each([[null], [[]], ['x'], [3]])('refuses %j', (value) => {
    expect(() => assertOptionsObject('f()', value)).toThrow(TypeError);
  });

  it.each([
    ['a Map', new Map([['maxLength', 5]]), 'a Map'],
    ['a Date', new Date(0), 'a Date'],
    ['a Promise', Promise.resolve({}), 'a Promise'],
    ['a RegExp', /x/, 'a RegExp'],
    ['a boxed string', Object('x'), 'a String'],
  ])('refuses %s, whose properties are not options, naming it', (_name, value, described) => {
    expect(() => assertOptionsObject('f()', value)).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
        message: `f(): options must be an object, got ${described}.`,
      }),
    );
  });

  it('accepts an object without prototype and an instance of a class', () => {
    expect(() => assertOptionsObject('f()', Object.create(null))).not.toThrow();
    expect(() => assertOptionsObject('f()', new (class Options {})())).not.toThrow();
  });

  it('accepts an object', () => {
    expect(() => assertOptionsObject('f()', {})).not.toThrow();
  });
});

describe('describeValue', () => {
  it('describes without echoing long strings', () => {
    expect(describeValue('x'.repeat(100))).toBe(`the string "${'x'.repeat(40)}"`);
    expect(describeValue(null)).toBe('null');
    expect(describeValue([])).toBe('an array');
    expect(describeValue(() => 1)).toBe('a function');
    expect(describeValue(5)).toBe('5');
  });

  it('says "an object" for an object and marks a BigInt as one', () => {
    expect(describeValue({})).toBe('an object');
    expect(describeValue(new Map())).toBe('a Map');
    expect(describeValue(5n)).toBe('5n');
    expect(describeValue(Symbol('s'))).toBe('Symbol(s)');
  });

  it('echoes no more than 40 characters of a symbol, a BigInt or a toString tag', () => {
    const long = 'x'.repeat(100);
    expect(describeValue(Symbol(long))).toBe(`Symbol(${'x'.repeat(40)}…)`);
    expect(describeValue(10n ** 60n)).toBe(`${'1'.padEnd(40, '0')}…n`);
    expect(describeValue({ [Symbol.toStringTag]: long })).toBe(`a ${'x'.repeat(40)}…`);
  });
});
