/**
 * @module Writing the answers: JSON written as the other Resourceful packages write it (through
 * `res.end`, so every wrapper of the response — ETags, compression, negotiation — sees it).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export function sendJson(
  _req: IncomingMessage,
  res: ServerResponse,
  status: number,
  body: unknown,
): void {
  const text: string | undefined = JSON.stringify(body);
  if (text === undefined) {
    // undefined, a function or a symbol: JSON has nothing to write, and an empty 200 would
    // tell the client the operation answered with nothing. A fault of the operation's code.
    throw new TypeError(
      `resource-operations: the answer must be a JSON value, got ${typeof body}.`,
    );
  }
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  // Node sends no body for HEAD, but middleware deriving headers from it (an ETag) sees it.
  res.end(text);
}
