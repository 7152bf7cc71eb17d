/**
 * @module `searchCollection(options)`: the search complex operation (spec: "Complex operations",
 * Search). `POST /v{N}/{namespace}/{search-resource}` with criteria in a JSON body, `page` and
 * `page_size` in the query, answered with the collection envelope whose links use `POST`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, fromZodError } from '@resourceful/error-envelope';
import { type CollectionSpec, resolveCollectionSpec } from './collection-spec.js';
import { pageContext, resolvePageSetup } from './page-context.js';
import { answerPage, type PageContext } from './respond.js';
import type { DataSource, SchemaLike } from './types.js';
import { assertKnownKeys, assertPlainObject } from './validations.js';

type Next = (err?: unknown) => void;

export interface SearchCollectionOptions<
  C,
  T = unknown,
  Req extends IncomingMessage = IncomingMessage,
> extends Pick<
    CollectionSpec,
    | 'defaultPageSize'
    | 'maxPageSize'
    | 'totals'
    | 'naming'
    | 'unknownParameters'
    | 'allowedParameters'
  > {
  /** Validates the JSON body: a zod schema, or anything with the same `safeParse`. */
  criteria: SchemaLike<C>;
  /** The records matching the validated criteria. */
  source: (criteria: C, req: Req) => DataSource<T> | Promise<DataSource<T>>;
  /** Maps each record to its list (summary) form; gets the request too, for item links. */
  summary?: (item: T, req: Req) => unknown;
  /** Base of every link, as for `paginate`. */
  publicBaseUrl?: string;
}

const SEARCH_KEYS = [
  'criteria',
  'source',
  'summary',
  'publicBaseUrl',
  'defaultPageSize',
  'maxPageSize',
  'totals',
  'naming',
  'unknownParameters',
  'allowedParameters',
] as const;

// RFC 8259 media type, and structured-syntax `+json` types (RFC 6839).
const JSON_MEDIA_TYPE = /^application\/(?:[a-z0-9.+-]+\+)?json\s*(?:;|$)/i;
const PLAIN_JSON = /^application\/json\s*(?:;|$)/i;

/**
 * The search middleware. Mount a JSON body parser before it:
 * `router.post('/search-billing-agreements', express.json(), searchCollection({ criteria, source }))`.
 */
export function searchCollection<C, T = unknown, Req extends IncomingMessage = IncomingMessage>(
  options: SearchCollectionOptions<C, T, Req>,
) {
  const factory = 'searchCollection';
  assertPlainObject(factory, options);
  assertKnownKeys(factory, options, SEARCH_KEYS);
  const { criteria, source } = options;
  if (
    typeof criteria !== 'object' ||
    criteria === null ||
    typeof criteria.safeParse !== 'function'
  ) {
    throw new TypeError(`${factory}: "criteria" must be a schema with safeParse (a zod schema).`);
  }
  if (typeof source !== 'function') {
    throw new TypeError(`${factory}: "source" must be a function (criteria, req) => data source.`);
  }
  const spec = resolveCollectionSpec(factory, {
    defaultPageSize: options.defaultPageSize,
    maxPageSize: options.maxPageSize,
    totals: options.totals,
    naming: options.naming,
    unknownParameters: options.unknownParameters,
    allowedParameters: options.allowedParameters,
  });
  const setup = resolvePageSetup(factory, spec, options);

  return function searchCollectionMiddleware(req: Req, res: ServerResponse, next: Next): void {
    let parsed: C;
    let context: PageContext;
    try {
      context = pageContext(req, setup, 'POST');
      parsed = parseCriteria(req, criteria);
    } catch (error) {
      next(error);
      return;
    }
    answerPage(res, context, () => source(parsed, req), next);
  };
}

function parseCriteria<C>(req: IncomingMessage, schema: SchemaLike<C>): C {
  // No body means no criteria; a body is validated as it is, `null` included.
  let body: unknown = {};
  if (hasBody(req)) {
    const type = req.headers['content-type'];
    if (type === undefined || !JSON_MEDIA_TYPE.test(type)) throw unsupportedCriteria();
    body = parsedBody(req);
    if (body === undefined) {
      // The app's JSON parser left this `+json` type alone: answering without the criteria
      // would search everything.
      if (!PLAIN_JSON.test(type)) throw unsupportedCriteria();
      // A server misconfiguration, not a client error: no JSON parser ran before this middleware.
      throw new TypeError('searchCollection: mount express.json() before the search route.');
    }
  }
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issues = result.error.issues.map((issue) => ({
    code: issue.code ?? 'invalid',
    message: issue.message,
    path: issue.path,
  }));
  throw fromZodError({ issues }, 'The search criteria are invalid.');
}

function unsupportedCriteria(): ApiError {
  return ApiError.unsupportedMediaType('Search criteria must be sent as application/json.', {
    target: 'Content-Type',
    headers: { 'Accept-Post': 'application/json' },
  });
}

/**
 * The body a parser read, or `undefined` when none read the stream. body-parser 1 (Express 4)
 * marks the request with `_body` and leaves `{}` on a request it skips; body-parser 2 (Express 5)
 * leaves `undefined`. A stream read to its end was read by some parser.
 */
function parsedBody(req: IncomingMessage): unknown {
  const marked = req as IncomingMessage & { _body?: unknown; body?: unknown };
  return marked._body === true || req.readableEnded ? marked.body : undefined;
}

function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}
