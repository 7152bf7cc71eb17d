/**
 * @module The collection envelope (spec: "Collection envelope"):
 * `{ items, total_items, total_pages, links }`.
 */
import { describeValue } from '@resourceful/option-checks';
import { buildPageLinks, type PageLinksInput, totalPages } from './links.js';
import type { CollectionEnvelope, CollectionQuery, Naming } from './types.js';

export interface EnvelopeInput<Item> {
  /** The records of this page, already mapped to their list form. */
  readonly items: readonly Item[];
  readonly query: CollectionQuery;
  /** The absolute URL of the request. */
  readonly url: URL | string;
  /** `undefined` when not counted: the totals and `last` are left out. */
  readonly totalItems?: number | undefined;
  /** Without a count: whether another page follows. */
  readonly hasMore?: boolean | undefined;
  /** @default 'GET' */
  readonly method?: 'GET' | 'POST';
  /** @default 'snake_case' */
  readonly naming?: Naming;
  /** Server-driven paging: see `PageLinksInput.continuation`. */
  readonly continuation?: PageLinksInput['continuation'];
}

/** Builds the envelope of one page. An empty page is a normal envelope with `items: []`. */
export function buildCollectionEnvelope<Item>(
  input: EnvelopeInput<Item>,
): CollectionEnvelope<Item> {
  const { totalItems } = input;
  const links = buildPageLinks({
    url: input.url,
    query: input.query,
    totalItems,
    hasMore: input.hasMore,
    method: input.method ?? 'GET',
    ...(input.continuation === undefined ? {} : { continuation: input.continuation }),
  });
  if (!Array.isArray(input.items)) {
    throw new TypeError(
      `buildCollectionEnvelope: "items" must be an array, got ${describeValue(input.items)}.`,
    );
  }
  const items = [...input.items];
  if (totalItems === undefined) return { items, links };
  const pages = totalPages(totalItems, input.query.pageSize);
  return input.naming === 'camelCase'
    ? { items, totalItems, totalPages: pages, links }
    : { items, total_items: totalItems, total_pages: pages, links };
}
