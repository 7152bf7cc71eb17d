/**
 * @module Shared by the list and search middleware: ask the data source for one page (and the
 * count when needed) and write the envelope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ResolvedContinuation, signPageToken } from './continuation-token.js';
import { buildCollectionEnvelope } from './envelope.js';
import type { CollectionQuery, DataSource, KeysetDataSource, Naming } from './types.js';

export interface LoadedPage<T> {
  readonly items: readonly T[];
  readonly totalItems?: number | undefined;
  readonly hasMore?: boolean | undefined;
  /** Server-driven paging: the token of the next page, when there is one. */
  readonly nextToken?: string | undefined;
}

/** Server-driven paging for one request: how to sign the `next` token, and its parameter. */
export interface ContinuationContext {
  readonly options: ResolvedContinuation;
  readonly binding: string;
  readonly parameter: string;
}

export function isKeysetSource<T>(source: DataSource<T>): source is KeysetDataSource<T> {
  const candidate = source as Partial<KeysetDataSource<T>>;
  return typeof candidate.fetchAfter === 'function' && typeof candidate.positionOf === 'function';
}

/**
 * One page by keyset: one record more than the page size tells whether a next page exists; the
 * next token is the position of the last record shown. Counts only when totals are wanted.
 */
function loadKeysetPage<T>(
  source: DataSource<T>,
  query: CollectionQuery,
  continuation: ContinuationContext,
): Promise<LoadedPage<T>> {
  if (!isKeysetSource(source)) {
    throw new TypeError(
      'paginate: "continuation" needs a data source with fetchAfter() and positionOf() (a KeysetDataSource).',
    );
  }
  const rows = source.fetchAfter({ ...query, limit: query.limit + 1 }, query.after);
  let total: ReturnType<DataSource<T>['count']> | undefined;
  try {
    total = query.totalRequired ? source.count(query) : undefined;
  } catch (error) {
    // The rows may be a promise that rejects too; it must not become an unhandled rejection.
    Promise.resolve(rows).catch(() => {});
    throw error;
  }
  return Promise.all([rows, total]).then(([resolved, count]) => {
    const checked = checkRows(resolved);
    const items = checked.slice(0, query.limit);
    const last = items[items.length - 1];
    const nextToken =
      checked.length > query.limit && last !== undefined
        ? signPageToken(continuation.options, continuation.binding, source.positionOf(last, query))
        : undefined;
    if (count === undefined) return { items, hasMore: nextToken !== undefined, nextToken };
    return { ...countedPage(count, items, query), nextToken };
  });
}

/**
 * One page from a data source. Without a count, asks for one record more than the page size
 * to learn whether a next page exists. Synchronous when the data source is (the in-memory one),
 * so a list costs no promise round trips; a promise otherwise.
 */
export function loadPage<T>(
  source: DataSource<T>,
  query: CollectionQuery,
): LoadedPage<T> | Promise<LoadedPage<T>> {
  if (!query.totalRequired) {
    const rows = source.fetchPage({ ...query, limit: query.limit + 1 });
    return isThenable(rows)
      ? Promise.resolve(rows).then((resolved) => peekedPage(resolved, query))
      : peekedPage(rows, query);
  }
  const total = source.count(query);
  let rows: ReturnType<DataSource<T>['fetchPage']>;
  try {
    rows = source.fetchPage(query);
  } catch (error) {
    // The count may be a promise that rejects too; it must not become an unhandled rejection.
    if (isThenable(total)) Promise.resolve(total).catch(() => {});
    throw error;
  }
  if (isThenable(total) || isThenable(rows)) {
    return Promise.all([total, rows]).then(([count, resolved]) =>
      countedPage(count, resolved, query),
    );
  }
  return countedPage(total, rows, query);
}

function countedPage<T>(total: number, rows: readonly T[], query: CollectionQuery): LoadedPage<T> {
  if (typeof total !== 'number' || !Number.isSafeInteger(total) || total < 0) {
    throw new TypeError(
      `DataSource.count() must return a non-negative integer, got ${String(total)}.`,
    );
  }
  return { items: checkRows(rows).slice(0, query.limit), totalItems: total };
}

function peekedPage<T>(rows: readonly T[], query: CollectionQuery): LoadedPage<T> {
  const checked = checkRows(rows);
  return { items: checked.slice(0, query.limit), hasMore: checked.length > query.limit };
}

function checkRows<T>(rows: readonly T[]): readonly T[] {
  if (!Array.isArray(rows)) throw new TypeError('DataSource.fetchPage() must return an array.');
  return rows;
}

export function isThenable<V>(value: V | PromiseLike<V>): value is PromiseLike<V> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Resolves the data source (a value, or a function's result, sync or async), loads the page and
 * answers. A throw or a rejection anywhere reaches `next` exactly once; Express 4 does not
 * route rejections itself.
 */
export function answerPage<T>(
  res: ServerResponse,
  context: PageContext,
  resolveSource: () => DataSource<T> | Promise<DataSource<T>>,
  next: (err?: unknown) => void,
): void {
  // No closure per request on the synchronous path (the in-memory source): only a promise
  // needs callbacks.
  let page: LoadedPage<T> | Promise<LoadedPage<T>>;
  try {
    const source = resolveSource();
    page = isThenable(source)
      ? Promise.resolve(source).then((resolved) => loadFrom(resolved, context))
      : loadFrom(source, context);
  } catch (error) {
    fail(next, error);
    return;
  }
  if (isThenable(page)) {
    Promise.resolve(page)
      .then((loaded) => sendPage(res, context, loaded))
      .then(undefined, (error: unknown) => fail(next, error));
    return;
  }
  try {
    sendPage(res, context, page);
  } catch (error) {
    fail(next, error);
  }
}

function loadFrom<T>(
  source: DataSource<T>,
  context: PageContext,
): LoadedPage<T> | Promise<LoadedPage<T>> {
  return context.continuation === undefined
    ? loadPage(source, context.query)
    : loadKeysetPage(source, context.query, context.continuation);
}

function fail(next: (err?: unknown) => void, error: unknown): void {
  // `||`, as Express 5 routes a rejection: a falsy reason (`''`, `0`, `false`) given to next()
  // as it is would mean "no error" and run the next handler.
  next(error || new Error('Promise rejected'));
}

export interface PageContext {
  readonly url: URL;
  readonly query: CollectionQuery;
  readonly naming: Naming;
  readonly method: 'GET' | 'POST';
  readonly req: IncomingMessage;
  readonly summary: ((item: never, req: never) => unknown) | undefined;
  /** Set when this request pages by continuation token. */
  readonly continuation?: ContinuationContext | undefined;
}

/** Writes the envelope of a page as `200 application/json`. */
export function sendPage<T>(res: ServerResponse, context: PageContext, page: LoadedPage<T>): void {
  const summary = context.summary as ((item: T, req: IncomingMessage) => unknown) | undefined;
  const { req } = context;
  let items: readonly unknown[] = page.items;
  if (summary !== undefined) {
    const summaries = new Array<unknown>(page.items.length);
    for (let index = 0; index < summaries.length; index++) {
      summaries[index] = summary(page.items[index]!, req);
    }
    items = summaries;
  }
  const envelope = buildCollectionEnvelope({
    items,
    query: context.query,
    url: context.url,
    totalItems: page.totalItems,
    hasMore: page.hasMore,
    method: context.method,
    naming: context.naming,
    ...(context.continuation === undefined
      ? {}
      : { continuation: { parameter: context.continuation.parameter, next: page.nextToken } }),
  });
  sendJson(res, 200, envelope);
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  // Node sends no body for HEAD (RFC 9110 §9.3.2) but the body still goes through `res.end`,
  // so middleware that derives headers from it (an ETag) gives HEAD the same headers as GET.
  res.end(text);
}
