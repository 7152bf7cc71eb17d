/**
 * @module Transient operations (`POST /v{N}/{namespace}/{action}`): a result computed from the
 * body, 200, nothing stored, so no `Location` and no `ETag` (spec, "Complex operations": keeps no
 * client state, creates nothing). No code removes a tag: the answer is written with `res.end`,
 * which Express does not tag, and `conditionalRequests()` derives none for a POST 200 (the
 * result of an action, RFC 9110 §9.3.3), first answer and `Service-Request-Id` replay alike.
 */
import { assertKnownOptions, assertOptionsObject } from '@resourceful/option-checks';
import { assertFunction, assertPath, assertSchema } from './checks.js';
import { readBody } from './read-body.js';
import { sendJson } from './respond.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type { MaybePromise, Operation, OperationRequest } from './types.js';

export interface TransientOperationOptions<B, Result> {
  /** The operation's path: `/risk/evaluate`. */
  path: string;
  /** Schema of the JSON body. Without one, the operation takes no body. */
  body?: StandardSchemaV1<unknown, B>;
  /** The result: must not change anything. Throw an `ApiError` to refuse. */
  compute: (context: { body: B; req: OperationRequest }) => MaybePromise<Result>;
}

export interface TransientOperation extends Operation {
  readonly kind: 'transient';
}

const FACTORY = 'transientOperation';

/**
 * @example
 * const evaluate = transientOperation({
 *   path: '/risk/evaluate',
 *   body: z.object({ code: z.string() }),
 *   compute: ({ body }) => ({ status: rules.check(body.code) }),
 * });
 */
export function transientOperation<B = unknown, Result = unknown>(
  options: TransientOperationOptions<B, Result>,
): TransientOperation {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, ['path', 'body', 'compute']);
  const path = assertPath(FACTORY, 'path', options.path);
  assertSchema(FACTORY, 'body', options.body);
  assertFunction(FACTORY, 'compute', options.compute);
  const { body: schema, compute } = options;
  return {
    kind: 'transient',
    routes: [
      {
        method: 'POST',
        path,
        complexOperation: true,
        handler: function transientOperationMiddleware(req, res, next) {
          readBody(schema, req)
            .then((body) => compute({ body, req }))
            .then((result) => sendJson(req, res, 200, result))
            .catch(next);
        },
      },
    ],
  };
}
