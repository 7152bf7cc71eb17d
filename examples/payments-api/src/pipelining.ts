/**
 * @module Pipelined requests one at a time. Node parses every request a client pipelines on a
 * connection and hands them all to the app at once; it writes the answers in order, but with a
 * database behind the routes a later request (a DELETE) can be processed before an earlier one
 * (a GET of the same record) has read. RFC 9112 §9.3.2 allows parallel processing only for a
 * run of safe requests; the simplest correct rule is to start each request on a connection when
 * the previous one there has been answered.
 */
import type { Socket } from 'node:net';
import type { NextFunction, Request, Response } from 'express';

const previousOnSocket = new WeakMap<Socket, Promise<void>>();

function answered(res: Response): Promise<void> {
  return new Promise((resolve) => {
    if (res.writableFinished || res.destroyed) {
      resolve();
      return;
    }
    res.once('finish', () => resolve());
    res.once('close', () => resolve());
  });
}

export function oneRequestAtATimePerConnection(
  req: Request,
  res: Response,
  next: NextFunction,
): void {
  const socket = req.socket;
  const previous = previousOnSocket.get(socket);
  const mine = answered(res);
  previousOnSocket.set(socket, mine);
  if (previous === undefined) {
    next();
    return;
  }
  previous.then(() => next());
}
