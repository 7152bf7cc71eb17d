/**
 * @module The spec (Limits): a service handles any valid URL, long GETs included, and answers
 * 414 when it cannot. This one serves URLs up to `MAX_URL_LENGTH`. Node's parser counts the
 * request line and the headers together against `maxHeaderSize`, set above it so that URLs over
 * the limit still reach Express's 414; a request line past even that gets the 414 envelope from
 * `answerUrlOverflow`, and headers past it the error envelope's 431.
 */
import type { Server } from 'node:http';
import { answerUrlOverflow, limitUrlLength as urlLimit } from '@resourceful/http-conventions';

/** 64 KiB: RFC 9110 §4.1 asks for at least 8000 octets; long GET filters fit. */
export const MAX_URL_LENGTH = 64 * 1024;

/** The URL plus 32 KiB of ordinary headers. */
export const MAX_HEADER_SIZE = MAX_URL_LENGTH + 32 * 1024;

export const limitUrlLength = urlLimit({ maxLength: MAX_URL_LENGTH });

/**
 * Answers a request line past `maxHeaderSize` with the 414 envelope too, taking over the
 * `clientError` listener of `attachServerErrorHandlers` for everything else (server-limits.ts).
 */
export function answerLongUrls<T extends Server>(server: T): T {
  return answerUrlOverflow(server, { maxLength: MAX_URL_LENGTH });
}
