import { describe, expect, it } from 'vitest';
import {
  buildCollectionEnvelope,
  buildPageLinks,
  type CollectionQuery,
  type Link,
  parseCollectionQuery,
  totalPages,
} from '../src/index.js';

const BASE = 'https://api.example.com/v1/vault/credit-cards';

function query(search: string): CollectionQuery {
  return parseCollectionQuery(search, {
    filterable: ['state'],
    sortable: ['create_time'],
    allowedParameters: ['q', 'tag'],
  });
}

/** rel → href, for readable assertions. */
function linksOf(search: string, totalItems: number | undefined, hasMore?: boolean) {
  const links = buildPageLinks({
    url: `${BASE}?${search}`,
    query: query(search),
    totalItems,
    hasMore,
  });
  return Object.fromEntries(links.map((link) => [link.rel, link.href]));
}

describe('buildPageLinks', () => {
  describe('with page / page_size over 25 records, 10 a page', () => {
    it('gives the first page self, first, next and last', () => {
      expect(linksOf('', 25)).toEqual({
        self: `${BASE}?page=1&page_size=10`,
        first: `${BASE}?page=1&page_size=10`,
        next: `${BASE}?page=2&page_size=10`,
        last: `${BASE}?page=3&page_size=10`,
      });
    });

    it('gives a middle page previous and next', () => {
      expect(linksOf('page=2', 25)).toEqual({
        self: `${BASE}?page=2&page_size=10`,
        first: `${BASE}?page=1&page_size=10`,
        previous: `${BASE}?page=1&page_size=10`,
        next: `${BASE}?page=3&page_size=10`,
        last: `${BASE}?page=3&page_size=10`,
      });
    });

    it('gives the last page no next', () => {
      expect(linksOf('page=3', 25)).toEqual({
        self: `${BASE}?page=3&page_size=10`,
        first: `${BASE}?page=1&page_size=10`,
        previous: `${BASE}?page=2&page_size=10`,
        last: `${BASE}?page=3&page_size=10`,
      });
    });

    it('gives the page just past the end a previous to the last page', () => {
      expect(linksOf('page=4', 25)).toMatchObject({ previous: `${BASE}?page=3&page_size=10` });
      expect(linksOf('page=4', 25).next).toBeUndefined();
    });

    it('gives a page far past the end first and last only', () => {
      expect(Object.keys(linksOf('page=50', 25))).toEqual(['self', 'first', 'last']);
    });

    it('ends an exact multiple on a full page', () => {
      expect(linksOf('page=2', 20)).toMatchObject({ last: `${BASE}?page=2&page_size=10` });
      expect(linksOf('page=2', 20).next).toBeUndefined();
    });
  });

  describe('on an empty collection', () => {
    it('points first and last at page 1, with no next or previous', () => {
      expect(linksOf('', 0)).toEqual({
        self: `${BASE}?page=1&page_size=10`,
        first: `${BASE}?page=1&page_size=10`,
        last: `${BASE}?page=1&page_size=10`,
      });
    });
  });

  describe('with limit / offset', () => {
    it('links in offsets', () => {
      expect(linksOf('offset=10&limit=10', 25)).toEqual({
        self: `${BASE}?offset=10&limit=10`,
        first: `${BASE}?offset=0&limit=10`,
        previous: `${BASE}?offset=0&limit=10`,
        next: `${BASE}?offset=20&limit=10`,
        last: `${BASE}?offset=20&limit=10`,
      });
    });

    it('keeps an unaligned offset moving by limit and never below 0', () => {
      expect(linksOf('offset=3&limit=10', 25)).toMatchObject({
        previous: `${BASE}?offset=0&limit=10`,
        next: `${BASE}?offset=13&limit=10`,
      });
    });

    it('links with page_number when the client used it', () => {
      expect(linksOf('page_number=2&page_size=5', 12)).toMatchObject({
        next: `${BASE}?page_number=3&page_size=5`,
        last: `${BASE}?page_number=3&page_size=5`,
      });
    });
  });

  describe('other query parameters', () => {
    it('keeps them in order, before the paging parameters', () => {
      expect(linksOf('state=ok&page=2&sort_by=create_time', 25).next).toBe(
        `${BASE}?state=ok&sort_by=create_time&page=3&page_size=10`,
      );
    });

    it('URL-encodes them', () => {
      const search = new URLSearchParams({ q: 'a b&c=d/é?#', tag: '<x>' }).toString();
      const next = linksOf(search, 25).next!;
      expect(next).toBe(`${BASE}?q=a+b%26c%3Dd%2F%C3%A9%3F%23&tag=%3Cx%3E&page=2&page_size=10`);
      expect(new URL(next).searchParams.get('q')).toBe('a b&c=d/é?#');
    });

    it('keeps repeated allowed parameters', () => {
      expect(linksOf('tag=a&tag=b', 25).next).toBe(`${BASE}?tag=a&tag=b&page=2&page_size=10`);
    });
  });

  describe('without a count', () => {
    it('has next when more records follow, and never last', () => {
      expect(linksOf('page=2', undefined, true)).toEqual({
        self: `${BASE}?page=2&page_size=10`,
        first: `${BASE}?page=1&page_size=10`,
        previous: `${BASE}?page=1&page_size=10`,
        next: `${BASE}?page=3&page_size=10`,
      });
      expect(linksOf('page=2', undefined, false).next).toBeUndefined();
    });
  });

  it('uses the given method on every link', () => {
    const links: Link[] = buildPageLinks({
      url: BASE,
      query: query('page=2'),
      totalItems: 40,
      method: 'POST',
    });
    expect(new Set(links.map((link) => link.method))).toEqual(new Set(['POST']));
    expect(links.map((link) => link.rel)).toEqual(['self', 'first', 'previous', 'next', 'last']);
  });
});

describe('totalPages', () => {
  it.each([
    [0, 10, 0],
    [1, 10, 1],
    [10, 10, 1],
    [11, 10, 2],
  ])('gives %i records of %i a page %i pages', (items, size, pages) => {
    expect(totalPages(items, size)).toBe(pages);
  });
});

describe('buildCollectionEnvelope', () => {
  it('builds items, total_items, total_pages and links in that order', () => {
    const envelope = buildCollectionEnvelope({
      items: [{ id: 'a' }],
      query: query(''),
      url: BASE,
      totalItems: 11,
    });
    expect(Object.keys(envelope)).toEqual(['items', 'total_items', 'total_pages', 'links']);
    expect(envelope).toMatchObject({ items: [{ id: 'a' }], total_items: 11, total_pages: 2 });
  });

  it('names the totals in camelCase when asked', () => {
    const envelope = buildCollectionEnvelope({
      items: [],
      query: query(''),
      url: BASE,
      totalItems: 0,
      naming: 'camelCase',
    });
    expect(Object.keys(envelope)).toEqual(['items', 'totalItems', 'totalPages', 'links']);
  });

  it('leaves the totals out when not counted', () => {
    const envelope = buildCollectionEnvelope({
      items: [],
      query: query(''),
      url: BASE,
      hasMore: false,
    });
    expect(Object.keys(envelope)).toEqual(['items', 'links']);
  });
});

describe('the link builders called with values that are not counts', () => {
  it.each([
    ['a negative total', () => totalPages(-5, 2), /"totalItems" must be an integer of at least 0/],
    ['a page size of 0', () => totalPages(5, 0), /"pageSize" must be an integer of at least 1/],
    ['NaN', () => totalPages(Number.NaN, 10), /"totalItems"/],
    [
      'a string total in buildPageLinks',
      () => buildPageLinks({ url: BASE, query: query(''), totalItems: '25' as never }),
      /buildPageLinks: "totalItems"/,
    ],
    [
      'items that are not an array',
      () => buildCollectionEnvelope({ items: null as never, url: BASE, query: query('') }),
      /buildCollectionEnvelope: "items" must be an array/,
    ],
  ])('throw a TypeError for %s', (_, call, message) => {
    expect(call).toThrow(TypeError);
    expect(call).toThrow(message);
  });

  it('still give 0 pages for an empty collection', () => {
    expect(totalPages(0, 10)).toBe(0);
  });
});
