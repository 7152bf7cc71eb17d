/**
 * @module Bodies of POST and PUT must be JSON. express.json() silently skips other media types,
 * which would surface as a confusing validation error; this answers 415 instead. PATCH is left to
 * json-patch-update, which answers 415 with `Accept-Patch` listing the patch formats. POST
 * bodies then get the checks PUT and PATCH bodies get (`checkedJsonBody`).
 */
import { ApiError } from '@resourceful/error-envelope';
import { checkJsonBody, checkKnownFields } from '@resourceful/json-patch-update';
import type { NextFunction, Request, Response } from 'express';

const BODY_METHODS = new Set(['POST', 'PUT']);

/** Whether the request has content (RFC 9112 §6.3: framed by Transfer-Encoding or a length). */
function hasBody(req: Request): boolean {
  return (
    req.headers['transfer-encoding'] !== undefined ||
    (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0')
  );
}

/** Whether a raw header name is `Content-Type`, in any case. */
function isContentTypeName(name: string): boolean {
  // Only names of the right length are lower-cased: the others cost one comparison.
  return name.length === 12 && name.toLowerCase() === 'content-type';
}

/**
 * RFC 9110 §8.3 and §5.3: Content-Type is a singleton field, and two lines of it are not a list
 * but an invalid message; Node keeps the first and drops the second, so which one described the
 * body cannot be known. A request with content and more than one Content-Type line is a 400
 * naming `Content-Type` on every path (REST writes, GraphQL, the relay), before anything reads
 * the body. A request without content is left alone: its Content-Type describes nothing.
 */
export function oneContentType(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req)) {
    next();
    return;
  }
  const raw = req.rawHeaders;
  let seen = false;
  for (let i = 0; i < raw.length; i += 2) {
    if (!isContentTypeName(raw[i]!)) continue;
    if (seen) {
      next(
        ApiError.invalidRequest('The request must carry one Content-Type header, not several.', {
          target: 'Content-Type',
          innererror: { code: 'REPEATED_CONTENT_TYPE' },
        }),
      );
      return;
    }
    seen = true;
  }
  next();
}

export function requireJson(extraTypes: readonly string[] = []) {
  const accepted = ['application/json', ...extraTypes];
  return function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
    if (!BODY_METHODS.has(req.method) || !hasBody(req) || req.is(accepted)) {
      next();
      return;
    }
    next(
      ApiError.unsupportedMediaType(`The request body must be one of: ${accepted.join(', ')}.`, {
        target: 'Content-Type',
      }),
    );
  };
}

/**
 * The checks json-patch-update makes on every PUT and PATCH body (and resource-operations on
 * every action body), for the POST routes declared here: nesting at most 32 levels (400
 * `TOO_DEEP`), no `__proto__`, `constructor` or `prototype` key (400 `FORBIDDEN_KEY`), each
 * naming the key's path in `target`. Without them a create schema that strips unknown keys would
 * drop a `__proto__` key silently and accept any depth, which PUT refuses.
 */
export function checkedJsonBody(req: Request, _res: Response, next: NextFunction): void {
  try {
    checkJsonBody(req.body);
  } catch (error) {
    next(error);
    return;
  }
  next();
}

/**
 * Refuses what a create schema dropped from the body: an unknown field is a 400
 * `VALIDATION_ERROR` naming it (`innererror.code` `UNKNOWN_FIELD`), as PUT, PATCH and the
 * actions' strict schemas answer, rather than a 201 that did not store it. Members of the
 * `representation` about to be answered (`id`, `state`, the times, `links`) are ignored, as PUT
 * ignores them: a client may send back what it read.
 */
export function checkCreateBody(body: unknown, input: unknown, representation: unknown): void {
  checkKnownFields(body, input, { alsoKnown: representation });
}
