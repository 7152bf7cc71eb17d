/**
 * @module Writing the answers: JSON written as the other Resourceful packages write it (through
 * `res.end`, so every wrapper of the response — ETags, compression, negotiation — sees it), 204,
 * and the one header rule of transient operations.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(
  _req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  // Node sends no body for HEAD, but middleware deriving headers from it (an ETag) sees it.
  res.end(text);
}

/** RFC 9110 §15.3.5: 204 has no content, so neither a body nor Content-Type/Length. */
export function sendNoContent(res: ServerResponse): void {
  res.statusCode = 204;
  res.removeHeader('Content-Type');
  res.removeHeader('Content-Length');
  res.end();
}

/**
 * Drops `ETag` just before the head is written, whoever set it (Express's `res.send`, an ETag
 * middleware). A transient result is not a representation of any resource (RFC 9110 §8.8.3), so
 * a tag would name nothing a client could ask for again. Node writes the head through
 * `writeHead` in every path (`_implicitHeader` calls it), which is where the `on-headers`
 * module hooks as well; one wrapper for one header does not warrant the dependency.
 */
export function omitETag(res: ServerResponse): void {
  const writeHead = res.writeHead;
  res.writeHead = function writeHeadWithoutETag(this: ServerResponse, ...args: unknown[]) {
    this.removeHeader('ETag');
    return Reflect.apply(writeHead, this, args) as ServerResponse;
  } as ServerResponse['writeHead'];
}
