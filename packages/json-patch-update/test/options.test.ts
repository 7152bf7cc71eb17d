import { KeyedLock } from '@resourceful/conditional-requests';
import { describe, expect, it } from 'vitest';
import { jsonPatchUpdate, putReplace } from '../src/index.js';

const load = () => undefined;
const save = () => undefined;

describe('jsonPatchUpdate and putReplace options', () => {
  it('return named middleware', () => {
    expect(jsonPatchUpdate({ load, save }).name).toBe('jsonPatchUpdateMiddleware');
    expect(putReplace({ load, save }).name).toBe('putReplaceMiddleware');
  });

  it('accept options left undefined', () => {
    expect(() =>
      jsonPatchUpdate({ load, save, upsert: undefined, schema: undefined }),
    ).not.toThrow();
  });

  it('require load and save', () => {
    expect(() => jsonPatchUpdate({ load } as never)).toThrow(/"save" is required/);
    expect(() => putReplace({ save } as never)).toThrow(/"load" is required/);
  });

  it('refuse an unknown option with a suggestion', () => {
    expect(() => jsonPatchUpdate({ load, save, upsret: true } as never)).toThrow(
      /unknown option "upsret". Did you mean "upsert"\?/,
    );
    expect(() => putReplace({ load, save, upsert: true } as never)).toThrow(
      /unknown option "upsert"/,
    );
  });

  it.each([
    [{ upsert: 'yes' }, /upsert/],
    [{ mergePatch: 1 }, /mergePatch/],
    [{ maxOperations: 0 }, /maxOperations/],
    [{ maxBodyBytes: -1 }, /maxBodyBytes/],
    [{ maxDepth: 1.5 }, /maxDepth/],
    [{ schema: {} }, /Standard Schema/],
    [{ schema: { safeParse: () => ({ success: true }) } }, /Standard Schema/],
    [{ readOnly: 'id' }, /readOnly/],
    [{ readOnly: ['/a~2'] }, /JSON Pointer/],
    [{ readOnly: ['/a/__proto__'] }, /cannot be declared/],
    [{ readOnly: [''] }, /readOnly/],
    [{ etag: 'x' }, /etag/],
    [{ requireIfMatch: 'true' }, /requireIfMatch/],
    [{ compareAndSet: 'yes' }, /compareAndSet/],
  ])('refuse %j', (extra, message) => {
    expect(() => jsonPatchUpdate({ load, save, ...extra } as never)).toThrow(message);
  });

  it.each([
    [null, 'ERR_RESOURCEFUL_OPTIONS_NOT_OBJECT', undefined],
    [{ load, save, upsret: true }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION', 'upsret'],
    [{ load }, 'ERR_RESOURCEFUL_MISSING_OPTION', 'save'],
    [{ load, save, maxOperations: 0 }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'maxOperations'],
    [{ load, save, readOnly: ['/a~2'] }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'readOnly'],
    [{ load, save, lock: {} }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'lock'],
    [{ load, save, location: '/x' }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'location'],
    [
      { load, save, compareAndSet: true, lock: new KeyedLock() },
      'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
      'lock',
    ],
  ])('give %j a stable code and the option', (options, code, option) => {
    let error: unknown;
    try {
      jsonPatchUpdate(options as never);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(TypeError);
    expect(error).toMatchObject({ code, factory: 'jsonPatchUpdate' });
    expect((error as { option?: string }).option).toBe(option);
  });

  it('give putReplace errors their own factory name', () => {
    expect(() => putReplace({ load, save, allowCreate: 1 } as never)).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        factory: 'putReplace',
        option: 'allowCreate',
      }),
    );
  });

  it('do not mutate the options object', () => {
    const options = Object.freeze({ load, save, readOnly: Object.freeze(['number']) });
    expect(() => jsonPatchUpdate(options)).not.toThrow();
    expect(options.readOnly).toEqual(['number']);
  });
});
