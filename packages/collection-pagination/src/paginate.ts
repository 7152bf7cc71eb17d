/**
 * @module `paginate(options)`: the list middleware. Parses and validates the list parameters,
 * puts them on `req.collectionQuery`, asks the data source for one page and answers with the
 * collection envelope.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  assertKnownOptions,
  assertOptionsObject,
  invalidOption,
  OPTION_ERROR_CODES,
  optionError,
} from '@resourceful/option-checks';
import {
  COLLECTION_SPEC_KEYS,
  type CollectionSpec,
  resolveCollectionSpec,
} from './collection-spec.js';
import { type ContinuationOptions, resolveContinuation } from './continuation-token.js';
import { pageContext, resolvePageSetup } from './page-context.js';
import {
  answerPage,
  isKeysetSource,
  type LoadedPage,
  type PageContext,
  sendPage,
} from './respond.js';
import type { DataSource } from './types.js';

type Next = (err?: unknown) => void;

export interface PaginateOptions<T = unknown, Req extends IncomingMessage = IncomingMessage>
  extends CollectionSpec {
  /**
   * Where the page comes from: a data source, or a function of the request returning one (for
   * a sub-collection: `(req) => eventTypesOf(req.params.id)`; throw `ApiError.notFound()` for a
   * missing parent). Without it, the middleware only parses and calls `next()`; the route then
   * answers with `sendCollectionPage`.
   */
  source?: DataSource<T> | ((req: Req) => DataSource<T> | Promise<DataSource<T>>);
  /**
   * Maps each record to its list (summary) form; gets the request too, for absolute item links.
   * @default the record as is
   */
  summary?: (item: T, req: Req) => unknown;
  /**
   * Base of every link, such as `https://api.example.com` (a path prefix is allowed). Without it,
   * links use Express's protocol and host (trust-proxy aware) and the original URL.
   */
  publicBaseUrl?: string;
  /**
   * Server-driven paging (opt-in): a request without `page`, `page_number` or `offset` gets a
   * `next` link carrying an opaque continuation token (`page_token`) signed with the first of
   * `secrets`, so following `next` costs the same at any depth. Needs a `source` that is a
   * `KeysetDataSource` (`fetchAfter` + `positionOf`).
   * @default undefined (offset paging only)
   */
  continuation?: ContinuationOptions;
}

const PAGINATE_KEYS = [
  ...COLLECTION_SPEC_KEYS,
  'source',
  'summary',
  'publicBaseUrl',
  'continuation',
] as const;

const contexts = new WeakMap<IncomingMessage, PageContext>();

/**
 * The list middleware: `router.get('/credit-cards', paginate({ source, sortable: [...] }))`.
 * @see spec "Standard operations" (List), "Collection envelope"
 */
export function paginate<T = unknown, Req extends IncomingMessage = IncomingMessage>(
  options: PaginateOptions<T, Req> = {},
) {
  const factory = 'paginate';
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, PAGINATE_KEYS);
  const continuation =
    options.continuation === undefined
      ? undefined
      : resolveContinuation(factory, options.continuation);
  const spec = resolveCollectionSpec(factory, options, continuation !== undefined);
  const source = options.source;
  if (
    source !== undefined &&
    typeof source !== 'function' &&
    !(
      typeof source === 'object' &&
      source !== null &&
      typeof source.count === 'function' &&
      typeof source.fetchPage === 'function'
    )
  ) {
    invalidOption(
      factory,
      'source',
      'a data source ({ count, fetchPage }) or a function returning one',
      source,
    );
  }
  if (continuation !== undefined) {
    if (source === undefined) {
      throw optionError(
        OPTION_ERROR_CODES.conflictingOptions,
        factory,
        '"continuation" needs a "source": the middleware pages by keyset itself.',
        'continuation',
      );
    }
    if (typeof source !== 'function' && !isKeysetSource(source)) {
      invalidOption(
        factory,
        'source',
        'a data source with fetchAfter() and positionOf() when "continuation" is set',
        source,
      );
    }
  }
  const setup = { ...resolvePageSetup(factory, spec, options), continuation };
  // A data source given as a value is resolved by the same function for every request.
  const sourceValue =
    source === undefined || typeof source === 'function' ? undefined : () => source;

  return function paginateMiddleware(req: Req, res: ServerResponse, next: Next): void {
    let context: PageContext;
    try {
      context = pageContext(req, setup, 'GET');
    } catch (error) {
      next(error);
      return;
    }
    if (source === undefined) {
      contexts.set(req, context);
      next();
      return;
    }
    answerPage(
      res,
      context,
      sourceValue ?? (() => (source as (req: Req) => DataSource<T> | Promise<DataSource<T>>)(req)),
      next,
    );
  };
}

/**
 * Answers with the envelope of a page the route loaded itself, after `paginate()` without a
 * `source` ran for the same request.
 * @throws TypeError when `paginate()` did not run for this request
 */
export function sendCollectionPage<T>(
  req: IncomingMessage,
  res: ServerResponse,
  page: { items: readonly T[]; totalItems?: number | undefined; hasMore?: boolean | undefined },
): void {
  const context = contexts.get(req);
  if (context === undefined) {
    throw new TypeError('sendCollectionPage: mount paginate() without "source" before this route.');
  }
  if (context.query.totalRequired && page.totalItems === undefined) {
    throw new TypeError('sendCollectionPage: this request needs "totalItems".');
  }
  const loaded: LoadedPage<T> = context.query.totalRequired
    ? { items: page.items.slice(0, context.query.pageSize), totalItems: page.totalItems }
    : { items: page.items.slice(0, context.query.pageSize), hasMore: page.hasMore };
  sendPage(res, context, loaded);
}
