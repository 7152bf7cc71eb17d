/**
 * @module The relay as a building block: send a request (or an upgrade) to a path of the control
 * plane with the credential resolver's credential, and stream the answer back. `serviceProxy()`
 * is built on it, and so is `@resourceful/k8s-local-proxy` (the `kubectl proxy` compatible CLI),
 * which routes and filters requests itself and then hands them here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ApiError, sendError } from '@resourceful/error-envelope';
import {
  assertKnownOptions,
  assertOptionsObject,
  millisecondsOption,
  oneOfOption,
} from '@resourceful/option-checks';
import type { ClusterCredentials } from './cluster-credentials.js';
import { credentialsOption } from './option-values.js';
import { relayRequest, relayUpgrade } from './relay.js';
import { responseOnSocket } from './socket-response.js';

export interface ControlPlaneRelayOptions {
  /** How to reach the control plane (`findClusterCredentials()` / `createClusterCredentials()`). */
  credentials: ClusterCredentials;
  /**
   * `strip` (default): the client's `Authorization`, `Cookie`, `Impersonate-*` and `X-Remote-*`
   * headers are dropped and the relay's credential is always used. `pass-through` (what
   * `kubectl proxy` does): the client's own `Authorization` goes upstream instead of ours.
   * @default 'strip'
   */
  clientCredentials?: 'strip' | 'pass-through';
  /** Idle timeout toward the control plane in ms; 504 when it passes. 0 waits forever. @default 0 */
  timeoutMs?: number;
}

export interface ControlPlaneRelay {
  /**
   * Relays `req` to `path` (encoded, with query). A failure before the answer started (no
   * credential, control plane unreachable) reaches `onError` once as an ApiError; pass it to
   * `next(error)` or error-envelope's `sendError`.
   */
  request(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    onError: (error: ApiError) => void,
  ): void;
  /**
   * Relays an upgrade (WebSocket, SPDY). Failures are written on the socket with error-envelope's
   * `sendError` unless `onError` is given.
   */
  upgrade(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    path: string,
    onError?: (error: ApiError) => void,
  ): void;
}

const FACTORY = 'controlPlaneRelay';
const OPTION_NAMES = ['credentials', 'clientCredentials', 'timeoutMs'];

export function controlPlaneRelay(options: ControlPlaneRelayOptions): ControlPlaneRelay {
  assertOptionsObject(FACTORY, options);
  assertKnownOptions(FACTORY, options, OPTION_NAMES);
  const credentials = credentialsOption(FACTORY, options.credentials);
  const clientCredentials = oneOfOption(
    FACTORY,
    'clientCredentials',
    options.clientCredentials,
    ['strip', 'pass-through'] as const,
    'strip',
  );
  const timeoutMs = millisecondsOption(FACTORY, 'timeoutMs', options.timeoutMs, 0);
  const policy = { credentials, clientCredentials, timeoutMs } as const;
  return {
    request(req, res, path, onError) {
      relayRequest(req, res, path, policy, onError);
    },
    upgrade(req, socket, head, path, onError) {
      relayUpgrade(
        req,
        socket,
        head,
        path,
        policy,
        onError ??
          ((error) => {
            if (socket.writable) sendError(responseOnSocket(req, socket), error);
            else socket.destroy();
          }),
      );
    },
  };
}
