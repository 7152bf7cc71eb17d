import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CollectionSpec, memoryDataSource, parseCollectionQuery } from '../src/index.js';

// Walking a keyset source page by page with `fetchAfter` and `positionOf` visits every matching
// record exactly once and in the same order as `fetchPage`, whatever the ties in the sort.
const SEED = Number(process.env.FAST_CHECK_SEED ?? 20261123);
const RUNS = Number(process.env.FAST_CHECK_RUNS ?? 300);

interface Row {
  id: number;
  rank: number | null;
  group: string;
}

const spec: CollectionSpec = { sortable: ['rank'], filterable: ['group'], maxPageSize: 50 };

const rows = fc
  .uniqueArray(
    fc.record({
      id: fc.integer({ min: 1, max: 10_000 }),
      // Few distinct values and nulls: most of the order comes from the tie-breaker.
      rank: fc.option(fc.integer({ min: 0, max: 3 }), { nil: null, freq: 5 }),
      group: fc.constantFrom('a', 'b'),
    }),
    { selector: (row) => row.id, maxLength: 60 },
  )
  .map((list) => list as Row[]);

describe('memoryDataSource keyset paging', () => {
  it('visits every record once, in fetchPage order, under any sort, filter and page size', async () => {
    await fc.assert(
      fc.asyncProperty(
        rows,
        fc.integer({ min: 1, max: 7 }),
        fc.constantFrom('', 'sort_by=rank', 'sort_by=rank&sort_order=desc'),
        fc.constantFrom('', 'group=a'),
        async (records, pageSize, sort, filter) => {
          const source = memoryDataSource(records, { key: 'id' });
          const search = [sort, filter, `page_size=${pageSize}`].filter(Boolean).join('&');
          const query = parseCollectionQuery(search, spec);
          const everything = await source.fetchPage({ ...query, limit: records.length + 1 });
          const seen: Row[] = [];
          let after: ReturnType<typeof source.positionOf> | undefined;
          for (let hop = 0; hop <= records.length; hop++) {
            const page = await source.fetchAfter(query, after);
            seen.push(...page);
            if (page.length < pageSize) break;
            after = source.positionOf(page[page.length - 1]!, query);
          }
          expect(seen.map((row) => row.id)).toEqual(everything.map((row) => row.id));
          expect(seen.length).toBe(await source.count(query));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });
});
