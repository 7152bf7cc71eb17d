/**
 * @module What the two creating kinds share: the created record's representation with its
 * links, the 201 answer with `Location`, and the GET that reads the record back.
 */
import type { ServerResponse } from 'node:http';
import { sendPreferred } from '@resourceful/prefer-header';
import { makeLink, pathParameter } from './links.js';
import { loaderOr404 } from './not-found.js';
import { sendJson } from './respond.js';
import type {
  Link,
  MaybePromise,
  NotFoundOptions,
  OperationRequest,
  OperationRoute,
} from './types.js';

/** A link to a related resource: its relation and its path relative to the router. */
export interface RelatedLink {
  rel: string;
  /** `/payments/captures/CAPTURE-1`: put after the public base URL and the mount path. */
  path: string;
  /** @default 'GET' */
  method?: string;
}

/** Where the created records are read back: `GET {path}/:id`. */
export interface CreatedRecords<R> {
  /** The collection path of the created records: `/payments/refunds`. */
  path: string;
  load: (id: string, req: OperationRequest) => MaybePromise<R | null | undefined>;
  /** @default { message: 'The resource does not exist.', target: 'id' } */
  notFound?: NotFoundOptions;
}

export interface RecordPresenter<R> {
  records: CreatedRecords<R>;
  idOf: (record: R) => string;
  represent: (record: R, req: OperationRequest) => Record<string, unknown>;
  related?: ((record: R, req: OperationRequest) => readonly RelatedLink[]) | undefined;
  publicBaseUrl?: string | undefined;
}

export function recordLinks<R>(
  presenter: RecordPresenter<R>,
  req: OperationRequest,
  record: R,
): Link[] {
  const { records, idOf, related, publicBaseUrl } = presenter;
  const self = makeLink(
    req,
    `${records.path}/${encodeURIComponent(idOf(record))}`,
    'self',
    'GET',
    publicBaseUrl,
  );
  const others = (related?.(record, req) ?? []).map((link) =>
    makeLink(req, link.path, link.rel, link.method ?? 'GET', publicBaseUrl),
  );
  return [self, ...others];
}

/** The record with its links: `links` is the package's; `represent` leaves it out. */
export function representation<R>(
  presenter: RecordPresenter<R>,
  req: OperationRequest,
  record: R,
): Record<string, unknown> {
  return { ...presenter.represent(record, req), links: recordLinks(presenter, req, record) };
}

/**
 * 201 with `Location` (the `self` link: RFC 9110 §15.3.2 identifies the created resource by it)
 * and the record, or an empty body for `Prefer: return=minimal`.
 */
export function sendCreated<R>(
  presenter: RecordPresenter<R>,
  req: OperationRequest,
  res: ServerResponse,
  record: R,
): void {
  const body = representation(presenter, req, record);
  const links = body.links as Link[];
  res.setHeader('Location', (links[0] as Link).href);
  sendPreferred(req, res, { operation: 'create', body });
}

/** `GET {records.path}/:id`: the record as the 201 sent it. */
export function readBackRoute<R>(presenter: RecordPresenter<R>): OperationRoute {
  const loadOr404 = loaderOr404(presenter.records.load, 'id', presenter.records.notFound);
  return {
    method: 'GET',
    path: `${presenter.records.path}/:id`,
    complexOperation: false,
    handler: function createdRecordMiddleware(req, res, next) {
      loadOr404(pathParameter(req, 'id'), req)
        .then((record) => sendJson(req, res, 200, representation(presenter, req, record)))
        .catch(next);
    },
  };
}
