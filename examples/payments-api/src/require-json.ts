/**
 * @module Bodies of POST and PUT must be JSON. express.json() silently skips other media types,
 * which would surface as a confusing validation error; this answers 415 instead. PATCH is left to
 * json-patch-update, which answers 415 with `Accept-Patch` listing the patch formats.
 */
import { ApiError } from '@resourceful/error-envelope';
import type { NextFunction, Request, Response } from 'express';

const BODY_METHODS = new Set(['POST', 'PUT']);

export function requireJson(extraTypes: readonly string[] = []) {
  const accepted = ['application/json', ...extraTypes];
  return function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
    const hasBody =
      req.headers['transfer-encoding'] !== undefined ||
      (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
    if (!BODY_METHODS.has(req.method) || !hasBody || req.is(accepted)) {
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
