/**
 * Enum fields as GraphQL enums, whatever their values: values GraphQL cannot name are named in
 * its convention; a list's filter on an enum field takes the field's enum.
 */
import { describeApi } from '@resourceful/api-description';
import {
  type ExecutionResult,
  getIntrospectionQuery,
  graphql,
  type IntrospectionEnumType,
  type IntrospectionObjectType,
  type IntrospectionQuery,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { graphqlEnumValues, graphqlSchema, type ListArguments } from '../src/index.js';

describe('graphqlEnumValues', () => {
  it('keeps values that are GraphQL names, so GraphQL answers the text REST answers', () => {
    expect([...graphqlEnumValues(['ok', 'partially_refunded', 'ACTIVE'])]).toEqual([
      ['ok', 'ok'],
      ['partially_refunded', 'partially_refunded'],
      ['ACTIVE', 'ACTIVE'],
    ]);
  });

  it('names every value of an enum that has one GraphQL cannot name in ALL_CAPS', () => {
    expect([...graphqlEnumValues(['suspend', 're-activate'])]).toEqual([
      ['suspend', 'SUSPEND'],
      ['re-activate', 'RE_ACTIVATE'],
    ]);
    expect([...graphqlEnumValues(['3ds', 'cardOnFile', 'true', 'two  words'])]).toEqual([
      ['3ds', '_3DS'],
      ['cardOnFile', 'CARD_ON_FILE'],
      ['true', 'TRUE'],
      ['two  words', 'TWO_WORDS'],
    ]);
  });

  it('refuses two values that would have one name, and a value with nothing to name it by', () => {
    expect(() => graphqlEnumValues(['re-activate', 're activate'])).toThrow(
      /"re-activate" and "re activate" would both be the GraphQL enum value RE_ACTIVATE/,
    );
    expect(() => graphqlEnumValues(['ok', '--'])).toThrow(/"--" has no GraphQL name/);
  });
});

const link = z.object({ href: z.string(), rel: z.string(), method: z.string() });
const Agreement = z.object({
  id: z.string(),
  state: z.enum(['ACTIVE', 'SUSPENDED']),
  create_time: z.iso.datetime(),
  update_time: z.iso.datetime(),
  links: z.array(link),
});
const ActionRecord = z.object({
  id: z.string(),
  action: z.enum(['suspend', 're-activate']),
  outcome: z.enum(['STATE_CHANGED', 'NO_CHANGE']),
});
const RECORDS = [
  { id: 'H-1', action: 'suspend', outcome: 'STATE_CHANGED' },
  { id: 'H-2', action: 're-activate', outcome: 'STATE_CHANGED' },
  { id: 'H-3', action: 're-activate', outcome: 'NO_CHANGE' },
];
const AGREEMENT = {
  id: 'A-1',
  state: 'ACTIVE',
  create_time: '2026-11-24T10:00:00Z',
  update_time: '2026-11-24T10:00:00Z',
  links: [],
};

function setup() {
  const calls: ListArguments[] = [];
  const api = describeApi({
    title: 'Agreements',
    version: '1.0.0',
    pathVersion: 'v1',
    resources: [
      {
        name: 'Agreement',
        path: '/payments/agreements',
        summary: 'An agreement.',
        representation: Agreement,
        operations: { read: true, list: { filterable: ['state'] } },
        subCollections: [
          {
            name: 'history',
            summary: 'The calls of its actions.',
            items: { name: 'ActionRecord', schema: ActionRecord },
            list: { filterable: ['action', 'outcome', 'id'] },
          },
        ],
      },
    ],
  });
  const matching = (args: ListArguments) =>
    RECORDS.filter((record) =>
      Object.entries(args.filters).every(([field, value]) => record[field as 'id'] === value),
    );
  const schema = graphqlSchema(api, {
    resolvers: {
      Agreement: {
        read: () => AGREEMENT,
        list: (args) => {
          calls.push(args);
          return { items: [AGREEMENT], links: [] };
        },
        subCollections: {
          history: (_parent, args) => {
            calls.push(args);
            return { items: matching(args), links: [] };
          },
        },
      },
    },
  });
  const run = (source: string) => graphql({ schema, source }) as Promise<ExecutionResult>;
  return { schema, run, calls };
}

describe('graphqlSchema: enum fields', () => {
  it('introspects the history’s action as an enum, each value saying its REST text', async () => {
    const { run } = setup();
    const result = await run(getIntrospectionQuery());
    const types = (result.data as unknown as IntrospectionQuery).__schema.types;
    const record = types.find((t) => t.name === 'ActionRecord') as IntrospectionObjectType;
    const fieldType = (name: string) => {
      const type = record.fields.find((f) => f.name === name)?.type;
      return type?.kind === 'NON_NULL' ? type.ofType : type;
    };
    expect(fieldType('action')).toEqual({ kind: 'ENUM', name: 'ActionRecordAction', ofType: null });
    expect(fieldType('outcome')).toEqual({
      kind: 'ENUM',
      name: 'ActionRecordOutcome',
      ofType: null,
    });
    const action = types.find((t) => t.name === 'ActionRecordAction') as IntrospectionEnumType;
    expect(action.enumValues.map((v) => [v.name, v.description])).toEqual([
      ['SUSPEND', '`suspend` in REST.'],
      ['RE_ACTIVATE', '`re-activate` in REST.'],
    ]);
    const outcome = types.find((t) => t.name === 'ActionRecordOutcome') as IntrospectionEnumType;
    expect(outcome.enumValues.map((v) => [v.name, v.description])).toEqual([
      ['STATE_CHANGED', null],
      ['NO_CHANGE', null],
    ]);
  });

  it('types each filter on an enum field with the field’s own enum, and others as String', async () => {
    const { run } = setup();
    const result = await run(getIntrospectionQuery());
    const types = (result.data as unknown as IntrospectionQuery).__schema.types;
    const argument = (typeName: string, field: string, name: string) =>
      (types.find((t) => t.name === typeName) as IntrospectionObjectType).fields
        .find((f) => f.name === field)
        ?.args.find((a) => a.name === name)?.type;
    for (const [typeName, field, name, kind, type] of [
      ['Agreement', 'history', 'action', 'ENUM', 'ActionRecordAction'],
      ['Agreement', 'history', 'outcome', 'ENUM', 'ActionRecordOutcome'],
      ['Agreement', 'history', 'id', 'SCALAR', 'String'],
      ['Query', 'agreements', 'state', 'ENUM', 'AgreementState'],
    ] as const) {
      expect(argument(typeName, field, name), `${typeName}.${field}(${name})`).toEqual({
        kind,
        name: type,
        ofType: null,
      });
    }
  });

  it('types a link’s method as the enum of the methods the OpenAPI document’s Link lists', async () => {
    const { run } = setup();
    const res = await run(
      '{ __type(name: "Link") { fields { name type { kind name } } } linkMethod: __type(name: "LinkMethod") { kind enumValues { name } } }',
    );
    const data = res.data as {
      __type: { fields: { name: string; type: { kind: string; name: string } }[] };
      linkMethod: { kind: string; enumValues: { name: string }[] };
    };
    expect(data.__type.fields.find((f) => f.name === 'method')?.type).toEqual({
      kind: 'ENUM',
      name: 'LinkMethod',
    });
    expect(data.linkMethod.enumValues.map((v) => v.name)).toEqual([
      'GET',
      'POST',
      'PUT',
      'PATCH',
      'DELETE',
      'HEAD',
      'OPTIONS',
    ]);
  });

  it('answers the GraphQL names and hands the resolvers the described values', async () => {
    const { run, calls } = setup();
    const res = await run(
      '{ agreement(id: "A-1") { history(action: RE_ACTIVATE) { items { id action outcome } } } }',
    );
    expect(res).toEqual({
      data: {
        agreement: {
          history: {
            items: [
              { id: 'H-2', action: 'RE_ACTIVATE', outcome: 'STATE_CHANGED' },
              { id: 'H-3', action: 'RE_ACTIVATE', outcome: 'NO_CHANGE' },
            ],
          },
        },
      },
    });
    expect(calls.map((args) => args.filters)).toEqual([{ action: 're-activate' }]);
    const list = await run('{ agreements(state: SUSPENDED) { items { id state } } }');
    expect(list).toEqual({ data: { agreements: { items: [{ id: 'A-1', state: 'ACTIVE' }] } } });
    expect(calls[1]?.filters).toEqual({ state: 'SUSPENDED' });
  });

  it('refuses a filter value outside the enum before any resolver runs', async () => {
    const { run, calls } = setup();
    for (const source of [
      '{ agreement(id: "A-1") { history(action: EXPIRE) { items { id } } } }',
      // The REST text of a renamed value is not its GraphQL name.
      '{ agreement(id: "A-1") { history(action: "re-activate") { items { id } } } }',
      '{ agreements(state: expired) { items { id } } }',
    ]) {
      const res = await run(source);
      expect(res.data, source).toBeUndefined();
      expect(res.errors?.[0]?.message, source).toMatch(/"(ActionRecordAction|AgreementState)"/);
    }
    expect(calls).toEqual([]);
  });
});

describe('graphqlEnumValues argument checks', () => {
  it.each([
    ['a number', 5],
    ['undefined', undefined],
    ['an array holding a number', ['ok', 3]],
  ])('refuses %s with a coded TypeError naming "values"', (_what, values) => {
    const run = () => graphqlEnumValues(values as unknown as readonly string[]);
    expect(run).toThrow(/graphqlEnumValues: "values" must be an array of strings/);
    expect(run).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        factory: 'graphqlEnumValues',
        option: 'values',
      }),
    );
  });
});
