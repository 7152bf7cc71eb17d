/**
 * @module The shapes shared by the parser, the envelope builder, the data sources and the
 * middleware: the parsed collection query, links, the envelope, the data-source interface.
 */

/** `asc` or `desc` (spec: "sort_order"). */
export type SortOrder = 'asc' | 'desc';

/** Names in the envelope and in query parameters follow the resource's convention. */
export type Naming = 'snake_case' | 'camelCase';

/** The sort the client asked for, or the route's default. */
export interface SortSpec {
  /** A property the route declared sortable. */
  readonly by: string;
  readonly order: SortOrder;
}

/**
 * One time-selection bound. `start_time` is inclusive (`gte`), `end_time` exclusive (`lt`),
 * `{property}_after` and `{property}_before` are exclusive (`gt`, `lt`).
 */
export interface TimeCondition {
  readonly property: string;
  readonly operator: 'gt' | 'gte' | 'lt';
  readonly value: Date;
  /** The query parameter it came from, for error messages. */
  readonly parameter: string;
}

/** Query parameter names the links write for the position and the size of a page. */
export interface PagingParameters {
  /** `page`, `page_number` or `offset` (camelCase: `page`, `pageNumber`, `offset`). */
  readonly position: string;
  /** `page_size` or `limit` (camelCase: `pageSize`, `limit`). */
  readonly size: string;
}

/** The parsed, validated list parameters. Available as `req.collectionQuery`. */
export interface CollectionQuery {
  /** 1-based page number; with `offset`, the page the offset falls in. */
  readonly page: number;
  readonly pageSize: number;
  /** Records to skip: `(page - 1) * pageSize`, or the client's `offset`. */
  readonly offset: number;
  /**
   * Records to return. Equals `pageSize`, except that a data source may be asked for one more
   * record when totals are skipped, to learn whether a next page exists.
   */
  readonly limit: number;
  readonly sort: SortSpec | undefined;
  /** Equality filters on declared properties (`?state=ok`). Null-prototype object. */
  readonly filters: Readonly<Record<string, string>>;
  readonly time: readonly TimeCondition[];
  /** Whether `total_items` and `total_pages` are computed for this request. */
  readonly totalRequired: boolean;
  /** Which parameter names the navigation links use (the client's own convention). */
  readonly paging: PagingParameters;
  /**
   * The continuation token the client sent (`page_token`), unverified; only on routes with
   * `continuation` configured. `paginate()` verifies it and sets `after`.
   */
  readonly pageToken?: string | undefined;
  /**
   * Server-driven paging: the page starts after this position (from a verified continuation
   * token). Set only on routes with `continuation` configured.
   */
  readonly after?: KeysetPosition | undefined;
}

/** A value a keyset position can hold: what a sort column reads as. */
export type KeyValue = string | number | boolean | Date | null;

/**
 * A place in the order `(sort property, unique key)`: the sort value and the unique key of the
 * last record of a page. The next page is the records strictly after it.
 */
export interface KeysetPosition {
  /** The record's value of `query.sort.by`; `null` when missing or when the query has no sort. */
  readonly key: KeyValue;
  /** The record's unique key (the tie-breaker). */
  readonly id: string | number;
}

/** A hypermedia link (spec: "Link object"). */
export interface Link {
  readonly href: string;
  readonly rel: 'self' | 'first' | 'previous' | 'next' | 'last';
  readonly method: 'GET' | 'POST';
}

/**
 * `{ items, total_items, total_pages, links }` (camelCase: `totalItems`, `totalPages`). The
 * totals are left out when the route skips counting and the client did not ask for them.
 */
export interface CollectionEnvelope<Item = unknown> {
  items: Item[];
  total_items?: number;
  total_pages?: number;
  totalItems?: number;
  totalPages?: number;
  links: Link[];
}

/**
 * Where the records come from. A database or an upstream API implements both calls with the
 * parsed query, so a list is never loaded whole.
 */
export interface DataSource<T> {
  /** The number of records that match `query.filters` and `query.time`. */
  count(query: CollectionQuery): number | Promise<number>;
  /** Records `query.offset` … `query.offset + query.limit - 1`, filtered and sorted. */
  fetchPage(query: CollectionQuery): readonly T[] | Promise<readonly T[]>;
}

/**
 * A data source that can also page by keyset (server-driven paging, `continuation` option):
 * its order is always `(sort property, unique key)`, both in the sort's direction, in
 * `fetchPage` too, so offset pages and keyset pages agree.
 */
export interface KeysetDataSource<T> extends DataSource<T> {
  /**
   * Up to `query.limit` records strictly after `after` in the query's order (from the first
   * record when `after` is undefined), filtered; `query.offset` is ignored. With an index on
   * `(sort column, unique key)` this costs the same at any depth.
   */
  fetchAfter(
    query: CollectionQuery,
    after: KeysetPosition | undefined,
  ): readonly T[] | Promise<readonly T[]>;
  /** The position of a record in the query's order, written into the `next` token. */
  positionOf(item: T, query: CollectionQuery): KeysetPosition;
}

declare global {
  // Express's request type lives in this global namespace (@types/express-serve-static-core);
  // augmenting it rather than node:http's IncomingMessage keeps HTTP client responses (also
  // IncomingMessage) free of a property they never have.
  namespace Express {
    interface Request {
      /**
       * The parsed list parameters, set by `paginate()` and `searchCollection()` from
       * `@resourceful/collection-pagination` before the data source is asked. Without Express
       * types, read them with `getCollectionQuery(req)`.
       */
      collectionQuery?: CollectionQuery;
    }
  }
}
