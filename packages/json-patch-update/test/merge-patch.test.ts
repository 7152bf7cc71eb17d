import { ApiError } from '@resourceful/error-envelope';
import { describe, expect, it } from 'vitest';
import { applyMergePatch } from '../src/index.js';

describe('applyMergePatch', () => {
  // RFC 7396 Appendix A.
  it.each([
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [
      ['a', 'b'],
      ['c', 'd'],
      ['c', 'd'],
    ],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ])('merges %j with %j into %j (RFC 7396 Appendix A)', (target, patch, expected) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it('leaves the original untouched', () => {
    const doc = { a: { b: 1 } };
    applyMergePatch(doc, { a: { b: 2, c: 3 } });
    expect(doc).toEqual({ a: { b: 1 } });
  });

  it('refuses a change to a read-only field with 400 READ_ONLY_FIELD', () => {
    let error: unknown;
    try {
      applyMergePatch(
        { id: '1', number: '4111' },
        { number: '1234' },
        { readOnly: ['id', 'number'] },
      );
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect([(error as ApiError).code, (error as ApiError).target]).toEqual([
      'READ_ONLY_FIELD',
      'number',
    ]);
  });

  it('accepts a read-only field sent back unchanged', () => {
    expect(applyMergePatch({ id: '1', a: 1 }, { id: '1', a: 2 }, { readOnly: ['id'] })).toEqual({
      id: '1',
      a: 2,
    });
  });

  it('accepts a read-only field stored as a Date and sent back as the JSON string GET gave', () => {
    const stored = { id: '1', create_time: new Date('2024-01-01T00:00:00.000Z'), a: 1 };
    const sent = { create_time: '2024-01-01T00:00:00.000Z', a: 2 };
    expect(applyMergePatch(stored, sent, { readOnly: ['create_time'] })).toEqual({
      id: '1',
      create_time: '2024-01-01T00:00:00.000Z',
      a: 2,
    });
  });

  it('refuses a change to a read-only field stored as a Date', () => {
    const stored = { id: '1', create_time: new Date('2024-01-01T00:00:00.000Z') };
    expect(() =>
      applyMergePatch(
        stored,
        { create_time: '2025-01-01T00:00:00.000Z' },
        { readOnly: ['create_time'] },
      ),
    ).toThrow(/read-only/);
  });

  it('refuses replacing the whole document when it holds a read-only field', () => {
    expect(() => applyMergePatch({ id: '1' }, ['x'], { readOnly: ['id'] })).toThrow(ApiError);
  });

  it('refuses a __proto__ key and does not pollute prototypes', () => {
    const patch = JSON.parse('{"a":{"__proto__":{"polluted":true}}}');
    expect(() => applyMergePatch({}, patch)).toThrow(/__proto__/);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses "constructor" and "prototype" keys at any level, as "__proto__"', () => {
    // A naive deep merge follows constructor.prototype to Object.prototype.
    for (const [patch, target] of [
      [{ constructor: 'x' }, 'constructor'],
      [{ a: { constructor: { prototype: { polluted: 1 } } } }, 'a.constructor'],
      [{ a: { prototype: 1 } }, 'a.prototype'],
    ] as const) {
      expect(() => applyMergePatch({ a: {} }, patch)).toThrow(
        expect.objectContaining({
          status: 400,
          target,
          innererror: expect.objectContaining({ code: 'FORBIDDEN_KEY' }),
        }),
      );
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
