import { describeEachExpress } from '@resourceful/test-support';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  compositeOperation,
  computedResource,
  memoryHistoryStore,
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

const decisions = {
  path: '/risk/decisions',
  create: () => ({ id: 'D-1' }),
  load: () => undefined,
  represent: () => ({}),
};
const refund = {
  resource: '/captures/:id',
  name: 'refund',
  load: () => undefined,
  representSource: () => ({}),
  create: () => ({ id: 'R-1' }),
  created: { path: '/refunds', load: () => undefined },
  represent: () => ({}),
  related: () => [],
};

function errorOf(make: () => unknown): { code?: string; option?: string; message: string } {
  try {
    make();
  } catch (error) {
    return error as { code?: string; option?: string; message: string };
  }
  throw new Error('expected a construction error');
}

const UGLY: [string, unknown][] = [
  ['null', null],
  ['5', 5],
  ['"x"', 'x'],
  ['an array', []],
  ['NaN', Number.NaN],
];

describe('options nested in a declaration are checked when it is made', () => {
  describe('notFound', () => {
    it.each(UGLY)('refuses %s, naming notFound', (_, value) => {
      for (const make of [
        () => subResourceActions({ ...actions, notFound: value as never }),
        () => resourceOrientedOperation({ ...decisions, notFound: value as never }),
        () => compositeOperation({ ...refund, notFound: value as never }),
      ]) {
        expect(errorOf(make)).toMatchObject({
          code: 'ERR_RESOURCEFUL_INVALID_OPTION',
          option: 'notFound',
          message: expect.stringContaining('"notFound" must be an object'),
        });
      }
    });

    it('refuses an unknown member and a member that is not a non-empty string', () => {
      expect(
        errorOf(() => subResourceActions({ ...actions, notFound: { mesage: 'm' } as never })),
      ).toMatchObject({ code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION', option: 'notFound.mesage' });
      expect(
        errorOf(() => subResourceActions({ ...actions, notFound: { target: '' } })),
      ).toMatchObject({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'notFound.target' });
      expect(
        errorOf(() =>
          compositeOperation({
            ...refund,
            created: { ...refund.created, notFound: { message: 5 } as never },
          }),
        ),
      ).toMatchObject({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        option: 'created.notFound.message',
      });
    });

    it('takes { message, target }, {} and undefined', () => {
      expect(() =>
        subResourceActions({ ...actions, notFound: { message: 'No account.', target: 'id' } }),
      ).not.toThrow();
      expect(() => resourceOrientedOperation({ ...decisions, notFound: {} })).not.toThrow();
      expect(() => compositeOperation({ ...refund, notFound: undefined })).not.toThrow();
    });
  });

  describe('historyStore', () => {
    it.each([...UGLY, ['{}', {}], ['a store without source()', { count() {}, append() {} }]])(
      'refuses %s, naming historyStore',
      (_, value) => {
        expect(
          errorOf(() => subResourceActions({ ...actions, historyStore: value as never })),
        ).toMatchObject({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'historyStore' });
      },
    );

    it('takes memoryHistoryStore()', () => {
      expect(() =>
        subResourceActions({ ...actions, historyStore: memoryHistoryStore() }),
      ).not.toThrow();
    });
  });

  describe('historyPaging', () => {
    it.each(UGLY)('refuses %s, naming historyPaging', (_, value) => {
      expect(
        errorOf(() => subResourceActions({ ...actions, historyPaging: value as never })),
      ).toMatchObject({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'historyPaging' });
    });

    it('names a bad or unknown paging option by its full name', () => {
      expect(
        errorOf(() => subResourceActions({ ...actions, historyPaging: { defaultPageSize: -1 } })),
      ).toMatchObject({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        option: 'historyPaging.defaultPageSize',
        message: expect.stringMatching(/^subResourceActions: historyPaging: /),
      });
      expect(
        errorOf(() => subResourceActions({ ...actions, historyPaging: { sortable: [] } as never })),
      ).toMatchObject({ code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION', option: 'historyPaging.sortable' });
    });
  });

  describe('historyPath and allowedParameters', () => {
    it('refuses null rather than taking the default', () => {
      expect(
        errorOf(() => subResourceActions({ ...actions, historyPath: null as never })),
      ).toMatchObject({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'historyPath' });
      expect(
        errorOf(() =>
          computedResource({
            path: '/s',
            parameters: [],
            compute: () => 1,
            allowedParameters: null as never,
          }),
        ),
      ).toMatchObject({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'allowedParameters' });
    });
  });

  describe('publicBaseUrl', () => {
    it.each([
      ['a word', 'x'],
      ['a relative path', '/api'],
      ['another scheme', 'ftp://example.com'],
      ['a query', 'https://example.com/?a=1'],
      ['a fragment', 'https://example.com/#top'],
      ['credentials', 'https://user:pw@example.com'],
      ['a number', 5],
      ['null', null],
    ])('refuses %s in every kind', (_, value) => {
      for (const make of [
        () => subResourceActions({ ...actions, publicBaseUrl: value as never }),
        () => resourceOrientedOperation({ ...decisions, publicBaseUrl: value as never }),
        () => compositeOperation({ ...refund, publicBaseUrl: value as never }),
      ]) {
        expect(errorOf(make)).toMatchObject({
          code: 'ERR_RESOURCEFUL_INVALID_OPTION',
          option: 'publicBaseUrl',
        });
      }
    });
  });
});

describeEachExpress('a publicBaseUrl with a trailing slash', (express) => {
  it('gives links without a doubled slash', async () => {
    const app = express();
    app.use(express.json());
    const v1 = express.Router();
    mountOperations(v1, [
      resourceOrientedOperation({
        ...decisions,
        publicBaseUrl: 'https://api.example.com/payments/',
        load: () => ({ id: 'D-1' }),
      }),
    ]);
    app.use('/v1', v1);
    const res = await request(app).post('/v1/risk/decisions').send({});
    expect(res.status).toBe(201);
    expect(res.headers.location).toBe('https://api.example.com/payments/v1/risk/decisions/D-1');
  });
});
