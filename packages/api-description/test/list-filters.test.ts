import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { enumFilterValues, type JsonSchema, openApiDocument } from '../src/index.js';
import { exampleApi } from './fixtures.js';

describe('enumFilterValues', () => {
  it('gives each filter on an enum field its values, and leaves free-text filters out', () => {
    const card = exampleApi().resources[0]!;
    const list = card.list!;
    expect(enumFilterValues(list.summary, ['state', 'payer_id'])).toEqual({
      state: ['ok', 'expired'],
    });
  });

  it('reads const fields, nullable enums and unions of enums as query strings', () => {
    const items = z.object({
      kind: z.literal('refund'),
      level: z.enum(['low', 'high']).nullable(),
      code: z.union([z.enum(['A', 'B']), z.enum(['B', 'C'])]),
      count: z.union([z.literal(1), z.literal(2)]),
      note: z.union([z.enum(['x']), z.string()]),
    });
    const schema = z.toJSONSchema(items) as Record<string, unknown>;
    expect(enumFilterValues(schema, ['kind', 'level', 'code', 'count', 'note'])).toEqual({
      kind: ['refund'],
      level: ['low', 'high'],
      code: ['A', 'B', 'C'],
      count: ['1', '2'],
    });
  });

  it('is what the document lists for each enum filter', () => {
    const api = exampleApi();
    const paths = openApiDocument(api).paths as Record<
      string,
      { get: { parameters: { name?: string; schema?: unknown }[] } }
    >;
    const list = api.resources[0]!.list!;
    const parameters = paths['/v1/vault/credit-cards']!.get.parameters;
    for (const [field, values] of Object.entries(enumFilterValues(list.summary, list.filterable))) {
      expect(parameters.find((p) => p.name === field)?.schema).toEqual({
        type: 'string',
        enum: values,
      });
    }
  });
});

describe('enumFilterValues argument checks', () => {
  it.each([
    ['items', () => enumFilterValues(undefined as unknown as JsonSchema, ['state'])],
    ['items', () => enumFilterValues(null as unknown as JsonSchema, ['state'])],
    ['filterable', () => enumFilterValues({ type: 'object' }, undefined as unknown as string[])],
    ['filterable', () => enumFilterValues({ type: 'object' }, [3] as unknown as string[])],
  ])('refuses a wrong-typed %s with a coded TypeError naming it', (option, run) => {
    expect(run).toThrow(new RegExp(`enumFilterValues: "${option}" must be`));
    expect(run).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_INVALID_OPTION',
        factory: 'enumFilterValues',
        option,
      }),
    );
  });
});
