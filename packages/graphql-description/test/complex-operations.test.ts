/**
 * Sub-collections, searches, actions and complex operations of a description, as GraphQL fields.
 */
import { type ApiDescriptionInit, describeApi } from '@resourceful/api-description';
import { ApiError } from '@resourceful/error-envelope';
import { type ExecutionResult, graphql, printSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type CollectionPage,
  type GraphqlSchemaOptions,
  graphqlSchema,
  type ListArguments,
  type OperationCall,
  type PageArguments,
} from '../src/index.js';

const link = z.object({ href: z.string(), rel: z.string(), method: z.string() });
const envelope = {
  id: z.string(),
  create_time: z.iso.datetime(),
  update_time: z.iso.datetime(),
  links: z.array(link),
};
const Tag = z.object({ name: z.string(), colour: z.enum(['red', 'green']).optional() });
const Agreement = z.object({
  ...envelope,
  state: z.enum(['ACTIVE', 'SUSPENDED']),
  tags: z.array(Tag),
});
const Refund = z.object({ ...envelope, amount: z.string() });
const Note = z.object({ note: z.string().max(10).optional() }).strict();
const Criteria = z.object({ state: z.enum(['ACTIVE', 'SUSPENDED']).optional() }).strict();
const Summary = z.object({ currency: z.string(), count: z.number().int() });
const SummaryQuery = z
  .object({ currency: z.string().length(3), since: z.iso.datetime().optional() })
  .strict();

const init: ApiDescriptionInit = {
  title: 'Agreements',
  version: '1.0.0',
  pathVersion: 'v1',
  resources: [
    {
      name: 'Agreement',
      path: '/billing/agreements',
      summary: 'An agreement.',
      representation: Agreement,
      operations: { read: true },
      actions: [{ name: 're-activate', summary: 'Re-activate it.', body: Note }],
      subCollections: [
        {
          name: 'refunds',
          summary: 'Its refunds.',
          items: 'Refund',
          list: { sortable: ['create_time'], timeSelectable: ['create_time'] },
        },
        {
          name: 'tags',
          summary: 'Its tags, paged.',
          items: { name: 'Tag', schema: Tag },
          list: { filterable: ['colour'] },
        },
      ],
      search: { path: '/billing/search-agreements', summary: 'Search.', criteria: Criteria },
    },
    {
      name: 'Refund',
      path: '/billing/refunds',
      summary: 'A refund.',
      representation: Refund,
      operations: { read: true },
    },
  ],
  operations: [
    {
      operationId: 'refundAgreement',
      method: 'POST',
      path: '/billing/agreements/{agreement_id}/refund',
      summary: 'Refund an agreement.',
      kind: 'composite',
      body: z.object({ amount: z.string().regex(/^\d+\.\d\d$/) }),
      response: Refund,
      creates: 'Refund',
    },
    {
      operationId: 'checkCode',
      method: 'POST',
      path: '/billing/check',
      summary: 'Check a code.',
      kind: 'transient',
      body: z.object({ code: z.string().min(1) }),
      response: z.object({ valid: z.boolean() }),
      responseName: 'CodeCheck',
    },
    {
      operationId: 'refundSummary',
      method: 'GET',
      path: '/billing/refund-summary',
      summary: 'Totals.',
      kind: 'computed',
      query: SummaryQuery,
      response: Summary,
      responseName: 'RefundSummary',
    },
  ],
};
const api = describeApi(init);

const TIME = '2026-11-23T10:00:00Z';
const links = (path: string) => [
  { href: `https://api.test/v1${path}`, rel: 'self', method: 'GET' },
];
const agreement = {
  id: 'A-1',
  state: 'SUSPENDED',
  tags: [{ name: 'gold', colour: 'red' }, { name: 'new' }],
  create_time: TIME,
  update_time: TIME,
  links: links('/billing/agreements/A-1'),
};

function page(items: readonly unknown[]): CollectionPage {
  return { items, links: [] };
}

function setup(mutations: string[] = []) {
  const calls: { what: string; args: unknown }[] = [];
  const refunds: Record<string, unknown>[] = [];
  const options: GraphqlSchemaOptions<{ user: string }> = {
    resolvers: {
      Agreement: {
        read: (id) => (id === 'A-1' ? agreement : undefined),
        subCollections: {
          refunds: (parent, args: ListArguments) => {
            calls.push({ what: 'refunds', args: { parent, args } });
            return page(refunds);
          },
          tags: (parent, args: ListArguments) => {
            calls.push({ what: 'tags', args });
            const tags = (parent as typeof agreement).tags;
            return page(
              args.filters.colour ? tags.filter((t) => t.colour === args.filters.colour) : tags,
            );
          },
        },
        search: (criteria, args: PageArguments) => {
          calls.push({ what: 'search', args: { criteria, args } });
          return page([agreement]);
        },
        actions: {
          're-activate': (id, input, context) => {
            // As a REST app's store refuses it, naming its own path parameter.
            if (id === 'A-404') {
              throw ApiError.notFound('No such agreement.', { target: 'agreement_id' });
            }
            calls.push({ what: 're-activate', args: { id, input, context } });
            return { ...agreement, state: 'ACTIVE' };
          },
        },
      },
      Refund: { read: (id) => refunds.find((r) => r.id === id) },
    },
    operations: {
      refundAgreement: ({ params, input }: OperationCall) => {
        const refund = {
          id: `R-${refunds.length + 1}`,
          amount: (input as { amount: string }).amount,
          create_time: TIME,
          update_time: TIME,
          links: links(`/billing/refunds/R-${refunds.length + 1}`),
          agreement: params.agreement_id,
        };
        refunds.push(refund);
        return refund;
      },
      checkCode: ({ input }: OperationCall) => ({
        valid: (input as { code: string }).code === 'ok',
      }),
      refundSummary: ({ input }: OperationCall) => {
        calls.push({ what: 'summary', args: input });
        return { currency: (input as { currency: string }).currency, count: refunds.length };
      },
    },
    mutations,
  };
  const schema = graphqlSchema(api, options);
  const run = (source: string, variableValues?: Record<string, unknown>) =>
    graphql({
      schema,
      source,
      variableValues,
      contextValue: { user: 'u1' },
    }) as Promise<ExecutionResult>;
  return { schema, run, calls, refunds, options };
}

describe('graphqlSchema: sub-collections', () => {
  it('are fields of their resource’s type, with the list’s paging, sort and time arguments', () => {
    const sdl = printSchema(setup().schema);
    expect(sdl).toContain(
      'refunds(page: Int! = 1, page_size: Int! = 10, total_required: Boolean! = false, sort_by: AgreementRefundsSortField, sort_order: SortOrder, create_time_after: DateTime, create_time_before: DateTime): RefundCollection!',
    );
    expect(sdl).toMatch(/type RefundCollection \{\n {2}items: \[Refund!\]!/);
  });

  it('hands the resolver the parent resource and the arguments', async () => {
    const { run, calls } = setup();
    const res = await run(
      '{ agreement(id: "A-1") { refunds(page: 2, page_size: 5, sort_by: create_time) { items { id } } } }',
    );
    expect(res).toEqual({ data: { agreement: { refunds: { items: [] } } } });
    expect(calls).toEqual([
      {
        what: 'refunds',
        args: {
          parent: agreement,
          args: {
            page: 2,
            page_size: 5,
            total_required: false,
            sort_by: 'create_time',
            filters: {},
            times: {},
          },
        },
      },
    ]);
  });

  it('name a field `{name}_page` when the representation has a field of that name', async () => {
    const { run, schema } = setup();
    expect(printSchema(schema)).toContain('tags: [AgreementTags!]!');
    const res = await run(
      '{ agreement(id: "A-1") { tags { name } tags_page(colour: red) { items { name colour } } } }',
    );
    expect(res).toEqual({
      data: {
        agreement: {
          tags: [{ name: 'gold' }, { name: 'new' }],
          tags_page: { items: [{ name: 'gold', colour: 'red' }] },
        },
      },
    });
  });

  it('require a resolver per described sub-collection', () => {
    const { options } = setup();
    const Agreement = options.resolvers.Agreement;
    expect(() =>
      graphqlSchema(api, {
        ...options,
        resolvers: {
          ...options.resolvers,
          Agreement: { ...Agreement, subCollections: { refunds: () => page([]) } },
        },
      }),
    ).toThrow(/resolvers\.Agreement\.subCollections\["tags"\] must be a function/);
  });
});

describe('graphqlSchema: search', () => {
  it('is a query field taking the criteria as an input type and paging', async () => {
    const { run, calls, schema } = setup();
    expect(printSchema(schema)).toContain(
      'search_agreements(criteria: AgreementSearchCriteria, page: Int! = 1, page_size: Int! = 10, total_required: Boolean! = false): AgreementCollection!',
    );
    const res = await run(
      '{ search_agreements(criteria: { state: SUSPENDED }, page_size: 3) { items { id state } } }',
    );
    expect(res).toEqual({
      data: { search_agreements: { items: [{ id: 'A-1', state: 'SUSPENDED' }] } },
    });
    expect(calls).toEqual([
      {
        what: 'search',
        args: {
          criteria: { state: 'SUSPENDED' },
          args: { page: 1, page_size: 3, total_required: false },
        },
      },
    ]);
  });

  it('runs without criteria as a search for everything', async () => {
    const { run, calls } = setup();
    await run('{ search_agreements { items { id } } }');
    expect(calls[0]?.args).toMatchObject({ criteria: {} });
  });
});

describe('graphqlSchema: complex operations', () => {
  it('makes a computed resource a query field with its query parameters as arguments', async () => {
    const { run, calls, schema } = setup();
    expect(printSchema(schema)).toContain(
      'refund_summary(currency: String!, since: DateTime): RefundSummary!',
    );
    const res = await run('{ refund_summary(currency: "EUR") { currency count } }');
    expect(res).toEqual({ data: { refund_summary: { currency: 'EUR', count: 0 } } });
    expect(calls).toEqual([{ what: 'summary', args: { currency: 'EUR' } }]);
  });

  it('refuses query parameters the description refuses, naming the parameter', async () => {
    const { run } = setup();
    const res = await run('{ refund_summary(currency: "EURO") { count } }');
    expect(res.errors?.[0]?.extensions).toEqual({
      code: 'VALIDATION_ERROR',
      target: 'currency',
      details: [expect.objectContaining({ target: 'currency' })],
      http: { status: 400 },
    });
  });

  it('makes a transient operation a query field: it changes nothing', async () => {
    const { run, schema } = setup();
    expect(printSchema(schema)).toContain('check_code(input: CheckCodeInput!): CodeCheck!');
    expect(await run('{ check_code(input: { code: "ok" }) { valid } }')).toEqual({
      data: { check_code: { valid: true } },
    });
    const bad = await run('{ check_code(input: { code: "" }) { valid } }');
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ target: 'input.code' })],
    });
  });

  it('offers a composite operation as a mutation only where the service opts in', () => {
    expect(printSchema(setup().schema)).not.toContain('refund_agreement');
    expect(printSchema(setup(['refundAgreement']).schema)).toContain(
      'refund_agreement(agreement_id: ID!, input: RefundAgreementInput!): Refund!',
    );
  });

  it('runs an opted-in operation with its path parameters and validated body', async () => {
    const { run, refunds } = setup(['refundAgreement']);
    const res = await run(
      'mutation { refund_agreement(agreement_id: "A-1", input: { amount: "1.50" }) { id amount } }',
    );
    expect(res).toEqual({ data: { refund_agreement: { id: 'R-1', amount: '1.50' } } });
    expect(refunds[0]).toMatchObject({ agreement: 'A-1' });
    const bad = await run(
      'mutation { refund_agreement(agreement_id: "A-1", input: { amount: "1.5" }) { id } }',
    );
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR' });
    expect(refunds).toHaveLength(1);
  });

  it('offers an action as a mutation by its operation id, body validated', async () => {
    const { run, calls, schema } = setup(['reActivateAgreement']);
    expect(printSchema(schema)).toContain(
      're_activate_agreement(id: ID!, input: ReActivateAgreementInput): Agreement!',
    );
    const res = await run(
      'mutation { re_activate_agreement(id: "A-1", input: { note: "back" }) { id state } }',
    );
    expect(res).toEqual({ data: { re_activate_agreement: { id: 'A-1', state: 'ACTIVE' } } });
    expect(calls).toEqual([
      {
        what: 're-activate',
        args: { id: 'A-1', input: { note: 'back' }, context: { user: 'u1' } },
      },
    ]);
    const bad = await run(
      'mutation { re_activate_agreement(id: "A-1", input: { note: "far too long" }) { id } }',
    );
    expect(bad.errors?.[0]?.extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
      details: [expect.objectContaining({ target: 'input.note' })],
    });
    expect(calls).toHaveLength(1);
  });

  it('names the id argument the client sent as the target of an action’s 404', async () => {
    const { run } = setup(['reActivateAgreement']);
    for (const input of ['', ', input: { note: "back" }']) {
      const res = await run(`mutation { re_activate_agreement(id: "A-404"${input}) { id } }`);
      const refusal = res.errors?.[0]?.originalError;
      expect(refusal).toBeInstanceOf(ApiError);
      expect(refusal).toMatchObject({ status: 404, code: 'NOT_FOUND', target: 'id' });
    }
  });

  it('refuses to make a query field of a computed or transient operation a mutation', () => {
    expect(() => setup(['checkCode'])).toThrow(/a transient operation: it changes nothing/);
  });

  it('requires a resolver per described operation, and knows no others', () => {
    const { options } = setup();
    const { checkCode: _left, ...rest } = options.operations ?? {};
    expect(() => graphqlSchema(api, { ...options, operations: rest })).toThrow(
      /operations\.checkCode must be a function/,
    );
    expect(() =>
      graphqlSchema(api, { ...options, operations: { ...options.operations, nope: () => 1 } }),
    ).toThrow(/operations name "nope", which is not a described operation/);
  });

  it('refuses two described things that would share a field name', () => {
    const clash = describeApi({
      ...init,
      operations: [
        {
          operationId: 'searchAgreements',
          method: 'GET',
          path: '/billing/agreement-search',
          summary: 'Also a search.',
          kind: 'computed',
          response: Summary,
        },
      ],
    });
    const { options } = setup();
    expect(() =>
      graphqlSchema(clash, {
        resolvers: options.resolvers,
        operations: { searchAgreements: () => ({}) },
      }),
    ).toThrow(/two fields would be named "search_agreements"/);
  });

  it('requires a resolver for an opted-in action', () => {
    const { options } = setup();
    expect(() =>
      graphqlSchema(api, {
        ...options,
        resolvers: {
          ...options.resolvers,
          Agreement: { ...options.resolvers.Agreement, actions: {} },
        },
        mutations: ['reActivateAgreement'],
      }),
    ).toThrow(/resolvers\.Agreement\.actions\["re-activate"\] must be a function/);
  });
});
