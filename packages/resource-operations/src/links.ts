/**
 * @module Absolute links to the operations and records a declaration serves, built like the
 * collection links of `@resourceful/collection-pagination`: from a configured public base URL, or
 * from the request's trust-proxy-aware protocol and host, and the router's mount path.
 */
import { requestUrl } from '@resourceful/collection-pagination';
import type { Link, OperationRequest } from './types.js';

/** The path with its parameters filled in, each percent-encoded as one segment. */
export function fillPath(path: string, values: Readonly<Record<string, string>>): string {
  return path
    .split('/')
    .map((segment) =>
      segment.startsWith(':') ? encodeURIComponent(values[segment.slice(1)] ?? '') : segment,
    )
    .join('/');
}

/**
 * `publicBaseUrl` (or the request's origin) + the mount path of the router the request went
 * through (`req.baseUrl`, `/v1` under `versionedRouter`) + `path`.
 * @throws ApiError 400 when the request's Host is not a valid host (it would end up in the link)
 */
export function absoluteHref(req: OperationRequest, path: string, publicBaseUrl?: string): string {
  let base = publicBaseUrl;
  if (base === undefined) {
    const url = requestUrl(req);
    base = `${url.protocol}//${url.host}`;
  }
  return `${base}${req.baseUrl ?? ''}${path}`;
}

export function makeLink(
  req: OperationRequest,
  path: string,
  rel: string,
  method: string,
  publicBaseUrl: string | undefined,
): Link {
  return { href: absoluteHref(req, path, publicBaseUrl), rel, method };
}

/**
 * The request's path parameters as strings, for links of nested resources
 * (`/customers/:customer_id/cards/:id`): the parent's id comes from the request.
 */
export function requestParameters(req: OperationRequest): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of Object.keys(req.params ?? {})) values[name] = pathParameter(req, name);
  return values;
}

/** The one value of a path parameter (Express 5 gives arrays for wildcards only). */
export function pathParameter(req: OperationRequest, name: string): string {
  const value = req.params?.[name];
  return Array.isArray(value) ? value.join('/') : (value ?? '');
}
