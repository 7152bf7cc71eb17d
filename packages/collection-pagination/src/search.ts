/**
 * @module `searchCollection(options)`: the search complex operation (spec: "Complex operations",
 * Search). `POST /v{N}/{namespace}/{search-resource}` with criteria in a JSON body, `page` and
 * `page_size` in the query, answered with the collection envelope whose links use `POST`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError, fromZodError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  invalidOption,
  OPTION_ERROR_CODES,
  optionError,
  requiredFunctionOption,
} from '@resourceful/option-checks';
import typeis from 'type-is';
import { type CollectionSpec, resolveCollectionSpec } from './collection-spec.js';
import { pageContext, resolvePageSetup } from './page-context.js';
import { answerPage, isThenable, type PageContext } from './respond.js';
import { isStandardSchema, type StandardSchemaV1, standardIssues } from './standard-schema.js';
import type { DataSource } from './types.js';

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
  /**
   * Validates the JSON body: any Standard Schema (zod 3.24+ and 4, valibot 1, ArkType 2 …); its
   * output is what `source` gets.
   */
  criteria: StandardSchemaV1<unknown, C>;
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
const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

/**
 * The search middleware. Mount a JSON body parser before it:
 * `router.post('/search-billing-agreements', express.json(), searchCollection({ criteria, source }))`.
 */
export function searchCollection<C, T = unknown, Req extends IncomingMessage = IncomingMessage>(
  options: SearchCollectionOptions<C, T, Req>,
) {
  const factory = 'searchCollection';
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, SEARCH_KEYS);
  const { criteria } = options;
  if (criteria === undefined) {
    throw optionError(
      OPTION_ERROR_CODES.missingOption,
      factory,
      '"criteria" is required and must be a Standard Schema (a zod, valibot or ArkType schema).',
      'criteria',
    );
  }
  if (!isStandardSchema(criteria)) {
    invalidOption(
      factory,
      'criteria',
      'a Standard Schema (a zod, valibot or ArkType schema)',
      criteria,
    );
  }
  const source = requiredFunctionOption(
    factory,
    'source',
    options.source,
    'a function (criteria, req) => data source',
  );
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
    let context: PageContext;
    let body: unknown;
    try {
      context = pageContext(req, setup, 'POST');
      body = criteriaBody(req);
    } catch (error) {
      next(error);
      return;
    }
    answerPage(
      res,
      context,
      () => {
        // A synchronous schema (zod, valibot) keeps the whole answer free of promise round trips.
        const validated = validateCriteria(criteria, body);
        return isThenable(validated)
          ? Promise.resolve(validated).then((parsed) => source(parsed, req))
          : source(validated, req);
      },
      next,
    );
  };
}

/** The JSON body the app's parser read; `{}` (no criteria) when the request has no body. */
function criteriaBody(req: IncomingMessage): unknown {
  // No body means no criteria; a body is validated as it is, `null` included.
  if (!typeis.hasBody(req) || req.headers['content-length'] === '0') return {};
  if (typeis(req, JSON_MEDIA_TYPES) === false) throw unsupportedCriteria();
  const body = parsedBody(req);
  if (body !== undefined) return body;
  // The app's JSON parser left this `+json` type alone: answering without the criteria would
  // search everything.
  if (typeis(req, ['application/json']) === false) throw unsupportedCriteria();
  // A server misconfiguration, not a client error: no JSON parser ran before this middleware.
  throw new TypeError('searchCollection: mount express.json() before the search route.');
}

/** The criteria as the schema outputs them; a promise only for an asynchronous schema. */
function validateCriteria<C>(schema: StandardSchemaV1<unknown, C>, body: unknown): C | Promise<C> {
  const result = schema['~standard'].validate(body);
  return isThenable(result) ? Promise.resolve(result).then(criteriaOf) : criteriaOf(result);
}

function criteriaOf<C>(result: StandardSchemaV1.Result<C>): C {
  if (result.issues === undefined) return result.value;
  throw fromZodError({ issues: standardIssues(result.issues) }, 'The search criteria are invalid.');
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
