/**
 * @module What `paginate` and `searchCollection` share: the options resolved once in the
 * factory, and per request the parsed query (on `req.collectionQuery`) and the page context.
 */
import type { IncomingMessage } from 'node:http';
import { functionOption } from '@resourceful/option-checks';
import { setCollectionQuery } from './collection-query.js';
import type { ResolvedSpec } from './collection-spec.js';
import { bindingDigest, type ResolvedContinuation, verifyPageToken } from './continuation-token.js';
import { parseEntries, queryEntries } from './parse-query.js';
import { requestUrl } from './request-url.js';
import type { PageContext } from './respond.js';
import { publicBaseUrl } from './validations.js';

export interface PageSetup {
  readonly spec: ResolvedSpec;
  readonly baseUrl: string | undefined;
  readonly summary: PageContext['summary'];
  /** Server-driven paging, when the route opted in. */
  readonly continuation?: ResolvedContinuation | undefined;
}

/** Checks `summary` and `publicBaseUrl` once, when the factory runs. */
export function resolvePageSetup(
  factory: string,
  spec: ResolvedSpec,
  options: { summary?: unknown; publicBaseUrl?: unknown },
): PageSetup {
  return {
    spec,
    baseUrl: publicBaseUrl(factory, options.publicBaseUrl),
    summary: functionOption(
      factory,
      'summary',
      options.summary as ((item: never, req: never) => unknown) | undefined,
    ),
  };
}

/** The raw query string of the request; repeats and order are kept (unlike `req.query`). */
export function rawQuery(req: IncomingMessage): string {
  const url = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '';
  const index = url.indexOf('?');
  if (index === -1) return '';
  const hash = url.indexOf('#', index);
  return url.slice(index + 1, hash === -1 ? undefined : hash);
}

/**
 * Parses and validates the list parameters, puts them on `req.collectionQuery` and builds the
 * context the page is answered with.
 * @throws ApiError 400 naming the offending parameter
 */
export function pageContext(
  req: IncomingMessage,
  setup: PageSetup,
  method: PageContext['method'],
): PageContext {
  const entries = queryEntries(rawQuery(req));
  let query = parseEntries(entries, setup.spec);
  const url = requestUrl(req, setup.baseUrl);
  const base = { url, naming: setup.spec.naming, method, summary: setup.summary, req };
  const { continuation } = setup;
  // A page number or an offset keeps the offset conventions; without one, the route pages by
  // continuation token from the first page on.
  const positioned = entries.some(([name]) => setup.spec.roles.get(name)?.kind === 'position');
  if (continuation === undefined || positioned) {
    setCollectionQuery(req, query);
    return { ...base, query };
  }
  const binding = bindingDigest(continuation.collection ?? url.pathname, query);
  const parameter = setup.spec.names.pageToken;
  if (query.pageToken !== undefined) {
    const after = verifyPageToken(continuation, binding, query.pageToken, parameter);
    query = { ...query, after };
  }
  setCollectionQuery(req, query);
  return { ...base, query, continuation: { options: continuation, binding, parameter } };
}
