/**
 * @module Navigation links of a page: `self`, `first`, `previous`, `next`, `last`, absolute,
 * keeping every other query parameter of the request, in the paging convention the client used.
 */
import { describeValue } from '@resourceful/option-checks';
import type { CollectionQuery, Link } from './types.js';

export interface PageLinksInput {
  /** The absolute URL of the request (see `requestUrl`). */
  readonly url: URL | string;
  readonly query: CollectionQuery;
  /** Matching records; `undefined` when the route skipped counting (then no `last`). */
  readonly totalItems?: number | undefined;
  /** Without a count: whether another page follows. */
  readonly hasMore?: boolean | undefined;
  /** `GET` for lists, `POST` for search. @default 'GET' */
  readonly method?: 'GET' | 'POST';
  /**
   * Server-driven paging: the links carry continuation tokens instead of positions. `self`
   * keeps the request's token, `first` has none, `next` carries `next`; there is no `previous`
   * and no `last` (a keyset cannot jump).
   */
  readonly continuation?: {
    /** The token parameter's name (`page_token`, camelCase `pageToken`). */
    readonly parameter: string;
    /** The token of the next page; `undefined` on the last page. */
    readonly next: string | undefined;
  };
}

// Every position and size parameter of both conventions and both namings: a link writes its own.
const PAGING_NAMES = new Set([
  'page',
  'page_number',
  'pageNumber',
  'offset',
  'page_size',
  'pageSize',
  'limit',
]);

/**
 * Builds the links of a page. `next` and `previous` appear only where that page exists; a page
 * past the end still gets `first` and `last`.
 */
export function buildPageLinks(input: PageLinksInput): Link[] {
  const { query, totalItems } = input;
  if (totalItems !== undefined) assertCount('buildPageLinks', 'totalItems', totalItems, 0);
  const method = input.method ?? 'GET';
  if (input.continuation !== undefined) return continuationLinks(input, input.continuation);
  const { offset, pageSize } = query;
  const url = typeof input.url === 'string' ? new URL(input.url) : input.url;
  // The kept parameters are serialised once; each link only appends its own position and size.
  const entries = url.search === '' ? [] : [...url.searchParams];
  const others = entries.filter(([name]) => !PAGING_NAMES.has(name));
  const kept = others.length === 0 ? '' : new URLSearchParams(others).toString();
  const prefix = `${url.origin}${url.pathname}?${kept === '' ? '' : `${kept}&`}`;
  const target: LinkTarget = {
    prefix: `${prefix}${encodeURIComponent(query.paging.position)}=`,
    sizePart: `&${encodeURIComponent(query.paging.size)}=${pageSize}`,
    byOffset: query.paging.position === 'offset',
    pageSize,
  };

  const lastOffset =
    totalItems === undefined ? undefined : lastPageOffset(offset, pageSize, totalItems);
  const hasNext =
    totalItems === undefined ? input.hasMore === true : offset + pageSize < totalItems;
  const previousOffset = Math.max(0, offset - pageSize);
  const hasPrevious = offset > 0 && (lastOffset === undefined || previousOffset <= lastOffset);

  const links: Link[] = [
    { href: pageHref(target, offset), rel: 'self', method },
    { href: pageHref(target, 0), rel: 'first', method },
  ];
  if (hasPrevious) links.push({ href: pageHref(target, previousOffset), rel: 'previous', method });
  if (hasNext) links.push({ href: pageHref(target, offset + pageSize), rel: 'next', method });
  if (lastOffset !== undefined)
    links.push({ href: pageHref(target, lastOffset), rel: 'last', method });
  return links;
}

/** What every offset link of one page shares; a link adds its own position. */
interface LinkTarget {
  /** Up to the position parameter's `=`. */
  readonly prefix: string;
  /** `&page_size=20` (the size parameter of the client's convention). */
  readonly sizePart: string;
  readonly byOffset: boolean;
  readonly pageSize: number;
}

function pageHref(target: LinkTarget, targetOffset: number): string {
  const position = target.byOffset ? targetOffset : Math.floor(targetOffset / target.pageSize) + 1;
  return `${target.prefix}${position}${target.sizePart}`;
}

function continuationLinks(
  input: PageLinksInput,
  continuation: NonNullable<PageLinksInput['continuation']>,
): Link[] {
  const method = input.method ?? 'GET';
  const url = typeof input.url === 'string' ? new URL(input.url) : input.url;
  const others = [...url.searchParams].filter(
    ([name]) => !PAGING_NAMES.has(name) && name !== continuation.parameter,
  );
  const kept = others.length === 0 ? '' : new URLSearchParams(others).toString();
  const base = `${url.origin}${url.pathname}?${kept === '' ? '' : `${kept}&`}`;
  const first = `${base}${encodeURIComponent(input.query.paging.size)}=${input.query.pageSize}`;
  const parameter = encodeURIComponent(continuation.parameter);
  const token = input.query.pageToken;
  const links: Link[] = [
    {
      href: token === undefined ? first : `${first}&${parameter}=${encodeURIComponent(token)}`,
      rel: 'self',
      method,
    },
    { href: first, rel: 'first', method },
  ];
  if (continuation.next !== undefined) {
    links.push({
      href: `${first}&${parameter}=${encodeURIComponent(continuation.next)}`,
      rel: 'next',
      method,
    });
  }
  return links;
}

/**
 * The offset of the `last` page: the one that following `next` from this page ends on, so `next`
 * never passes it. Pages of one chain are `pageSize` apart, so with an offset that is not a
 * multiple of the size (`?offset=1&limit=2` over 4 records: 1, 3) the last page is the last one
 * aligned like this page (3), not the last multiple of the size (2). From a page past the end it
 * is the last aligned page that has records, or the first page when none has.
 */
function lastPageOffset(offset: number, pageSize: number, totalItems: number): number {
  const alignment = offset % pageSize;
  if (alignment >= totalItems) return 0;
  return alignment + Math.floor((totalItems - 1 - alignment) / pageSize) * pageSize;
}

/**
 * `ceil(totalItems / pageSize)`; 0 for an empty collection.
 * @throws TypeError when `totalItems` is not a count (a safe integer ≥ 0) or `pageSize` not ≥ 1
 */
export function totalPages(totalItems: number, pageSize: number): number {
  assertCount('totalPages', 'totalItems', totalItems, 0);
  assertCount('totalPages', 'pageSize', pageSize, 1);
  return Math.ceil(totalItems / pageSize);
}

/** A count given to the link builders: a safe integer of at least `min`. */
function assertCount(fn: string, name: string, value: unknown, min: number): void {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    throw new TypeError(
      `${fn}: "${name}" must be an integer of at least ${min}, got ${describeValue(value)}.`,
    );
  }
}
