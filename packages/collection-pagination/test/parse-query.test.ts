import { ApiError } from '@resourceful/error-envelope';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CollectionSpec,
  DEFAULT_MAX_PAGE_SIZE,
  DEFAULT_PAGE_SIZE,
  parseCollectionQuery,
} from '../src/index.js';

const cards: CollectionSpec = {
  sortable: ['create_time', 'update_time', 'expire_year', 'last_name'],
  filterable: ['payer_id', 'state'],
  timeSelectable: ['create_time'],
};

/** The ApiError `parseCollectionQuery` throws, or a failure when it does not throw one. */
function rejection(input: string, spec: CollectionSpec = cards): ApiError {
  try {
    parseCollectionQuery(input, spec);
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be refused`);
}

function expectRefused(input: string, target: string, cause: string, spec: CollectionSpec = cards) {
  const error = rejection(input, spec);
  expect(error.status).toBe(400);
  expect(error.code).toBe('INVALID_REQUEST');
  expect(error.target).toBe(target);
  expect(error.innererror?.code).toBe(cause);
}

describe('parseCollectionQuery', () => {
  describe('without parameters', () => {
    it('gives page 1 of the default size, no sort, no filters, totals required', () => {
      expect(parseCollectionQuery('', cards)).toEqual({
        page: 1,
        pageSize: DEFAULT_PAGE_SIZE,
        offset: 0,
        limit: DEFAULT_PAGE_SIZE,
        sort: undefined,
        filters: {},
        time: [],
        totalRequired: true,
        paging: { position: 'page', size: 'page_size' },
      });
    });

    it('defaults to 10 a page and at most 100', () => {
      expect(DEFAULT_PAGE_SIZE).toBe(10);
      expect(DEFAULT_MAX_PAGE_SIZE).toBe(100);
    });

    it('applies the declared default sort', () => {
      const query = parseCollectionQuery('', {
        ...cards,
        defaultSort: { by: 'create_time', order: 'desc' },
      });
      expect(query.sort).toEqual({ by: 'create_time', order: 'desc' });
    });
  });

  describe('page / page_size', () => {
    it('reads page and page_size', () => {
      const query = parseCollectionQuery('?page=3&page_size=20', cards);
      expect(query).toMatchObject({ page: 3, pageSize: 20, offset: 40, limit: 20 });
      expect(query.paging).toEqual({ position: 'page', size: 'page_size' });
    });

    it('accepts page_size equal to the maximum', () => {
      expect(parseCollectionQuery('page_size=100', cards).pageSize).toBe(100);
    });

    it.each(['0', '-1', '1.5', 'abc', '+1', '1e3', '0x10', ' 1', '١', '99999999999999999999'])(
      'refuses page=%j',
      (value) => {
        expectRefused(`page=${encodeURIComponent(value)}`, 'page', 'INVALID_PAGE');
      },
    );

    it('refuses a page whose offset is not a safe integer', () => {
      expectRefused('page=9999999999999999&page_size=100', 'page', 'INVALID_PAGE');
    });

    it('names the largest page the page size allows when page is too large', () => {
      const largest = Math.floor(Number.MAX_SAFE_INTEGER / 100) + 1;
      expect(rejection('page=9999999999999999&page_size=100').message).toBe(
        `The query parameter "page" must be an integer from 1 to ${largest}.`,
      );
      expect(parseCollectionQuery(`page=${largest}&page_size=100`, cards).page).toBe(largest);
      expect(rejection('page=99999999999999999999').message).toContain('from 1 to ');
    });

    it.each(['0', '-5', '2.5', 'ten'])('refuses page_size=%j', (value) => {
      expectRefused(`page_size=${value}`, 'page_size', 'INVALID_PAGE_SIZE');
    });

    it('refuses a page_size over the maximum', () => {
      expectRefused('page_size=101', 'page_size', 'PAGE_SIZE_TOO_LARGE');
      expectRefused('page_size=5', 'page_size', 'PAGE_SIZE_TOO_LARGE', {
        maxPageSize: 4,
        defaultPageSize: 2,
      });
    });

    it('refuses an empty value', () => {
      expectRefused('page=', 'page', 'EMPTY_PARAMETER');
    });
  });

  describe('limit / offset / page_number', () => {
    it('reads limit and offset', () => {
      const query = parseCollectionQuery('limit=5&offset=12', cards);
      expect(query).toMatchObject({ page: 3, pageSize: 5, offset: 12, limit: 5 });
      expect(query.paging).toEqual({ position: 'offset', size: 'limit' });
    });

    it('links with offset when only limit is sent', () => {
      expect(parseCollectionQuery('limit=5', cards).paging).toEqual({
        position: 'offset',
        size: 'limit',
      });
    });

    it('reads page_number with page_size', () => {
      const query = parseCollectionQuery('page_number=2&page_size=7', cards);
      expect(query).toMatchObject({ page: 2, pageSize: 7, offset: 7 });
      expect(query.paging).toEqual({ position: 'page_number', size: 'page_size' });
    });

    it('reads page_number with limit', () => {
      expect(parseCollectionQuery('page_number=2&limit=7', cards).paging).toEqual({
        position: 'page_number',
        size: 'limit',
      });
    });

    it('accepts offset 0 and refuses a negative offset', () => {
      expect(parseCollectionQuery('offset=0', cards).offset).toBe(0);
      expectRefused('offset=-1', 'offset', 'INVALID_OFFSET');
    });

    it('names the bound when offset is a non-negative integer too large to use', () => {
      for (const offset of ['9999999999999999', '99999999999999999999']) {
        const error = rejection(`offset=${offset}`);
        expect(error.innererror?.code).toBe('INVALID_OFFSET');
        expect(error.message).toBe(
          `The query parameter "offset" must be an integer from 0 to ${Number.MAX_SAFE_INTEGER}.`,
        );
      }
      expect(parseCollectionQuery(`offset=${Number.MAX_SAFE_INTEGER}`, cards).offset).toBe(
        Number.MAX_SAFE_INTEGER,
      );
    });

    it('refuses page_number 0 and a limit over the maximum', () => {
      expectRefused('page_number=0', 'page_number', 'INVALID_PAGE');
      expectRefused('limit=1000', 'limit', 'PAGE_SIZE_TOO_LARGE');
    });

    it('reads sortby and order', () => {
      expect(parseCollectionQuery('sortby=last_name&order=desc&limit=3', cards).sort).toEqual({
        by: 'last_name',
        order: 'desc',
      });
    });

    it('refuses two sizes and two positions', () => {
      expectRefused('page_size=5&limit=5', 'limit', 'CONFLICTING_PARAMETERS');
      expectRefused('limit=5&page_size=5', 'page_size', 'CONFLICTING_PARAMETERS');
      expectRefused('offset=5&page_number=2', 'page_number', 'CONFLICTING_PARAMETERS');
    });
  });

  describe('mixing both conventions', () => {
    it.each([
      ['page=2&limit=5', 'limit'],
      ['limit=5&page=2', 'page'],
      ['page=2&offset=10', 'offset'],
      ['sort_by=last_name&order=asc', 'order'],
      ['sortby=last_name&sort_order=asc', 'sort_order'],
      ['page=1&sortby=last_name', 'sortby'],
      ['offset=0&sort_by=last_name', 'sort_by'],
      ['page_number=1&page=1', 'page'],
    ])('refuses %s naming %s', (input, target) => {
      expectRefused(input, target, 'MIXED_PAGING_CONVENTIONS');
    });

    it('lets page_size, filters and time selection go with either convention', () => {
      expect(
        parseCollectionQuery(
          'offset=5&limit=5&state=ok&create_time_after=2024-01-01T00:00:00Z',
          cards,
        ),
      ).toMatchObject({ offset: 5, filters: { state: 'ok' } });
      expect(
        parseCollectionQuery('page=2&page_size=5&state=ok&start_time=2024-01-01T00:00:00Z', cards),
      ).toMatchObject({
        page: 2,
        filters: { state: 'ok' },
      });
    });
  });

  describe('sorting', () => {
    it('sorts ascending unless sort_order says otherwise', () => {
      expect(parseCollectionQuery('sort_by=expire_year', cards).sort).toEqual({
        by: 'expire_year',
        order: 'asc',
      });
      expect(parseCollectionQuery('sort_by=expire_year&sort_order=desc', cards).sort).toEqual({
        by: 'expire_year',
        order: 'desc',
      });
    });

    it('refuses a property that is not declared sortable', () => {
      expectRefused('sort_by=number', 'sort_by', 'UNKNOWN_SORT_PROPERTY');
      expectRefused('sort_by=__proto__', 'sort_by', 'UNKNOWN_SORT_PROPERTY');
      expectRefused('sort_by=create_time', 'sort_by', 'UNKNOWN_SORT_PROPERTY', {});
    });

    it.each(['ASC', 'ascending', 'up', '1'])('refuses sort_order=%s', (value) => {
      expectRefused(`sort_by=last_name&sort_order=${value}`, 'sort_order', 'INVALID_SORT_ORDER');
    });

    it('applies sort_order alone to the default sort property', () => {
      const spec = { ...cards, defaultSort: { by: 'create_time' } };
      expect(parseCollectionQuery('sort_order=desc', spec).sort).toEqual({
        by: 'create_time',
        order: 'desc',
      });
    });

    it('refuses sort_order alone without a default sort', () => {
      expectRefused('sort_order=desc', 'sort_order', 'SORT_ORDER_WITHOUT_PROPERTY');
    });

    it('does not echo the refused value in the message', () => {
      expect(rejection('sort_by=%3Cscript%3E').message).not.toContain('<script>');
    });
  });

  describe('time selection', () => {
    it('reads start_time (inclusive) and end_time (exclusive) on the time property', () => {
      const query = parseCollectionQuery(
        'start_time=2024-01-01T00:00:00Z&end_time=2024-02-01T00:00:00Z',
        cards,
      );
      expect(query.time).toEqual([
        {
          property: 'create_time',
          operator: 'gte',
          value: new Date('2024-01-01T00:00:00Z'),
          parameter: 'start_time',
        },
        {
          property: 'create_time',
          operator: 'lt',
          value: new Date('2024-02-01T00:00:00Z'),
          parameter: 'end_time',
        },
      ]);
    });

    it('reads {property}_after and {property}_before as exclusive bounds', () => {
      const query = parseCollectionQuery(
        'create_time_after=2024-01-01T00:00:00Z&create_time_before=2024-01-02T00:00:00%2B01:00',
        cards,
      );
      expect(query.time.map(({ operator, value }) => [operator, value.toISOString()])).toEqual([
        ['gt', '2024-01-01T00:00:00.000Z'],
        ['lt', '2024-01-01T23:00:00.000Z'],
      ]);
    });

    it('reads an unencoded + in the offset (decoded as a space)', () => {
      const query = parseCollectionQuery('create_time_after=2024-01-01T01:00:00+01:00', cards);
      expect(query.time[0]?.value.toISOString()).toBe('2024-01-01T00:00:00.000Z');
    });

    it.each(['yesterday', '2024-01-01', '2024-02-30T00:00:00Z', '1704067200'])(
      'refuses %j',
      (value) => {
        expectRefused(`create_time_after=${value}`, 'create_time_after', 'INVALID_TIMESTAMP');
        expectRefused(`start_time=${value}`, 'start_time', 'INVALID_TIMESTAMP');
      },
    );

    it('uses timeProperty for start_time and end_time', () => {
      const query = parseCollectionQuery('start_time=2024-01-01T00:00:00Z', {
        timeSelectable: ['create_time', 'update_time'],
        timeProperty: 'update_time',
      });
      expect(query.time[0]?.property).toBe('update_time');
    });

    it('treats start_time as unknown when nothing is time-selectable', () => {
      expectRefused('start_time=2024-01-01T00:00:00Z', 'start_time', 'UNKNOWN_PARAMETER', {});
    });
  });

  describe('filters', () => {
    it('reads filters on declared properties into a null-prototype object', () => {
      const query = parseCollectionQuery('payer_id=P%201&state=ok', cards);
      expect({ ...query.filters }).toEqual({ payer_id: 'P 1', state: 'ok' });
      expect(Object.getPrototypeOf(query.filters)).toBeNull();
    });

    it('refuses a filter on an undeclared property instead of ignoring it', () => {
      expectRefused('number=4111', 'number', 'UNKNOWN_PARAMETER');
      expectRefused('__proto__=x', '__proto__', 'UNKNOWN_PARAMETER');
      expectRefused('constructor=x', 'constructor', 'UNKNOWN_PARAMETER');
    });

    it('refuses a value over the length limit', () => {
      expectRefused(`state=${'x'.repeat(1025)}`, 'state', 'PARAMETER_TOO_LONG');
      expect(parseCollectionQuery(`state=${'x'.repeat(1024)}`, cards).filters.state).toHaveLength(
        1024,
      );
    });
  });

  describe('repeated parameters', () => {
    it.each([
      'page=1&page=2',
      'page_size=5&page_size=5',
      'state=a&state=b',
      'sort_by=last_name&sort_by=last_name',
    ])('refuses %s', (input) => {
      const target = input.split('=')[0]!;
      expectRefused(input, target, 'REPEATED_PARAMETER');
    });

    it('refuses an array value from a parsed query object', () => {
      expect(() => parseCollectionQuery({ page: ['1', '2'] }, cards)).toThrow(/repeated/);
    });

    it('refuses a nested object from an extended query parser', () => {
      const error = (() => {
        try {
          parseCollectionQuery({ page: { $gt: '1' } }, cards);
        } catch (caught) {
          return caught as ApiError;
        }
      })();
      expect(error?.target).toBe('page');
      expect(error?.innererror?.code).toBe('INVALID_PARAMETER');
    });
  });

  describe('unknown parameters', () => {
    it('refuses them by default, naming the parameter', () => {
      expectRefused('page=1&pagesize=5', 'pagesize', 'UNKNOWN_PARAMETER');
    });

    it('cuts a huge parameter name in the target', () => {
      const error = rejection(`${'n'.repeat(5000)}=1`);
      expect(error.target?.length).toBeLessThan(200);
    });

    it('accepts the allowed parameters, repeated or not', () => {
      const query = parseCollectionQuery('fields=a&fields=b&page=2', {
        ...cards,
        allowedParameters: ['fields'],
      });
      expect(query.page).toBe(2);
    });

    it('ignores them with unknownParameters: "ignore", without filtering on them', () => {
      const query = parseCollectionQuery('number=4111&_=1&_=2', {
        ...cards,
        unknownParameters: 'ignore',
      });
      expect({ ...query.filters }).toEqual({});
    });
  });

  describe('total_required', () => {
    it('counts always by default, whatever the client says', () => {
      expect(parseCollectionQuery('total_required=false', cards).totalRequired).toBe(true);
    });

    it('counts on request only with totals: "on-request"', () => {
      const spec = { ...cards, totals: 'on-request' as const };
      expect(parseCollectionQuery('', spec).totalRequired).toBe(false);
      expect(parseCollectionQuery('total_required=false', spec).totalRequired).toBe(false);
      expect(parseCollectionQuery('total_required=true', spec).totalRequired).toBe(true);
    });

    it('refuses a value other than true or false', () => {
      expectRefused('total_required=yes', 'total_required', 'INVALID_BOOLEAN');
    });
  });

  describe('camelCase naming', () => {
    const camel: CollectionSpec = {
      naming: 'camelCase',
      sortable: ['createTime'],
      filterable: ['payerId'],
      timeSelectable: ['createTime'],
    };

    it('reads camelCase parameter names', () => {
      const query = parseCollectionQuery(
        'page=2&pageSize=5&sortBy=createTime&sortOrder=desc&payerId=P1&createTimeAfter=2024-01-01T00:00:00Z&totalRequired=true',
        camel,
      );
      expect(query).toMatchObject({
        page: 2,
        pageSize: 5,
        sort: { by: 'createTime', order: 'desc' },
      });
      expect(query.paging).toEqual({ position: 'page', size: 'pageSize' });
      expect(query.time).toHaveLength(1);
    });

    it('reads pageNumber and refuses snake_case names as unknown', () => {
      expect(parseCollectionQuery('pageNumber=3&limit=2', camel).offset).toBe(4);
      expectRefused('page_size=5', 'page_size', 'UNKNOWN_PARAMETER', camel);
    });
  });

  describe('input forms', () => {
    it('accepts URLSearchParams and a parsed query object', () => {
      expect(parseCollectionQuery(new URLSearchParams('page=2'), cards).page).toBe(2);
      expect(parseCollectionQuery({ page: '2', state: undefined }, cards).page).toBe(2);
    });
  });

  it('never fails with anything but a 400 ApiError, whatever the query string', () => {
    const names = [
      'page',
      'page_size',
      'limit',
      'offset',
      'page_number',
      'sort_by',
      'sortby',
      'order',
      'sort_order',
      'state',
      'start_time',
      'create_time_before',
      'total_required',
      '__proto__',
      'x',
    ];
    const pair = fc.tuple(fc.constantFrom(...names), fc.string({ maxLength: 30 }));
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 6 }), (pairs) => {
        const input = new URLSearchParams(pairs).toString();
        try {
          const query = parseCollectionQuery(input, cards);
          expect(query.pageSize).toBeGreaterThanOrEqual(1);
          expect(query.pageSize).toBeLessThanOrEqual(100);
          expect(Number.isSafeInteger(query.offset)).toBe(true);
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
          expect((error as ApiError).status).toBe(400);
        }
      }),
      { seed: 431, numRuns: 500 },
    );
  });
});

describe('parseCollectionQuery called with bad arguments', () => {
  it('names an unknown spec member as paginate does', () => {
    expect(() => parseCollectionQuery('', { sortabel: ['a'] } as CollectionSpec)).toThrow(
      expect.objectContaining({
        code: 'ERR_RESOURCEFUL_UNKNOWN_OPTION',
        option: 'sortabel',
        message: expect.stringContaining('Did you mean "sortable"?'),
      }),
    );
  });

  it.each([null, 5, undefined])('refuses the query %j with a TypeError', (input) => {
    expect(() => parseCollectionQuery(input as never, cards)).toThrow(TypeError);
    expect(() => parseCollectionQuery(input as never, cards)).not.toThrow(ApiError);
  });
});
