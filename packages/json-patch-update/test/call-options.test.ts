import { describe, expect, it } from 'vitest';
import {
  applyJsonPatch,
  applyMergePatch,
  checkJsonBody,
  checkKnownFields,
  validateOperations,
} from '../src/index.js';

const document = { id: 'A', name: 'a' };
const patch = [{ op: 'replace', path: '/name', value: 'b' }];

// The pure building blocks check their options on each call, as the factories do: a bad limit is
// the caller's TypeError naming it, never a limit that silently does not apply (`'32'`, `NaN`)
// nor a 4xx blaming the client's request (`-1`).
const calls: [string, (options: never) => unknown, string[]][] = [
  [
    'applyJsonPatch',
    (options) => applyJsonPatch(document, patch, options),
    ['maxOperations', 'maxDepth', 'maxCopyBytes'],
  ],
  ['applyMergePatch', (options) => applyMergePatch(document, { name: 'b' }, options), ['maxDepth']],
  [
    'validateOperations',
    (options) => validateOperations(patch, options),
    ['maxOperations', 'maxDepth'],
  ],
  ['checkJsonBody', (options) => checkJsonBody({ a: [[1]] }, options), ['maxDepth']],
];

function errorOf(call: () => unknown): { code?: string; option?: string; status?: number } {
  try {
    call();
  } catch (error) {
    return error as { code?: string; option?: string };
  }
  throw new Error('expected an error');
}

describe('options of the pure functions', () => {
  describe.each(calls)('%s', (_name, call, limits) => {
    it.each(
      limits.flatMap((limit) =>
        [0, -1, 1.5, Number.NaN, '32', null, Number.POSITIVE_INFINITY].map(
          (value) => [limit, value] as const,
        ),
      ),
    )('refuses %s: %s as a TypeError naming it', (limit, value) => {
      const error = errorOf(() => call({ [limit]: value } as never));
      expect(error).toBeInstanceOf(TypeError);
      expect(error).toMatchObject({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: limit });
      expect(error.status).toBeUndefined();
    });

    it.each([null, 5, 'x', []])('refuses the options %j', (options) => {
      expect(errorOf(() => call(options as never))).toMatchObject({
        code: 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT',
      });
    });

    it('refuses an unknown option with a suggestion', () => {
      expect(errorOf(() => call({ maxDepht: 3 } as never))).toMatchObject({
        code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
        option: 'maxDepht',
      });
    });

    it('takes no options, {} and undefined members', () => {
      expect(() => call(undefined as never)).not.toThrow();
      expect(() => call({} as never)).not.toThrow();
      expect(() => call({ [limits[0]!]: undefined } as never)).not.toThrow();
    });
  });

  it.each([
    ['applyJsonPatch', () => applyJsonPatch(document, patch, { readOnly: 'name' as never })],
    ['applyMergePatch', () => applyMergePatch(document, {}, { readOnly: [5] as never })],
    ['applyJsonPatch', () => applyJsonPatch(document, patch, { readOnly: ['/__proto__'] })],
  ])('%s refuses a readOnly that is not a list of names or pointers', (_, call) => {
    expect(errorOf(call)).toMatchObject({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'readOnly',
    });
  });

  it('checkKnownFields refuses unknown options', () => {
    expect(
      errorOf(() => checkKnownFields({ a: 1 }, { a: 1 }, { alsoknown: {} } as never)),
    ).toMatchObject({ code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION', option: 'alsoknown' });
  });
});
