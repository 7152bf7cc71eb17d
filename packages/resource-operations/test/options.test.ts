import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  compositeOperation,
  computedResource,
  mountOperations,
  resourceOrientedOperation,
  subResourceActions,
  transientOperation,
} from '../src/index.js';

const action = { available: () => true, perform: () => false };
const actions = {
  resource: '/accounts/:id',
  load: () => undefined,
  represent: () => ({}),
  state: () => 'x',
  actions: { suspend: action },
};

describe('options are checked when the declaration is made', () => {
  it('names an unknown option and the one it was probably meant as', () => {
    expect(() => subResourceActions({ ...actions, histroyPath: 'h' } as never)).toThrow(
      /unknown option "histroyPath". Did you mean "historyPath"\?/,
    );
  });

  it('requires transaction to be a function', () => {
    expect(() => subResourceActions({ ...actions, transaction: true } as never)).toThrow(
      /"transaction" must be a function/,
    );
  });

  it('requires the resource path to end with its id parameter', () => {
    expect(() => subResourceActions({ ...actions, resource: '/accounts' })).toThrow(
      /must end with the resource's id parameter/,
    );
    expect(() => subResourceActions({ ...actions, resource: 'accounts/:id' })).toThrow(
      /must be a route path/,
    );
  });

  it('refuses an empty action list, a bad action name and a missing perform', () => {
    expect(() => subResourceActions({ ...actions, actions: {} })).toThrow(/at least one action/);
    expect(() => subResourceActions({ ...actions, actions: { 'a/b': action } })).toThrow(
      /one path segment/,
    );
    expect(() =>
      subResourceActions({ ...actions, actions: { suspend: { available: () => true } } as never }),
    ).toThrow(/actions.suspend.perform" must be a function/);
    expect(() => subResourceActions({ ...actions, actions: { history: action } })).toThrow(
      /hide the history/,
    );
  });

  it('refuses a body schema that is not a Standard Schema', () => {
    expect(() =>
      transientOperation({
        path: '/risk/evaluate',
        body: { parse() {} } as never,
        compute: () => 1,
      }),
    ).toThrow(/Standard Schema v1/);
    expect(() =>
      transientOperation({ path: '/risk/evaluate', body: z.object({}), compute: () => 1 }),
    ).not.toThrow();
  });

  it('checks the other kinds the same way', () => {
    expect(() => resourceOrientedOperation({ path: '/d' } as never)).toThrow(
      /"create" must be a function/,
    );
    expect(() =>
      compositeOperation({ resource: '/c/:id', name: 'refund', load: () => undefined } as never),
    ).toThrow(/"representSource" must be a function/);
    expect(() =>
      computedResource({ path: '/s', parameters: 'a', compute: () => 1 } as never),
    ).toThrow(/"parameters" must be an array/);
    expect(() => transientOperation(null as never)).toThrow(/options must be an object/);
  });

  it('does not change the options object', () => {
    const options = { path: '/risk/evaluate', compute: () => 1 };
    const copy = { ...options };
    transientOperation(options);
    expect(options).toEqual(copy);
  });

  it('mountOperations refuses what is not a declaration', () => {
    const router = { get() {}, post() {} };
    expect(() => mountOperations(router, [{}] as never)).toThrow(/declared operation/);
    expect(() => mountOperations(router, {} as never)).toThrow(/must be an array/);
  });
});

describe('construction errors carry the stable option-checks codes', () => {
  const codeOf = (make: () => unknown) => {
    try {
      make();
    } catch (error) {
      return {
        code: (error as { code?: string }).code,
        option: (error as { option?: string }).option,
      };
    }
    return undefined;
  };

  it('names the missing, invalid, unknown or conflicting option', () => {
    expect(codeOf(() => resourceOrientedOperation({ path: '/d' } as never))).toEqual({
      code: 'ERR_RESOURCEFUL_MISSING_OPTION',
      option: 'create',
    });
    expect(codeOf(() => transientOperation({ path: 'x', compute: () => 1 }))).toEqual({
      code: 'ERR_RESOURCEFUL_INVALID_OPTION',
      option: 'path',
    });
    expect(codeOf(() => subResourceActions({ ...actions, histroyPath: 'h' } as never))?.code).toBe(
      'ERR_RESOURCEFUL_UNKNOWN_OPTION',
    );
    expect(codeOf(() => subResourceActions({ ...actions, actions: { history: action } }))).toEqual({
      code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
      option: 'historyPath',
    });
  });
});
