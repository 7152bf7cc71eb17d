import { describe, expect, it } from 'vitest';
import { type CollectionSpec, memoryDataSource, parseCollectionQuery } from '../src/index.js';

interface Card {
  id: string;
  state: string;
  expire_year: number | null;
  last_name?: string;
  create_time: string | Date;
}

const records: Card[] = [
  {
    id: 'c1',
    state: 'ok',
    expire_year: 2027,
    last_name: 'Zed',
    create_time: '2024-01-01T00:00:00Z',
  },
  {
    id: 'c2',
    state: 'expired',
    expire_year: 2020,
    last_name: 'Adams',
    create_time: '2024-02-01T00:00:00Z',
  },
  { id: 'c3', state: 'ok', expire_year: null, create_time: new Date('2024-03-01T00:00:00Z') },
  {
    id: 'c4',
    state: 'ok',
    expire_year: 2025,
    last_name: 'Adams',
    create_time: '2024-04-01T00:00:00+02:00',
  },
  { id: 'c5', state: 'ok', expire_year: 2030, last_name: 'Moss', create_time: 'not a date' },
];

const spec: CollectionSpec = {
  sortable: ['expire_year', 'last_name', 'create_time'],
  filterable: ['state', 'expire_year'],
  timeSelectable: ['create_time'],
};

async function page(search: string, source = memoryDataSource(records)) {
  const query = parseCollectionQuery(search, spec);
  return {
    ids: (await source.fetchPage(query)).map((card) => card.id),
    count: await source.count(query),
  };
}

describe('memoryDataSource', () => {
  it('slices the records in their order without sort or filter', async () => {
    expect(await page('page=2&page_size=2')).toEqual({ ids: ['c3', 'c4'], count: 5 });
  });

  it('filters by the string form of a value', async () => {
    expect(await page('state=ok')).toEqual({ ids: ['c1', 'c3', 'c4', 'c5'], count: 4 });
    expect(await page('expire_year=2020')).toEqual({ ids: ['c2'], count: 1 });
  });

  it('sorts numbers numerically with missing values last, ties in original order', async () => {
    expect((await page('sort_by=expire_year')).ids).toEqual(['c2', 'c4', 'c1', 'c5', 'c3']);
    expect((await page('sort_by=expire_year&sort_order=desc')).ids).toEqual([
      'c3',
      'c5',
      'c1',
      'c4',
      'c2',
    ]);
    expect((await page('sort_by=last_name')).ids).toEqual(['c2', 'c4', 'c5', 'c1', 'c3']);
  });

  it('selects by time on Date values and RFC 3339 strings, skipping unreadable ones', async () => {
    expect(await page('create_time_after=2024-01-01T00:00:00Z')).toEqual({
      ids: ['c2', 'c3', 'c4'],
      count: 3,
    });
    expect(await page('start_time=2024-01-01T00:00:00Z&end_time=2024-03-01T00:00:00Z')).toEqual({
      ids: ['c1', 'c2'],
      count: 2,
    });
    expect((await page('create_time_before=2024-03-31T21:00:00Z')).ids).toEqual(['c1', 'c2', 'c3']);
    expect((await page('create_time_before=2024-03-31T23:00:00Z')).ids).toEqual([
      'c1',
      'c2',
      'c3',
      'c4',
    ]);
  });

  it('gives an empty page past the end', async () => {
    expect(await page('page=9')).toEqual({ ids: [], count: 5 });
  });

  it('reads a live store through a function, each call', async () => {
    const store = new Map<string, Card>();
    const source = memoryDataSource(() => store.values());
    expect((await page('', source)).count).toBe(0);
    store.set('c1', records[0]!);
    expect(await page('', source)).toEqual({ ids: ['c1'], count: 1 });
  });

  it('reads properties through get', async () => {
    const source = memoryDataSource<{ data: Card }>(
      records.map((data) => ({ data })),
      { get: (item, property) => item.data[property as keyof Card] },
    );
    const query = parseCollectionQuery('state=expired', spec);
    expect((await source.fetchPage(query)).map((item) => item.data.id)).toEqual(['c2']);
  });

  it('never reads inherited properties', async () => {
    const source = memoryDataSource([Object.create({ state: 'ok' }) as Card]);
    expect(await source.count(parseCollectionQuery('state=ok', spec))).toBe(0);
  });

  it('does not reorder the array it was given', async () => {
    const copy = [...records];
    await page('sort_by=last_name&sort_order=desc', memoryDataSource(copy));
    expect(copy).toEqual(records);
  });

  it('refuses records that are neither an array nor a function', () => {
    expect(() => memoryDataSource('nope' as unknown as Card[])).toThrow(TypeError);
  });
});
