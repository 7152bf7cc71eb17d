import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  compositeOperation,
  computedResource,
  resourceOrientedOperation,
  subResourceActions,
  transientOperation,
} from '../src/index.js';

interface Account {
  id: string;
  state: string;
}

describe('types', () => {
  it('types each action body from its schema', () => {
    subResourceActions({
      resource: '/accounts/:id',
      load: (): Account | undefined => undefined,
      represent: (account) => account,
      state: (account) => account.state,
      actions: {
        suspend: {
          body: z.object({ note: z.string().optional() }),
          available: () => true,
          perform: ({ body, resource }) => {
            expectTypeOf(body).toEqualTypeOf<{ note?: string | undefined }>();
            expectTypeOf(resource).toEqualTypeOf<Account>();
            return false;
          },
        },
        close: {
          body: z.object({ reason: z.enum(['fraud', 'request']) }),
          available: () => true,
          perform: ({ body }) => {
            expectTypeOf(body).toEqualTypeOf<{ reason: 'fraud' | 'request' }>();
            return true;
          },
        },
      },
    });
  });

  it('types the bodies, queries and sources of the other kinds', () => {
    resourceOrientedOperation({
      path: '/risk/decisions',
      body: z.object({ code: z.string() }),
      create: ({ body }) => {
        expectTypeOf(body).toEqualTypeOf<{ code: string }>();
        return { id: '1', code: body.code };
      },
      load: () => undefined,
      represent: (record) => {
        expectTypeOf(record).toEqualTypeOf<{ id: string; code: string }>();
        return { ...record };
      },
    });
    compositeOperation({
      resource: '/accounts/:id',
      name: 'refund',
      load: (): Account | undefined => undefined,
      representSource: (account) => account,
      body: z.object({ amount: z.number() }),
      create: ({ source, body }) => {
        expectTypeOf(source).toEqualTypeOf<Account>();
        expectTypeOf(body).toEqualTypeOf<{ amount: number }>();
        return { id: 'R-1', account: source.id };
      },
      created: { path: '/refunds', load: () => undefined },
      represent: (record) => ({ ...record }),
      related: (record) => [{ rel: 'account', path: `/accounts/${record.account}` }],
    });
    transientOperation({
      path: '/risk/evaluate',
      body: z.object({ code: z.string() }),
      compute: ({ body }) => {
        expectTypeOf(body).toEqualTypeOf<{ code: string }>();
        return {};
      },
    });
    computedResource({
      path: '/summary',
      parameters: ['limit'],
      query: z.object({ limit: z.coerce.number() }),
      compute: ({ query }) => {
        expectTypeOf(query).toEqualTypeOf<{ limit: number }>();
        return {};
      },
    });
  });
});
