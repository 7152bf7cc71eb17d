/**
 * @module A `ServerResponse` on an upgrade request's own socket. Node gives upgrade requests no
 * response object; with one, refusals, redirects and error envelopes are written by the same
 * code (error-envelope's `sendError`, Go-style plain errors) as for plain requests. The socket
 * closes once the answer is written.
 *
 * @resourceful/k8s-service-proxy has the same 20 lines, on purpose: the two packages share only
 * k8s-service-proxy's public API, and a response on a raw socket is not part of what that
 * package offers (exported, it would be public surface held to semver for one internal caller).
 */
import { type IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';

export function responseOnSocket(req: IncomingMessage, socket: Duplex): ServerResponse {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket as Socket);
  res.on('finish', () => {
    res.detachSocket(socket as Socket);
    socket.end();
  });
  return res;
}
