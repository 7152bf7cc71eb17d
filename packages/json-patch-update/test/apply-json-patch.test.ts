import { ApiError } from '@resourceful/error-envelope';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, validateOperations } from '../src/index.js';

function failure(run: () => unknown): ApiError {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected an ApiError');
}

const READ_ONLY = ['id', 'create_time', 'update_time', 'number', '/billing_address/country_code'];

const card = () => ({
  id: 'CARD-1',
  number: '4111111111111111',
  first_name: 'Ada',
  create_time: '2024-01-01T00:00:00.000Z',
  update_time: '2024-01-01T00:00:00.000Z',
  billing_address: { city: 'Paris', country_code: 'FR' },
  tags: ['a', 'b'],
  'a/b': 1,
  'm~n': 2,
});

describe('applyJsonPatch', () => {
  it('applies every operation and leaves the original untouched', () => {
    const doc = card();
    const result = applyJsonPatch(doc, [
      { op: 'replace', path: '/first_name', value: 'Grace' },
      { op: 'add', path: '/tags/-', value: 'c' },
      { op: 'remove', path: '/tags/0' },
      { op: 'copy', from: '/first_name', path: '/last_name' },
      { op: 'move', from: '/last_name', path: '/nickname' },
      { op: 'test', path: '/nickname', value: 'Grace' },
    ]);
    expect(result).toMatchObject({ first_name: 'Grace', nickname: 'Grace', tags: ['b', 'c'] });
    expect(doc).toEqual(card());
  });

  it('resolves ~1 and ~0 escapes in pointers', () => {
    const result = applyJsonPatch(card(), [
      { op: 'replace', path: '/a~1b', value: 10 },
      { op: 'replace', path: '/m~0n', value: 20 },
    ]);
    expect(result).toMatchObject({ 'a/b': 10, 'm~n': 20 });
  });

  it('changes nothing when a later operation fails', () => {
    const doc = card();
    const error = failure(() =>
      applyJsonPatch(doc, [
        { op: 'replace', path: '/first_name', value: 'Grace' },
        { op: 'remove', path: '/missing' },
      ]),
    );
    expect([error.status, error.target]).toEqual([400, '[1].path']);
    expect(doc).toEqual(card());
  });

  it('refuses a move or copy onto the root from a location that does not exist', () => {
    for (const op of ['move', 'copy'] as const) {
      const error = failure(() => applyJsonPatch({ a: 1 }, [{ op, from: '/missing', path: '' }]));
      expect([error.status, error.target, error.innererror?.code]).toEqual([
        400,
        '[0].from',
        'FROM_UNRESOLVABLE',
      ]);
    }
  });

  it('answers 409 CONFLICT (innererror PATCH_TEST_FAILED) naming the failed test operation', () => {
    const error = failure(() =>
      applyJsonPatch(card(), [
        { op: 'replace', path: '/first_name', value: 'Grace' },
        { op: 'test', path: '/first_name', value: 'Ada' },
      ]),
    );
    expect([error.status, error.code, error.target]).toEqual([409, 'CONFLICT', '[1]']);
    expect(error.innererror).toEqual({ code: 'PATCH_TEST_FAILED' });
  });

  it.each([
    ['/tags/01', 'path'],
    ['/tags/00', 'path'],
    ['/tags/+1', 'path'],
    ['/tags/1e0', 'path'],
  ])('refuses the array index in %s, which RFC 6901 does not allow', (pointer, member) => {
    for (const operation of [
      { op: 'add', path: pointer, value: 'x' },
      { op: 'replace', path: pointer, value: 'x' },
      { op: 'remove', path: pointer },
      { op: 'copy', from: '/first_name', path: pointer },
    ]) {
      const error = failure(() => applyJsonPatch(card(), [operation]));
      expect([error.status, error.target]).toEqual([400, `[0].${member}`]);
    }
    const error = failure(() =>
      applyJsonPatch(card(), [{ op: 'move', from: pointer, path: '/first_name' }]),
    );
    expect([error.status, error.target]).toEqual([400, '[0].from']);
  });

  // RFC 6902 §4.2, §4.3: the target location of remove and replace MUST exist. A member named
  // like a method of Object.prototype is found by `in` on any object: it must not pass for one.
  it.each(['/toString', '/hasOwnProperty', '/valueOf', '/billing_address/isPrototypeOf'])(
    'refuses remove and replace of %s, a member the resource does not have',
    (path) => {
      const doc = card();
      for (const operation of [
        { op: 'remove', path },
        { op: 'replace', path, value: 'x' },
      ]) {
        const error = failure(() => applyJsonPatch(doc, [operation]));
        expect([error.status, error.target, error.innererror?.code]).toEqual([
          400,
          '[0].path',
          'PATH_UNRESOLVABLE',
        ]);
      }
      expect(doc).toEqual(card());
    },
  );

  it('removes and replaces a member named like a method of Object.prototype when it exists', () => {
    const doc = { toString: 'a', valueOf: 'b' };
    const result = applyJsonPatch(doc, [
      { op: 'replace', path: '/toString', value: 'c' },
      { op: 'remove', path: '/valueOf' },
    ]);
    expect(result).toEqual({ toString: 'c' });
  });

  it('names the from member when it does not resolve', () => {
    const error = failure(() =>
      applyJsonPatch(card(), [{ op: 'move', from: '/nope', path: '/x' }]),
    );
    expect(error.target).toBe('[0].from');
  });

  describe('read-only fields', () => {
    it.each([
      ['replace', { op: 'replace', path: '/id', value: 'CARD-2' }, 'id', 'path'],
      ['remove', { op: 'remove', path: '/create_time' }, 'create_time', 'path'],
      ['add', { op: 'add', path: '/update_time', value: 'x' }, 'update_time', 'path'],
      ['a declared field', { op: 'replace', path: '/number', value: '1' }, 'number', 'path'],
      [
        'a nested pointer',
        { op: 'replace', path: '/billing_address/country_code', value: 'DE' },
        'billing_address.country_code',
        'path',
      ],
      [
        'a parent of one',
        { op: 'replace', path: '/billing_address', value: { city: 'x' } },
        'billing_address.country_code',
        'path',
      ],
      ['the whole document', { op: 'replace', path: '', value: card() }, 'id', 'path'],
      ['add at the root', { op: 'add', path: '', value: {} }, 'id', 'path'],
      ['move out of one', { op: 'move', from: '/number', path: '/n' }, 'number', 'from'],
      ['copy out of one', { op: 'copy', from: '/id', path: '/other' }, 'id', 'from'],
      ['copy of the whole document', { op: 'copy', from: '', path: '/snapshot' }, 'id', 'from'],
      ['copy onto one', { op: 'copy', from: '/first_name', path: '/number' }, 'number', 'path'],
    ])(
      'refuses %s with 400 READ_ONLY_FIELD naming the field',
      (_name, operation, target, member) => {
        const error = failure(() =>
          applyJsonPatch(card(), [{ op: 'test', path: '/id', value: 'CARD-1' }, operation], {
            readOnly: READ_ONLY,
          }),
        );
        expect([error.status, error.code, error.target]).toEqual([400, 'READ_ONLY_FIELD', target]);
        expect(error.innererror).toMatchObject({ operation: 1, member });
      },
    );

    it('lets a test operation read a read-only field', () => {
      expect(
        applyJsonPatch(card(), [{ op: 'test', path: '/number', value: '4111111111111111' }], {
          readOnly: READ_ONLY,
        }),
      ).toEqual(card());
    });

    it('lets other fields of an object that holds a read-only field change', () => {
      const result = applyJsonPatch(
        card(),
        [{ op: 'replace', path: '/billing_address/city', value: 'Lyon' }],
        { readOnly: READ_ONLY },
      );
      expect(result).toMatchObject({ billing_address: { city: 'Lyon', country_code: 'FR' } });
    });

    // A store may hand back what JSON has no form for: pg reads a timestamptz as a Date, and
    // an object built with `{ ...x, secret: undefined }` has an undefined member. The stored
    // value counts as its JSON form, the one GET sends and a patch sees.
    it('accepts a patch of a resource whose stored read-only values are not JSON values', () => {
      const stored = {
        id: 'CARD-1',
        create_time: new Date('2024-01-01T00:00:00.000Z'),
        secret: undefined,
        first_name: 'Ada',
      };
      const result = applyJsonPatch(
        stored,
        [{ op: 'replace', path: '/first_name', value: 'Grace' }],
        { readOnly: ['id', 'create_time', 'secret'] },
      );
      expect(result).toEqual({
        id: 'CARD-1',
        create_time: '2024-01-01T00:00:00.000Z',
        first_name: 'Grace',
      });
    });

    it('refuses a read-only array element that shifts under an insertion', () => {
      const doc = { id: 'x', items: [{ id: 'i1' }, { id: 'i2' }] };
      const error = failure(() =>
        applyJsonPatch(doc, [{ op: 'add', path: '/items/0', value: { id: 'new' } }], {
          readOnly: ['/items/0/id'],
        }),
      );
      expect(error.code).toBe('READ_ONLY_FIELD');
    });
  });

  describe('hostile patches', () => {
    it.each([
      '/__proto__/polluted',
      '/constructor/prototype/polluted',
      '/billing_address/__proto__',
      '/prototype',
    ])('refuses the path %s with 400 naming the operation', (path) => {
      const error = failure(() => applyJsonPatch(card(), [{ op: 'add', path, value: 1 }]));
      expect([error.status, error.target]).toEqual([400, '[0].path']);
      expect(error.innererror?.code).toBe('FORBIDDEN_PATH_SEGMENT');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    it('refuses a from member through __proto__', () => {
      const error = failure(() =>
        applyJsonPatch(card(), [{ op: 'copy', from: '/__proto__', path: '/x' }]),
      );
      expect(error.target).toBe('[0].from');
    });

    it('refuses a value with a __proto__ key', () => {
      const value = JSON.parse('{"a":{"__proto__":{"polluted":true}}}');
      const error = failure(() => applyJsonPatch(card(), [{ op: 'add', path: '/x', value }]));
      expect([error.status, error.target]).toEqual([400, '[0].value.a.__proto__']);
    });

    it('refuses a value nested deeper than maxDepth', () => {
      let value: unknown = 1;
      for (let i = 0; i < 10_000; i++) value = [value];
      const error = failure(() => applyJsonPatch(card(), [{ op: 'add', path: '/x', value }]));
      expect(error.innererror?.code).toBe('TOO_DEEP');
    });

    it('answers 413 when copies would multiply the document, and changes nothing', () => {
      // Each copy doubles the array: 40 of them would build 2^40 elements from a 2 KiB patch.
      const doc = { tags: ['a'] };
      const patch = Array.from({ length: 40 }, () => ({
        op: 'copy',
        from: '/tags',
        path: '/tags/-',
      }));
      const error = failure(() => applyJsonPatch(doc, patch));
      expect([error.status, error.code, error.innererror?.code]).toEqual([
        413,
        'PAYLOAD_TOO_LARGE',
        'COPY_TOO_LARGE',
      ]);
      expect(error.target).toMatch(/^\[\d+\]\.from$/);
      expect(doc).toEqual({ tags: ['a'] });
    });

    it('answers 413 when the copied values add up past maxCopyBytes', () => {
      const doc = { text: 'x'.repeat(600) };
      const copies = (count: number) =>
        Array.from({ length: count }, (_, i) => ({ op: 'copy', from: '/text', path: `/c${i}` }));
      expect(() => applyJsonPatch(doc, copies(1), { maxCopyBytes: 1000 })).not.toThrow();
      const error = failure(() => applyJsonPatch(doc, copies(2), { maxCopyBytes: 1000 }));
      expect([error.status, error.target]).toEqual([413, '[1].from']);
    });

    it('answers 413 for more operations than maxOperations', () => {
      const patch = Array.from({ length: 6 }, () => ({ op: 'test', path: '/id', value: 'CARD-1' }));
      const error = failure(() => applyJsonPatch(card(), patch, { maxOperations: 5 }));
      expect([error.status, error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    });
  });
});

describe('validateOperations', () => {
  it.each([
    [{}, undefined],
    ['add', undefined],
    [[1], '[0]'],
    [[null], '[0]'],
    [[[]], '[0]'],
    [[{ path: '/a', value: 1 }], '[0].op'],
    [[{ op: 'ADD', path: '/a', value: 1 }], '[0].op'],
    [[{ op: 'get', path: '/a' }], '[0].op'],
    [[{ op: 'add', value: 1 }], '[0].path'],
    [[{ op: 'add', path: 1, value: 1 }], '[0].path'],
    [[{ op: 'add', path: 'a', value: 1 }], '[0].path'],
    [[{ op: 'add', path: '/a~2', value: 1 }], '[0].path'],
    [[{ op: 'add', path: '/a~', value: 1 }], '[0].path'],
    [[{ op: 'add', path: '/a' }], '[0].value'],
    [[{ op: 'test', path: '/a' }], '[0].value'],
    [
      [
        { op: 'remove', path: '/a' },
        { op: 'move', path: '/a' },
      ],
      '[1].from',
    ],
    [[{ op: 'copy', from: 7, path: '/a' }], '[0].from'],
    [[{ op: 'move', from: '/a', path: '/a/b' }], '[0].from'],
  ])('answers 400 for %j with target %s', (patch, target) => {
    const error = failure(() => validateOperations(patch));
    expect(error.status).toBe(400);
    expect(error.target).toBe(target);
  });

  it('accepts a null value and ignores members an operation does not define', () => {
    expect(
      validateOperations([{ op: 'add', path: '/a', value: null, from: '/x', extra: true }]).map(
        (o) => o.operation,
      ),
    ).toEqual([{ op: 'add', path: '/a', value: null }]);
  });

  it('accepts an empty patch', () => {
    expect(validateOperations([])).toEqual([]);
  });
});
