/**
 * @module The shapes every operation kind shares: the request members read, the routes a
 * declaration contributes, the links it offers.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** The members an Express request adds that operations read; all optional for node:http typing. */
export interface OperationRequest extends IncomingMessage {
  params?: Record<string, string | string[] | undefined>;
  body?: unknown;
  baseUrl?: string;
  originalUrl?: string;
}

export type Next = (err?: unknown) => void;

export type OperationHandler = (req: OperationRequest, res: ServerResponse, next: Next) => void;

/** The five kinds of the spec's "Complex operations" table that take a declaration here. */
export type OperationKind =
  | 'sub-resource-action'
  | 'resource-oriented'
  | 'composite'
  | 'transient'
  | 'read-only-computed';

/** One route a declaration adds to the router it is mounted on. */
export interface OperationRoute {
  method: 'GET' | 'POST';
  /** Relative to the router, Express syntax: `/payments/billing-agreements/:id/suspend`. */
  path: string;
  handler: OperationHandler;
  /**
   * True for the route that names an operation (a verb or singular last segment the route
   * checker must accept); false for plain reads such as a history or a created record.
   */
  complexOperation: boolean;
}

/** A declared operation: what `mountOperations` registers. */
export interface Operation {
  readonly kind: OperationKind;
  readonly routes: readonly OperationRoute[];
}

/** A HATEOAS link as the spec's resources carry them. */
export interface Link {
  href: string;
  rel: string;
  method: string;
}

/** A missing resource's 404: the message and the path parameter it names. */
export interface NotFoundOptions {
  /** @default 'The resource does not exist.' */
  message?: string;
  /** @default the path parameter's name */
  target?: string;
}

export type MaybePromise<T> = T | Promise<T>;
