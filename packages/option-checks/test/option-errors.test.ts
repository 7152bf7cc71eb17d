import { describe, expect, it } from 'vitest';
import {
  assertKnownOptions,
  assertOptionsObject,
  booleanOption,
  functionOption,
  isOptionError,
  missingOption,
  OPTION_ERROR_CODES,
  oneOfOption,
  positiveIntegerOption,
  requiredFunctionOption,
} from '../src/index.js';

/** The error `fn` throws, for assertions on its properties. */
function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('construction errors', () => {
  it('keep the codes stable', () => {
    expect(OPTION_ERROR_CODES).toEqual({
      notAnObject: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
      unknownOption: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      missingOption: 'ERR_RESOURCEFUL_MISSING_OPTION',
      invalidOption: 'ERR_RESOURCEFUL_INVALID_OPTION',
      conflictingOptions: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
    });
    expect(Object.isFrozen(OPTION_ERROR_CODES)).toBe(true);
  });

  it.each([
    [
      'not an object',
      () => assertOptionsObject('f', null),
      'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
      undefined,
    ],
    [
      'an unknown option',
      () => assertKnownOptions('f', { sotr: 1 }, ['sort']),
      'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      'sotr',
    ],
    [
      'a missing function',
      () => requiredFunctionOption('f', 'load', undefined),
      'ERR_RESOURCEFUL_MISSING_OPTION',
      'load',
    ],
    [
      'a function of the wrong type',
      () => functionOption('f', 'id', 'x' as never),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'id',
    ],
    [
      'a boolean of the wrong type',
      () => booleanOption('f', 'upsert', 'yes', false),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'upsert',
    ],
    [
      'a zero size',
      () => positiveIntegerOption('f', 'max', 0, 1),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'max',
    ],
    [
      'a value outside the list',
      () => oneOfOption('f', 'order', 'up', ['asc', 'desc'], 'asc'),
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'order',
    ],
  ])('%s is a TypeError with its code, the factory and the option', (_name, fn, code, option) => {
    const error = thrown(fn);
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code, factory: 'f' });
    expect((error as { option?: string }).option).toBe(option);
    expect(isOptionError(error)).toBe(true);
  });

  it('names an unknown key of a nested options object by its whole path', () => {
    expect(() =>
      assertKnownOptions(
        'versionedRouter',
        { dat: 1 },
        ['date', 'sunset'],
        'versions.v1.deprecation',
      ),
    ).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
        option: 'versions.v1.deprecation.dat',
        message: expect.stringContaining('Did you mean "versions.v1.deprecation.date"?'),
      }),
    );
  });

  it('tells other errors apart', () => {
    expect(isOptionError(new TypeError('x'))).toBe(false);
    expect(isOptionError({ code: 'ERR_RESOURCEFUL_INVALID_OPTION' })).toBe(false);
  });
});

describe('value checks', () => {
  it('return the default for undefined and the value when valid', () => {
    expect(booleanOption('f', 'a', undefined, true)).toBe(true);
    expect(booleanOption('f', 'a', false, true)).toBe(false);
    expect(positiveIntegerOption('f', 'a', undefined, 7)).toBe(7);
    expect(positiveIntegerOption('f', 'a', 3, 7)).toBe(3);
    expect(oneOfOption('f', 'a', undefined, ['x', 'y'], 'y')).toBe('y');
    const fn = () => 1;
    expect(functionOption('f', 'a', fn)).toBe(fn);
    expect(functionOption('f', 'a', undefined)).toBeUndefined();
  });

  it.each([[1.5], [-1], [Number.MAX_SAFE_INTEGER + 1], [Number.NaN], ['3']])(
    'refuse %j as a positive integer',
    (value) => {
      expect(() => positiveIntegerOption('f', 'size', value, 1)).toThrow(
        /^f: "size" must be a positive integer, got /,
      );
    },
  );

  it('suggest the nearest allowed value', () => {
    expect(() =>
      oneOfOption('paginate', 'naming', 'snakecase', ['snake_case', 'camelCase'], 'snake_case'),
    ).toThrow(
      'paginate: "naming" must be "snake_case" or "camelCase", got the string "snakecase". Did you mean "snake_case"?',
    );
  });

  it('say what a missing option must be', () => {
    expect(() => requiredFunctionOption('jsonPatchUpdate', 'save', undefined)).toThrow(
      'jsonPatchUpdate: "save" is required and must be a function.',
    );
  });

  it('say what a missing option of any kind must be, naming it', () => {
    expect(() => missingOption('graphqlEndpoint', 'schema', 'a GraphQLSchema')).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_MISSING_OPTION',
        factory: 'graphqlEndpoint',
        option: 'schema',
        message: 'graphqlEndpoint: "schema" is required and must be a GraphQLSchema.',
      }),
    );
  });
});
