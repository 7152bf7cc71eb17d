/**
 * @module Composite operations (`POST …/{resource}/{id}/{operation}`): a resource created from
 * another, such as a refund of a capture, answered with the created resource and links to
 * itself and to the related resources (spec, "Complex operations").
 *
 * The spec leaves the status open ("not shown"). It is 201 with `Location`: the call creates a
 * resource with its own URI, which RFC 9110 §15.3.2 answers with 201, PayPal's API standards
 * answer their refund with, and the Microsoft REST API guidelines use for any create.
 */
import { conditionalWrite, etagFor, type KeyedLock } from '@resourceful/conditional-requests';
import { assertKnownOptions, assertOptionsObject } from '@resourceful/option-checks';
import {
  assertFunction,
  assertNotFound,
  assertOptionalFunction,
  assertPath,
  assertResourcePath,
  assertSchema,
  assertSegment,
  publicBaseUrlOption,
  writeGuard,
} from './checks.js';
import {
  type CreatedRecords,
  type RecordPresenter,
  type RelatedLink,
  readBackRoute,
  representation,
  sendCreated,
} from './created-record.js';
import { fillPath, makeLink, pathParameter, requestParameters } from './links.js';
import { type Loader, loaderOr404 } from './not-found.js';
import { readBody } from './read-body.js';
import { recordId } from './resource-oriented.js';
import type { StandardSchemaV1 } from './standard-schema.js';
import type { Link, MaybePromise, NotFoundOptions, Operation, OperationRequest } from './types.js';

export interface CompositeContext<P, B> {
  /** The resource the new one is made from, loaded under its lock. */
  source: P;
  body: B;
  req: OperationRequest;
  now: Date;
}

export interface CompositeOperationOptions<P, R, B> {
  /** The source resource's route, ending in its id parameter: `/payments/captures/:id`. */
  resource: string;
  /** The operation's path segment: `refund`. */
  name: string;
  /** Reads the source resource; `undefined` → 404. */
  load: Loader<P>;
  /** @default { message: 'The resource does not exist.', target: the id parameter } */
  notFound?: NotFoundOptions;
  /**
   * The source's representation as its GET sends it: its ETag is what `If-Match` on the
   * operation is compared with (a refund only of the capture version the client saw).
   */
  representSource: (source: P, req: OperationRequest) => unknown;
  /** Schema of the JSON body. Without one, the operation takes no body. */
  body?: StandardSchemaV1<unknown, B>;
  /**
   * Creates and stores the new resource, under the source's lock so that two concurrent calls
   * see each other's result (two refunds cannot together exceed a capture). Throw an `ApiError`
   * to refuse.
   */
  create: (context: CompositeContext<P, B>) => MaybePromise<R>;
  /** Whether the operation is possible now: offered as a link only then. @default always */
  available?: (source: P) => boolean;
  /** Where created resources are read back: `GET {path}/:id`. */
  created: CreatedRecords<R>;
  /** The created resource without links; the package adds `links`. */
  represent: (record: R, req: OperationRequest) => Record<string, unknown>;
  /** Links after `self`: `[{ rel: 'capture', path: `/payments/captures/${refund.capture_id}` }]`. */
  related: (record: R, req: OperationRequest) => readonly RelatedLink[];
  /** @default (record) => record.id */
  id?: (record: R) => string;
  /** @default (source) => source.id */
  sourceId?: (source: P) => string;
  /** Base of every link. @default the request's origin */
  publicBaseUrl?: string;
  /** @default () => new Date() */
  now?: () => Date;
  /** @default conditional-requests' shared lock */
  lock?: KeyedLock;
  /**
   * `create` stores its change of the source only while the stored source is still the one
   * loaded, and throws conditional-requests' `StaleVersionError` otherwise, before creating
   * anything: no in-process lock is taken, so two refunds sent to two instances cannot together
   * exceed a capture. Not together with `lock`.
   * @default false
   */
  compareAndSet?: boolean;
}

export interface CompositeOperation<P, R> extends Operation {
  readonly kind: 'composite';
  /** The operation's link for the source's representation, while `available`; else none. */
  links(req: OperationRequest, source: P): Link[];
  /** A created record as its GET and the 201 send it, links included. */
  representation(req: OperationRequest, record: R): Record<string, unknown>;
}

const FACTORY = 'compositeOperation';
const KNOWN_OPTIONS = [
  'resource',
  'name',
  'load',
  'notFound',
  'representSource',
  'body',
  'create',
  'available',
  'created',
  'represent',
  'related',
  'id',
  'sourceId',
  'publicBaseUrl',
  'now',
  'lock',
  'compareAndSet',
] as const;

/**
 * @example
 * const refund = compositeOperation({
 *   resource: '/payments/captures/:id',
 *   name: 'refund',
 *   load: (id) => captures.get(id),
 *   body: z.object({ amount: Amount }),
 *   create: ({ source, body }) => refunds.add({ capture_id: source.id, amount: body.amount }),
 *   created: { path: '/payments/refunds', load: (id) => refunds.get(id) },
 *   represent: (refund) => refund,
 *   related: (refund) => [{ rel: 'capture', path: `/payments/captures/${refund.capture_id}` }],
 * });
 */
export function compositeOperation<P, R, B = unknown>(
  options: CompositeOperationOptions<P, R, B>,
): CompositeOperation<P, R> {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, KNOWN_OPTIONS);
  const idName = assertResourcePath(FACTORY, 'resource', options.resource);
  const name = assertSegment(FACTORY, 'name', options.name);
  assertFunction(FACTORY, 'load', options.load);
  assertFunction(FACTORY, 'representSource', options.representSource);
  assertSchema(FACTORY, 'body', options.body);
  assertFunction(FACTORY, 'create', options.create);
  assertOptionalFunction(FACTORY, 'available', options.available);
  assertOptionsObject(`${FACTORY}: created`, options.created);
  assertKnownOptions(`${FACTORY}: created`, options.created, ['path', 'load', 'notFound']);
  assertPath(FACTORY, 'created.path', options.created.path);
  assertFunction(FACTORY, 'created.load', options.created.load);
  assertNotFound(FACTORY, 'created.notFound', options.created.notFound);
  assertFunction(FACTORY, 'represent', options.represent);
  assertFunction(FACTORY, 'related', options.related);
  assertOptionalFunction(FACTORY, 'id', options.id);
  assertOptionalFunction(FACTORY, 'sourceId', options.sourceId);
  assertOptionalFunction(FACTORY, 'now', options.now);
  const publicBaseUrl = publicBaseUrlOption(FACTORY, options.publicBaseUrl);
  assertNotFound(FACTORY, 'notFound', options.notFound);

  const guard = writeGuard(FACTORY, options);
  const { resource, body: schema, create, representSource } = options;
  const available = options.available ?? (() => true);
  const sourceIdOf = options.sourceId ?? recordId(FACTORY);
  const now = options.now ?? (() => new Date());
  const loadOr404 = loaderOr404(options.load, idName, options.notFound);
  const presenter: RecordPresenter<R> = {
    records: options.created,
    idOf: options.id ?? recordId(FACTORY),
    represent: options.represent,
    related: options.related,
    publicBaseUrl,
  };

  async function run(req: OperationRequest): Promise<R> {
    const id = pathParameter(req, idName);
    const body = await readBody(schema, req);
    return conditionalWrite(req, {
      // The source's identity, the one its PATCH or PUT locks on.
      identity: id,
      ...guard,
      load: () => loadOr404(id, req),
      etag: (current) => etagFor(representSource(current, req)),
      write: (current) => create({ source: current as P, body, req, now: now() }),
    });
  }

  return {
    kind: 'composite',
    routes: [
      {
        method: 'POST',
        path: `${resource}/${name}`,
        complexOperation: true,
        handler: function compositeOperationMiddleware(req, res, next) {
          run(req)
            .then((record) => sendCreated(presenter, req, res, record))
            .catch(next);
        },
      },
      readBackRoute(presenter),
    ],
    links(req, source) {
      if (!available(source)) return [];
      const values = { ...requestParameters(req), [idName]: sourceIdOf(source) };
      const path = `${fillPath(resource, values)}/${name}`;
      return [makeLink(req, path, name, 'POST', publicBaseUrl)];
    },
    representation: (req, record) => representation(presenter, req, record),
  };
}
