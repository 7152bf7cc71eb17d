/**
 * @module Read-only computed resources (`GET /v{N}/{namespace}/{read-only-resource}?…`): a body
 * computed from query parameters that are checked the way collection-pagination checks a list's
 * (unknown, repeated, empty or over-long parameters are a 400 naming the parameter), then by a
 * schema.
 *
 * Payload and status are "not shown" in the spec. The answer is 200 with the computed object as
 * the body, no envelope, as for a single resource: a computed resource is a resource (the
 * Microsoft REST API guidelines treat such reads as GET of a resource; PayPal's balances report
 * answers 200 with the object). Being a GET of a representation, it gets the ETag and 304 of
 * conditional-requests when that middleware is mounted.
 */

import { MAX_PARAMETER_LENGTH } from '@resourceful/collection-pagination';
import { ApiError } from '@resourceful/error-envelope';
import { assertKnownOptions, assertOptionsObject, describeValue } from '@resourceful/option-checks';
import { assertFunction, assertPath, assertSchema, invalid as invalidOption } from './checks.js';
import { sendJson } from './respond.js';
import { type StandardSchemaV1, validate } from './standard-schema.js';
import type { MaybePromise, Operation, OperationRequest } from './types.js';

export interface ComputedResourceOptions<Q, Result> {
  /** The resource's path: `/payments/refund-summary`. */
  path: string;
  /** The query parameters the resource reads. Any other is a 400 (`UNKNOWN_PARAMETER`). */
  parameters: readonly string[];
  /**
   * Schema of the parameters, an object of strings (absent parameters are left out): converts
   * and checks them. Without one, `query` is that object as is.
   */
  query?: StandardSchemaV1<unknown, Q>;
  /** The body. Throw an `ApiError` to refuse. */
  compute: (context: { query: Q; req: OperationRequest }) => MaybePromise<Result>;
  /**
   * Parameters accepted and not read here, for middleware that reads them (the spec lets any
   * header arrive as a query parameter: `Prefer`, `Accept`). @default []
   */
  allowedParameters?: readonly string[];
}

export interface ComputedResource extends Operation {
  readonly kind: 'read-only-computed';
}

const FACTORY = 'computedResource';

function invalid(target: string, message: string, code: string): ApiError {
  const clipped = target.length > 64 ? `${target.slice(0, 64)}…` : target;
  return ApiError.invalidRequest(message, { target: clipped, innererror: { code } });
}

function stringList(name: string, value: unknown): readonly string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
    throw invalidOption(
      FACTORY,
      name,
      `"${name}" must be an array of parameter names, got ${describeValue(value)}.`,
    );
  }
  return value as string[];
}

/** The query of the URL as the client sent it: the same parse under Express 4 and 5. */
function readQuery(
  req: OperationRequest,
  read: ReadonlySet<string>,
  allowed: ReadonlySet<string>,
): Record<string, string> {
  const url = req.originalUrl ?? req.url ?? '';
  const start = url.indexOf('?');
  const params = new URLSearchParams(start === -1 ? '' : url.slice(start + 1));
  const query: Record<string, string> = Object.create(null);
  for (const [name, value] of params) {
    if (allowed.has(name)) continue;
    if (!read.has(name)) {
      throw invalid(name, `The query parameter "${name}" is not known here.`, 'UNKNOWN_PARAMETER');
    }
    if (name in query) {
      throw invalid(name, `The query parameter "${name}" is repeated.`, 'REPEATED_PARAMETER');
    }
    if (value === '') {
      throw invalid(name, `The query parameter "${name}" must not be empty.`, 'EMPTY_PARAMETER');
    }
    if (value.length > MAX_PARAMETER_LENGTH) {
      throw invalid(
        name,
        `The query parameter "${name}" is longer than ${MAX_PARAMETER_LENGTH} characters.`,
        'PARAMETER_TOO_LONG',
      );
    }
    query[name] = value;
  }
  // A plain object for the schema: prototype-less objects surprise some validators.
  return { ...query };
}

/**
 * @example
 * const summary = computedResource({
 *   path: '/payments/refund-summary',
 *   parameters: ['currency'],
 *   query: z.object({ currency: z.string().regex(/^[A-Z]{3}$/) }),
 *   compute: ({ query }) => summarise(query.currency),
 * });
 */
export function computedResource<Q = Record<string, string>, Result = unknown>(
  options: ComputedResourceOptions<Q, Result>,
): ComputedResource {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, [
    'path',
    'parameters',
    'query',
    'compute',
    'allowedParameters',
  ]);
  const path = assertPath(FACTORY, 'path', options.path);
  const read = new Set(stringList('parameters', options.parameters));
  const allowed = new Set(
    stringList(
      'allowedParameters',
      options.allowedParameters === undefined ? [] : options.allowedParameters,
    ),
  );
  assertSchema(FACTORY, 'query', options.query);
  assertFunction(FACTORY, 'compute', options.compute);
  const { query: schema, compute } = options;

  async function run(req: OperationRequest): Promise<Result> {
    const raw = readQuery(req, read, allowed);
    const query = schema === undefined ? (raw as Q) : await validate(schema, raw);
    return compute({ query, req });
  }

  return {
    kind: 'read-only-computed',
    routes: [
      {
        method: 'GET',
        path,
        complexOperation: true,
        handler: function computedResourceMiddleware(req, res, next) {
          run(req)
            .then((result) => sendJson(req, res, 200, result))
            .catch(next);
        },
      },
    ],
  };
}
