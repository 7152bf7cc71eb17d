import {
  type CollectionQuery,
  type CollectionSpec,
  memoryDataSource,
  parseCollectionQuery,
} from '@resourceful/collection-pagination';
import { ApiError } from '@resourceful/error-envelope';
import {
  hasPostgresServer,
  type PostgresServer,
  startPostgresServer,
} from '@resourceful/test-support';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PgDataSourceOptions, pgDataSource } from '../src/index.js';
import { type Card, cards, columns, createCards } from './fixtures.js';

const SEED = Number(process.env.FAST_CHECK_SEED ?? 20261123);
const RUNS = Number(process.env.FAST_CHECK_RUNS ?? 60);

const spec: CollectionSpec = {
  sortable: ['create_time', 'last_name', 'expire_year'],
  filterable: ['payer_id', 'state', 'expire_year'],
  timeSelectable: ['create_time'],
  maxPageSize: 50,
};

describe.skipIf(!hasPostgresServer())('pgDataSource against PostgreSQL', () => {
  let server: PostgresServer;
  let pool: pg.Pool;

  beforeAll(async () => {
    server = await startPostgresServer();
    pool = new pg.Pool({ connectionString: server.url, max: 4 });
    // node-postgres emits errors of idle clients on the pool (the server's shutdown at the end).
    pool.on('error', () => {});
    await createCards(pool);
  });

  afterAll(async () => {
    await pool?.end();
    await server?.close();
  });

  const source = () => pgDataSource<Card>({ pool, table: 'cards', key: 'id', columns });
  // The same records in memory: in the C locale, both sources order alike.
  const memory = memoryDataSource(cards, { key: 'id' });
  const ids = (rows: readonly Card[]) => rows.map((row) => row.id);

  async function both(search: string) {
    const query = parseCollectionQuery(search, spec);
    return {
      pg: { ids: ids(await source().fetchPage(query)), count: await source().count(query) },
      memory: { ids: ids(await memory.fetchPage(query)), count: await memory.count(query) },
    };
  }

  it.each([
    'page_size=7',
    'page=3&page_size=7&sort_by=create_time',
    'sort_by=create_time&sort_order=desc&page_size=20',
    'sort_by=last_name&page_size=50',
    'sort_by=last_name&sort_order=desc&page_size=50&page=2',
    'state=expired&payer_id=P-1',
    'expire_year=2026&sort_by=expire_year',
    'start_time=2024-01-02T00:00:00Z&end_time=2024-01-04T00:00:00Z&page_size=50',
    'create_time_after=2024-01-05T00:00:00Z&page_size=50',
  ])('counts and pages as the in-memory source does: %s', async (search) => {
    const { pg: fromPg, memory: fromMemory } = await both(search);
    expect(fromPg).toEqual(fromMemory);
    expect(fromPg.ids.length).toBeGreaterThan(0);
  });

  it('walks every record once by keyset, in offset order, whatever the ties and NULLs', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.constantFrom('', 'sort_by=create_time', 'sort_by=last_name', 'sort_by=expire_year'),
        fc.constantFrom('asc', 'desc'),
        fc.constantFrom('', 'state=ok', 'payer_id=P-2&create_time_after=2024-01-02T00:00:00Z'),
        async (pageSize, sort, order, filter) => {
          const search = [
            sort,
            sort === '' ? '' : `sort_order=${order}`,
            filter,
            `page_size=${pageSize}`,
          ]
            .filter(Boolean)
            .join('&');
          const query: CollectionQuery = parseCollectionQuery(search, spec);
          const data = source();
          const seen: string[] = [];
          let after: ReturnType<typeof data.positionOf> | undefined;
          for (let hop = 0; hop <= cards.length; hop++) {
            const rows = await data.fetchAfter(query, after);
            seen.push(...ids(rows));
            if (rows.length < pageSize) break;
            after = data.positionOf(rows[rows.length - 1]!, query);
          }
          const everything = await memory.fetchPage({ ...query, limit: cards.length });
          expect(seen).toEqual(ids(everything));
        },
      ),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('pages by keyset on microsecond timestamps that differ below the millisecond', async () => {
    await pool.query(
      `CREATE TABLE micro AS SELECT i AS id, timestamptz '2024-01-01' + (i % 4) * interval '1 microsecond' AS create_time
         FROM generate_series(1, 30) AS i`,
    );
    const data = pgDataSource<{ id: number; create_time: Date }>({
      pool,
      table: 'micro',
      key: 'id',
      columns: { create_time: 'create_time' },
    });
    for (const order of ['asc', 'desc']) {
      const query = parseCollectionQuery(`sort_by=create_time&sort_order=${order}&page_size=4`, {
        sortable: ['create_time'],
      });
      const seen: number[] = [];
      let after: ReturnType<typeof data.positionOf> | undefined;
      for (let hop = 0; hop < 30; hop++) {
        const rows = await data.fetchAfter(query, after);
        seen.push(...rows.map((row) => row.id));
        expect(rows.every((row) => !('__resourceful_position' in row))).toBe(true);
        if (rows.length < 4) break;
        after = data.positionOf(rows[rows.length - 1]!, query);
      }
      expect(seen).toHaveLength(30);
      expect(new Set(seen).size).toBe(30);
    }
  });

  it('binds a SQL-looking filter value: no match, and the table is still there', async () => {
    const query = parseCollectionQuery("state=x'; DROP TABLE cards; --", spec);
    expect(await source().fetchPage(query)).toEqual([]);
    expect(await source().count(query)).toBe(0);
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM cards');
    expect(rows[0].n).toBe(cards.length);
  });

  it('turns a value the column type cannot read into a 400 naming the filter', async () => {
    const query = parseCollectionQuery('state=ok&expire_year=soon', spec);
    await expect(source().fetchPage(query)).rejects.toMatchObject({
      status: 400,
      target: 'expire_year',
    });
    await expect(
      source().count(parseCollectionQuery('expire_year=99999999999', spec)),
    ).rejects.toMatchObject({
      status: 400,
      target: 'expire_year',
    });
  });

  // PostgreSQL text cannot hold U+0000, and its error (SQLSTATE 22021) quotes no value.
  it.each([
    ['state=ok&payer_id=P-%00', 'payer_id'],
    ['expire_year=2025&state=ok%00', 'state'],
  ])('names the filter holding a NUL character in its 400 (%s)', async (search, target) => {
    const query = parseCollectionQuery(search, spec);
    await expect(source().fetchPage(query)).rejects.toMatchObject({ status: 400, target });
    await expect(source().count(query)).rejects.toMatchObject({ status: 400, target });
  });

  it('refuses an offset past maxOffset with a 400 naming the position parameter', async () => {
    const data = pgDataSource<Card>({ pool, table: 'cards', key: 'id', columns, maxOffset: 100 });
    await expect(
      data.fetchPage(parseCollectionQuery('offset=101&limit=5', spec)),
    ).rejects.toMatchObject({
      status: 400,
      target: 'offset',
    });
    await expect(
      data.fetchPage(parseCollectionQuery('page=22&page_size=5', spec)),
    ).rejects.toMatchObject({
      status: 400,
      target: 'page',
    });
    expect(await data.fetchPage(parseCollectionQuery('offset=100&limit=5', spec))).toHaveLength(5);
  });

  it('reads a schema-qualified table and a quoted reserved-word column', async () => {
    await pool.query('CREATE SCHEMA IF NOT EXISTS vault');
    await pool.query(
      'CREATE TABLE IF NOT EXISTS vault."order" ("user" text PRIMARY KEY, "select" int)',
    );
    await pool.query(`INSERT INTO vault."order" VALUES ('a', 2), ('b', 1) ON CONFLICT DO NOTHING`);
    const data = pgDataSource<{ user: string }>({
      pool,
      table: 'vault.order',
      key: 'user',
      columns: { select: 'select' },
    });
    const query = parseCollectionQuery('sort_by=select', { sortable: ['select'] });
    expect((await data.fetchPage(query)).map((row) => row.user)).toEqual(['b', 'a']);
  });

  it('fails loudly (a server bug, not a client error) for a property not in columns, naming it', async () => {
    const data = pgDataSource<Card>({
      pool,
      table: 'cards',
      key: 'id',
      columns: { create_time: 'create_time' },
    });
    const calls: (() => unknown)[] = [
      () => data.fetchPage(parseCollectionQuery('state=ok', spec)),
      () => data.count(parseCollectionQuery('state=ok', spec)),
      () => data.fetchAfter(parseCollectionQuery('state=ok', spec), undefined),
    ];
    for (const run of calls) {
      const error = await Promise.resolve()
        .then(run)
        .then(
          () => undefined,
          (caught: unknown) => caught,
        );
      expect(error).toBeInstanceOf(TypeError);
      expect(error).not.toBeInstanceOf(ApiError);
      expect(error).toMatchObject({
        code: 'ERR_RESOURCEFUL_CONFLICTING_OPTIONS',
        factory: 'pgDataSource',
        option: 'columns',
      });
      expect((error as Error).message).toBe(
        'pgDataSource: the route sorts, filters or selects by time on "state", which "columns" of the source over table "cards" does not map; add "state" to "columns", or take it out of the route\'s sortable, filterable and timeSelectable.',
      );
    }
  });
});

describe('pgDataSource options', () => {
  const pool = { query: async () => ({ rows: [] }) };
  // Valid columns, so each case below is refused for its own fault.
  const validColumns = { state: 'state' };
  it.each([
    [
      'a table name with SQL in it',
      { table: 'cards; DROP TABLE cards', key: 'id', columns: validColumns },
    ],
    ['a quoted key', { table: 'cards', key: 'id"', columns: validColumns }],
    ['a column with a space', { table: 'cards', key: 'id', columns: { state: 'state x' } }],
    ['a three-part table name', { table: 'a.b.c', key: 'id', columns: validColumns }],
    ['columns as an array', { table: 'cards', key: 'id', columns: ['state'] }],
    [
      'a non-boolean nullable',
      { table: 'cards', key: 'id', columns: { s: { column: 's', nullable: 1 } } },
    ],
    ['a zero maxOffset', { table: 'cards', key: 'id', columns: validColumns, maxOffset: 0 }],
    ['an unknown option', { table: 'cards', key: 'id', columns: validColumns, limit: 1 }],
    ['empty columns', { table: 'cards', key: 'id', columns: {} }],
  ])('refuses %s at construction', (_, options) => {
    expect(() => pgDataSource({ pool, ...(options as Omit<PgDataSourceOptions, 'pool'>) })).toThrow(
      TypeError,
    );
  });

  it.each([
    ['an unknown option', { limit: 1 }, 'ERR_RESOURCEFUL_UNKNOWN_OPTION', 'limit'],
    [
      'an unknown member of a column',
      { columns: { state: { column: 'state', nulable: true } } },
      'ERR_RESOURCEFUL_UNKNOWN_OPTION',
      'columns.state.nulable',
    ],
    [
      'a property name no route can declare',
      { columns: JSON.parse('{"__proto__": "state"}') },
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'columns',
    ],
    [
      'a property named constructor',
      { columns: { constructor: 'state' } },
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'columns',
    ],
    [
      'a property with a dash',
      { columns: { 'payer-id': 'payer_id' } },
      'ERR_RESOURCEFUL_INVALID_OPTION',
      'columns',
    ],
    ['empty columns', { columns: {} }, 'ERR_RESOURCEFUL_INVALID_OPTION', 'columns'],
  ])('names %s with its code', (_, options, code, option) => {
    expect(() =>
      pgDataSource({
        pool,
        table: 'cards',
        key: 'id',
        columns: validColumns,
        ...(options as object),
      }),
    ).toThrow(expect.objectContaining({ code, option }));
  });

  it('says how to fix empty columns', () => {
    expect(() => pgDataSource({ pool, table: 'cards', key: 'id', columns: {} })).toThrow(
      'pgDataSource: "columns" must map at least one property to its column (every property the route declares sortable, filterable or time-selectable), got an empty object.',
    );
  });

  it('refuses a pool without query()', () => {
    expect(() =>
      pgDataSource({ pool: {} as never, table: 'cards', key: 'id', columns: validColumns }),
    ).toThrow(expect.objectContaining({ code: 'ERR_RESOURCEFUL_INVALID_OPTION', option: 'pool' }));
  });
});
