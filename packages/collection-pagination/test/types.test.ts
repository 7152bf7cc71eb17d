import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  type CollectionQuery,
  type DataSource,
  paginate,
  type SchemaLike,
  searchCollection,
} from '../src/index.js';

describe('types', () => {
  it('puts collectionQuery on Node and Express requests', () => {
    expectTypeOf<IncomingMessage['collectionQuery']>().toEqualTypeOf<CollectionQuery | undefined>();
    expectTypeOf<Request['collectionQuery']>().toEqualTypeOf<CollectionQuery | undefined>();
  });

  it('accepts a zod schema as search criteria and infers its output', () => {
    const schema = z.object({ status: z.string().optional() });
    expectTypeOf(schema).toExtend<SchemaLike<{ status?: string | undefined }>>();
    searchCollection({
      criteria: schema,
      source: (criteria) => {
        expectTypeOf(criteria).toEqualTypeOf<{ status?: string | undefined }>();
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
});
