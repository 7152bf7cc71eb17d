/**
 * @module The spec (Limits): a service handles any valid URL, long GETs included, and answers
 * 414 when it cannot. This one reads URLs up to `MAX_URL_LENGTH`; the server's `maxHeaderSize`
 * is set above it, so a longer URL still reaches Express and gets the 414 envelope.
 */
import { ApiError } from '@resourceful/error-envelope';
import type { NextFunction, Request, Response } from 'express';

export const MAX_URL_LENGTH = 8 * 1024;

/** Room for the URL plus ordinary headers; beyond it Node refuses with 431 (clientErrorHandler). */
export const MAX_HEADER_SIZE = 64 * 1024;

export function limitUrlLength(req: Request, _res: Response, next: NextFunction): void {
  if (req.url.length > MAX_URL_LENGTH) {
    next(
      ApiError.uriTooLong(`The request URL is longer than ${MAX_URL_LENGTH} characters.`, {
        innererror: { code: 'URL_TOO_LONG', max_length: MAX_URL_LENGTH },
      }),
    );
    return;
  }
  next();
}
