/**
 * @module A query parameter whose name has a `__proto__`, `constructor` or `prototype` segment
 * (`__proto__`, `__proto__[x]`, `a[constructor][prototype]`, `a.__proto__`, percent-encoded or
 * not) is 400 `INVALID_REQUEST` naming it (`innererror.code` `FORBIDDEN_KEY`), on every path,
 * before anything reads the query. The rule bodies follow (json-patch-update's `checkJsonBody`,
 * the same three names), so a client hears the same refusal from either; without it a list
 * refused the name as unknown, while a read, a PATCH, a DELETE or an action ignored it and ran,
 * and Express 4's query parser (qs) dropped such keys silently. Nothing reaches a prototype
 * either way; this makes the answer say so instead of acting on a request that carried them.
 */
import { ApiError } from '@resourceful/error-envelope';
import { FORBIDDEN_SEGMENTS } from '@resourceful/json-patch-update';
import type { NextFunction, Request, Response } from 'express';

/** The segments of a query parameter name as qs reads them: `a[b][c]`, `a.b`. */
const NAME_SEGMENTS = /[[\].]/;

/** Whether the raw query could hold a forbidden name: a cheap test before parsing it. */
function mayHoldForbiddenName(query: string): boolean {
  return query.includes('proto') || query.includes('constructor') || query.includes('%');
}

/** The first query parameter name with a forbidden segment, or undefined. */
export function forbiddenQueryName(url: string): string | undefined {
  const mark = url.indexOf('?');
  if (mark === -1) return undefined;
  const query = url.slice(mark + 1);
  if (!mayHoldForbiddenName(query)) return undefined;
  for (const name of new URLSearchParams(query).keys()) {
    if (name.split(NAME_SEGMENTS).some((segment) => FORBIDDEN_SEGMENTS.has(segment))) return name;
  }
  return undefined;
}

export function refuseForbiddenQueryNames(req: Request, _res: Response, next: NextFunction): void {
  const name = forbiddenQueryName(req.url);
  if (name === undefined) {
    next();
    return;
  }
  next(
    ApiError.invalidRequest(`The query parameter "${name}" is not allowed.`, {
      target: name,
      innererror: { code: 'FORBIDDEN_KEY' },
    }),
  );
}
