import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildPageLinks, type Link, parseCollectionQuery } from '../src/index.js';

// Every link of both paging conventions against a brute-force model of a collection of `total`
// records: pages are walked one record range at a time instead of computed.
const BASE = 'https://api.example.com/v1/things';
const SEED = Number(process.env.FAST_CHECK_SEED ?? 20261123);
const RUNS = Number(process.env.FAST_CHECK_RUNS ?? 2000);

type Convention = 'page' | 'offset';

interface Page {
  /** First record of the page (0-based). */
  start: number;
  size: number;
}

/** The query string a client sends for a page, in its convention. */
function search(convention: Convention, page: Page): string {
  return convention === 'offset'
    ? `offset=${page.start}&limit=${page.size}`
    : `page=${page.start / page.size + 1}&page_size=${page.size}`;
}

function linksOf(
  convention: Convention,
  page: Page,
  total: number | undefined,
  hasMore?: boolean,
): Map<Link['rel'], string> {
  const query = search(convention, page);
  const links = buildPageLinks({
    url: `${BASE}?${query}`,
    query: parseCollectionQuery(query),
    totalItems: total,
    hasMore,
  });
  return new Map(links.map((link) => [link.rel, link.href]));
}

const href = (convention: Convention, page: Page) => `${BASE}?${search(convention, page)}`;

/** Whether the page holds at least one of `total` records. */
const hasRecords = (start: number, total: number) => start < total;

/** The model's `next`: the following range, when a record lies in it. */
function modelNext(page: Page, total: number): Page | undefined {
  const start = page.start + page.size;
  return hasRecords(start, total) ? { start, size: page.size } : undefined;
}

/** The model's `previous`: one page back (never below 0), when it is the first or has records. */
function modelPrevious(page: Page, total: number | undefined): Page | undefined {
  if (page.start === 0) return undefined;
  const start = Math.max(0, page.start - page.size);
  if (total !== undefined && start !== 0 && !hasRecords(start, total)) return undefined;
  return { start, size: page.size };
}

/**
 * The model's `last`: the page `next` leads to when followed to the end. From a page past the
 * end, step back by whole pages to one that has records; when no page of that alignment has
 * any, the first page.
 */
function modelLast(page: Page, total: number): Page {
  let start = page.start;
  while (!hasRecords(start, total) && start - page.size >= 0) start -= page.size;
  if (!hasRecords(start, total)) return { start: 0, size: page.size };
  let current: Page = { start, size: page.size };
  for (let next = modelNext(current, total); next; next = modelNext(current, total)) current = next;
  return current;
}

const pages = (convention: Convention) =>
  fc
    .record({ size: fc.integer({ min: 1, max: 12 }), slot: fc.integer({ min: 0, max: 60 }) })
    .map(({ size, slot }) => ({ size, start: convention === 'offset' ? slot : slot * size }));

describe.each<Convention>(['offset', 'page'])('links with the %s convention', (convention) => {
  it('give self, first, previous, next and last as the model does', () => {
    fc.assert(
      fc.property(pages(convention), fc.integer({ min: 0, max: 200 }), (page, total) => {
        const links = linksOf(convention, page, total);
        const next = modelNext(page, total);
        const previous = modelPrevious(page, total);
        const expected = new Map<Link['rel'], string>([
          ['self', href(convention, page)],
          ['first', href(convention, { start: 0, size: page.size })],
        ]);
        if (previous) expected.set('previous', href(convention, previous));
        if (next) expected.set('next', href(convention, next));
        expected.set('last', href(convention, modelLast(page, total)));
        expect(links).toEqual(expected);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });

  it('lead by next, link after link, exactly to last and never past it', () => {
    fc.assert(
      fc.property(pages(convention), fc.integer({ min: 1, max: 200 }), (page, total) => {
        fc.pre(hasRecords(page.start, total));
        const last = linksOf(convention, page, total).get('last');
        let current = page;
        for (let steps = 0; ; steps++) {
          expect(steps).toBeLessThanOrEqual(total);
          const links = linksOf(convention, current, total);
          expect(links.get('last')).toBe(last);
          const nextHref = links.get('next');
          if (nextHref === undefined) break;
          const next = parseCollectionQuery(new URL(nextHref).search);
          current = { start: next.offset, size: next.pageSize };
        }
        expect(href(convention, current)).toBe(last);
      }),
      { seed: SEED, numRuns: RUNS / 4 },
    );
  });

  it('without a count, give next only when more records follow, and no last', () => {
    fc.assert(
      fc.property(pages(convention), fc.boolean(), (page, hasMore) => {
        const links = linksOf(convention, page, undefined, hasMore);
        const previous = modelPrevious(page, undefined);
        const expected = new Map<Link['rel'], string>([
          ['self', href(convention, page)],
          ['first', href(convention, { start: 0, size: page.size })],
        ]);
        if (previous) expected.set('previous', href(convention, previous));
        if (hasMore)
          expected.set(
            'next',
            href(convention, { start: page.start + page.size, size: page.size }),
          );
        expect(links).toEqual(expected);
      }),
      { seed: SEED, numRuns: RUNS },
    );
  });
});

describe('with limit / offset and an offset that is not a multiple of limit', () => {
  it('puts last after next: ?limit=2&offset=1 over 4 records', () => {
    const links = linksOf('offset', { start: 1, size: 2 }, 4);
    expect(links.get('next')).toBe(`${BASE}?offset=3&limit=2`);
    expect(links.get('last')).toBe(`${BASE}?offset=3&limit=2`);
  });
});
