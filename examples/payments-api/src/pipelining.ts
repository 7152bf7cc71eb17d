/**
 * @module Pipelined requests one at a time. Node parses every request a client pipelines on a
 * connection and hands them all to the app at once; it writes the answers in order, but with a
 * database behind the routes a later request (a DELETE) can be processed before an earlier one
 * (a GET of the same record) has read. RFC 9112 §9.3.2 allows parallel processing only for a
 * run of safe requests; the simplest correct rule is to start each request on a connection when
 * the previous one there has been answered.
 *
 * Node already keeps that order for the answers: a response gets the connection's socket
 * (`res.socket`) only once every earlier response on it has finished, and it emits `socket` then
 * (node:_http_server's `resOnFinish` hands the socket to the next queued response). So a request
 * whose response has its socket is the only one in progress on its connection, which is the
 * common case (no pipelining) and costs nothing here; a pipelined one waits for its socket, or
 * for the connection to close (which destroys it).
 */
import type { NextFunction, Request, Response } from 'express';

export function oneRequestAtATimePerConnection(
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  const connection = req.socket;
  if (res.socket !== null || connection.destroyed) {
    next();
    return;
  }
  function start(): void {
    res.off('socket', start);
    req.off('close', start);
    // After the earlier response's other `finish` listeners, as a promise continuation would.
    queueMicrotask(() => next());
  }
  res.on('socket', start);
  // A closed connection destroys the requests still waiting on it (node:_http_server's
  // abortIncoming); listening on each request, not on the socket, keeps a deep pipeline from
  // piling listeners on one emitter.
  req.on('close', start);
}
