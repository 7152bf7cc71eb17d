/**
 * @module The REST lists take exactly the filter values the API description gives: a filter on
 * an enum field (`?state=ok`) answers a value outside the enum with a 400 naming the parameter,
 * instead of an empty page. The values come from the description (`enumFilterValues`), as the
 * OpenAPI document's and GraphQL's do, so the three cannot disagree.
 *
 * Collection-pagination filters by any text (it knows names, not schemas), so the check runs
 * before each list route, the history's too (declared by resource-operations).
 */
import { type ApiDescription, enumFilterValues } from '@resourceful/api-description';
import { MAX_PARAMETER_LENGTH } from '@resourceful/collection-pagination';
import { ApiError } from '@resourceful/error-envelope';
import type { NextFunction, Request, Response, Router } from 'express';

/** The code in `innererror` of a refused filter value. */
export const INVALID_FILTER_VALUE = 'INVALID_FILTER_VALUE';

/**
 * Adds, to `router` (the version's router), a check of the enum filters of every list and
 * sub-collection the description has. Mount it before the list routes.
 */
export function checkFilterValues(router: Router, api: ApiDescription): void {
  for (const resource of api.resources) {
    if (resource.list) {
      route(
        router,
        resource.path,
        enumFilterValues(resource.list.summary, resource.list.filterable),
      );
    }
    for (const sub of resource.subCollections) {
      route(
        router,
        `${resource.path}/:id/${sub.name}`,
        enumFilterValues(sub.items.schema, sub.list.filterable),
      );
    }
  }
}

function route(
  router: Router,
  path: string,
  allowed: Readonly<Record<string, readonly string[]>>,
): void {
  const filters = new Map(Object.entries(allowed).map(([name, values]) => [name, new Set(values)]));
  if (filters.size === 0) return;
  const expected = new Map(
    Object.entries(allowed).map(([name, values]) => [name, values.map((v) => `"${v}"`).join(', ')]),
  );
  router.get(path, function checkEnumFilters(req: Request, _res: Response, next: NextFunction) {
    // The raw query, as collection-pagination reads it (repeats kept, Express's parser aside).
    const url = req.originalUrl;
    const start = url.indexOf('?');
    if (start === -1) {
      next();
      return;
    }
    for (const [name, value] of new URLSearchParams(url.slice(start + 1))) {
      const values = filters.get(name);
      // Empty and overlong values are collection-pagination's to refuse, with their own causes.
      if (values === undefined || value === '' || value.length > MAX_PARAMETER_LENGTH) continue;
      if (!values.has(value)) {
        // The client's value is not echoed; the accepted ones are the service's own.
        next(
          ApiError.invalidRequest(
            `The query parameter "${name}" must be one of ${expected.get(name)}.`,
            { target: name, innererror: { code: INVALID_FILTER_VALUE } },
          ),
        );
        return;
      }
    }
    next();
  });
}
