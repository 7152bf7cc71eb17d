/**
 * @module Resource-oriented complex operations (`POST /v{N}/{namespace}/{action}`): the call
 * creates a record of itself, answered 201 with `Location` and a `self` link (method GET) that
 * reads it back (spec, "Complex operations").
 */
import { assertKnownOptions, assertOptionsObject } from '@resourceful/option-checks';
import {
  assertFunction,
  assertNotFound,
  assertOptionalFunction,
  assertPath,
  assertSchema,
  publicBaseUrlOption,
} from './checks.js';
import {
  type CreatedRecords,
  type RecordPresenter,
  readBackRoute,
  representation,
  sendCreated,
} from './created-record.js';
import { readBody } from './read-body.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type { MaybePromise, Operation, OperationRequest } from './types.js';

export interface CreateContext<B> {
  body: B;
  req: OperationRequest;
  now: Date;
}

export interface ResourceOrientedOperationOptions<R, B> {
  /** The operation's path, also the collection of its records: `/risk/decisions`. */
  path: string;
  /** Schema of the JSON body. Without one, the operation takes no body. */
  body?: StandardSchemaV1<unknown, B>;
  /** Performs the operation, stores its record and returns it. Throw an `ApiError` to refuse. */
  create: (context: CreateContext<B>) => MaybePromise<R>;
  /** Reads a record back for `GET {path}/:id`; `undefined` when there is none (404). */
  load: CreatedRecords<R>['load'];
  /** The record without links; the package adds `links` (self). */
  represent: (record: R, req: OperationRequest) => Record<string, unknown>;
  /** @default (record) => record.id */
  id?: (record: R) => string;
  /** @default { message: 'The resource does not exist.', target: 'id' } */
  notFound?: CreatedRecords<R>['notFound'];
  /** Base of every link. @default the request's origin */
  publicBaseUrl?: string;
  /** @default () => new Date() */
  now?: () => Date;
}

export interface ResourceOrientedOperation<R> extends Operation {
  readonly kind: 'resource-oriented';
  /** The record as its GET and the 201 send it, links included. */
  representation(req: OperationRequest, record: R): Record<string, unknown>;
}

const FACTORY = 'resourceOrientedOperation';
const KNOWN_OPTIONS = [
  'path',
  'body',
  'create',
  'load',
  'represent',
  'id',
  'notFound',
  'publicBaseUrl',
  'now',
] as const;

export function recordId(factory: string): (record: unknown) => string {
  return (record) => {
    const id = (record as { id?: unknown } | null)?.id;
    if (typeof id !== 'string') {
      throw new TypeError(`${factory}: the record has no string "id"; pass the "id" option.`);
    }
    return id;
  };
}

/**
 * @example
 * const decide = resourceOrientedOperation({
 *   path: '/risk/decisions',
 *   body: z.object({ code: z.string() }),
 *   create: ({ body, now }) => decisions.add({ code: body.code, status: 'APPROVED', create_time: now.toISOString() }),
 *   load: (id) => decisions.get(id),
 *   represent: (decision) => decision,
 * });
 */
export function resourceOrientedOperation<R, B = unknown>(
  options: ResourceOrientedOperationOptions<R, B>,
): ResourceOrientedOperation<R> {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, KNOWN_OPTIONS);
  const path = assertPath(FACTORY, 'path', options.path);
  assertSchema(FACTORY, 'body', options.body);
  assertFunction(FACTORY, 'create', options.create);
  assertFunction(FACTORY, 'load', options.load);
  assertFunction(FACTORY, 'represent', options.represent);
  assertOptionalFunction(FACTORY, 'id', options.id);
  assertOptionalFunction(FACTORY, 'now', options.now);
  const publicBaseUrl = publicBaseUrlOption(FACTORY, options.publicBaseUrl);
  assertNotFound(FACTORY, 'notFound', options.notFound);
  const now = options.now ?? (() => new Date());
  const presenter: RecordPresenter<R> = {
    records: { path, load: options.load, notFound: options.notFound },
    idOf: options.id ?? recordId(FACTORY),
    represent: options.represent,
    publicBaseUrl,
  };
  const { body: schema, create } = options;

  return {
    kind: 'resource-oriented',
    routes: [
      {
        method: 'POST',
        path,
        complexOperation: true,
        handler: function resourceOrientedOperationMiddleware(req, res, next) {
          readBody(schema, req)
            .then((body) => create({ body, req, now: now() }))
            .then((record) => sendCreated(presenter, req, res, record))
            .catch(next);
        },
      },
      readBackRoute(presenter),
    ],
    representation: (req, record) => representation(presenter, req, record),
  };
}
