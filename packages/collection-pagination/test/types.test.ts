import { get, type IncomingMessage } from 'node:http';
import type { Request } from 'express';
import * as v from 'valibot';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type CollectionQuery,
  type DataSource,
  getCollectionQuery,
  type KeysetDataSource,
  memoryDataSource,
  paginate,
  type StandardSchemaV1,
  searchCollection,
} from '../src/index.js';

// Compile-time checks: the root `tsc` reads the tests.
describe('types', () => {
  it('puts collectionQuery on Express requests only, not on every IncomingMessage', () => {
    expectTypeOf<Request['collectionQuery']>().toEqualTypeOf<CollectionQuery | undefined>();
    expectTypeOf<IncomingMessage>().not.toHaveProperty('collectionQuery');
    // An HTTP client's response is an IncomingMessage too: it has no list parameters.
    const typeCheckOnly = () =>
      get('http://127.0.0.1:1/', (res) => {
        // @ts-expect-error collectionQuery is not a property of a client response
        res.collectionQuery;
      });
    expectTypeOf(typeCheckOnly).toBeFunction();
  });

  it('reads the list parameters of a node:http request with getCollectionQuery', () => {
    expectTypeOf(getCollectionQuery).parameter(0).toEqualTypeOf<IncomingMessage>();
    expectTypeOf(getCollectionQuery).returns.toEqualTypeOf<CollectionQuery | undefined>();
  });

  it('accepts zod and valibot schemas as search criteria and infers their output', () => {
    const zodCriteria = z.object({ status: z.string().optional() });
    expectTypeOf(zodCriteria).toExtend<
      StandardSchemaV1<unknown, { status?: string | undefined }>
    >();
    searchCollection({
      criteria: zodCriteria,
      source: (criteria) => {
        expectTypeOf(criteria).toEqualTypeOf<{ status?: string | undefined }>();
        return { count: () => 0, fetchPage: () => [] };
      },
    });
    searchCollection({
      criteria: v.object({ status: v.optional(v.picklist(['ACTIVE', 'SUSPENDED'])) }),
      source: (criteria) => {
        expectTypeOf(criteria).toEqualTypeOf<{ status?: 'ACTIVE' | 'SUSPENDED' | undefined }>();
        return { count: () => 0, fetchPage: () => [] };
      },
    });
  });

  it('types the middleware against node:http so it needs no Express types', () => {
    const middleware = paginate({
      source: { count: () => 0, fetchPage: () => [] } as DataSource<number>,
    });
    expectTypeOf(middleware).parameter(0).toEqualTypeOf<IncomingMessage>();
  });

  it('gives a keyset source from memoryDataSource only with a key', () => {
    const records = [{ id: 'a', rank: 1 }];
    expectTypeOf(memoryDataSource(records, { key: 'id' })).toEqualTypeOf<
      KeysetDataSource<{ id: string; rank: number }>
    >();
    expectTypeOf(memoryDataSource(records)).toEqualTypeOf<
      DataSource<{ id: string; rank: number }>
    >();
  });
});
