/**
 * @module HTTP/2 toward the control plane where it offers it, as Go's transport (and so kubectl)
 * does: a new TLS connection offers ALPN `h2` and `http/1.1`; when the server picks `h2` the
 * connection becomes a pooled `ClientHttp2Session` that requests multiplex over. A session is
 * replaced when it closes, fails or receives GOAWAY, gets company when it is full (the server's
 * `SETTINGS_MAX_CONCURRENT_STREAMS`), and is closed after `idleTimeoutMs` without streams. When
 * the server picks HTTP/1.1 (or offers no ALPN) the verdict is kept and `openStream` answers
 * `undefined`, so the caller uses the HTTP/1.1 agent.
 */
import {
  type ClientHttp2Session,
  type ClientHttp2Stream,
  connect as connectHttp2,
  constants,
  type OutgoingHttpHeaders,
} from 'node:http2';
import { type ConnectionOptions, connect as connectTls } from 'node:tls';

/** Go's `http.DefaultTransport.IdleConnTimeout`, which client-go keeps. */
export const DEFAULT_HTTP2_IDLE_TIMEOUT_MS = 90_000;
/** Go's `TLSHandshakeTimeout` in client-go's transport. */
const HANDSHAKE_TIMEOUT_MS = 10_000;
/** Streams assumed allowed until the server's SETTINGS arrive (Go's `initialMaxConcurrentStreams`). */
const INITIAL_MAX_STREAMS = 100;

export interface Http2PoolOptions {
  /** `https:` base URL of the control plane. */
  readonly server: URL;
  /** CA, client certificate, verification and server name, as the HTTP/1.1 agent has them. */
  readonly tls: ConnectionOptions;
  /** TCP keep-alive period in milliseconds; 0 = off. */
  readonly keepAliveMs: number;
  /** Close a session after this long without streams; 0 keeps it until the server closes it. */
  readonly idleTimeoutMs: number;
}

export interface Http2Pool {
  /**
   * Opens a stream on a pooled session, connecting first when needed. Resolves `undefined`
   * when the control plane chose HTTP/1.1; rejects when the connection or the stream fails.
   */
  openStream(
    headers: OutgoingHttpHeaders,
    options: { endStream: boolean },
  ): Promise<ClientHttp2Stream | undefined>;
  /** Sessions open now (for diagnostics and tests). */
  readonly sessionCount: number;
  /** Destroys every session and refuses new streams. */
  close(): void;
}

interface Entry {
  readonly session: ClientHttp2Session;
  active: number;
  settled: boolean;
  idleTimer: NodeJS.Timeout | undefined;
}

/** Errors meaning "this session can take no more streams": try another one. */
const SESSION_GONE = new Set([
  'ERR_HTTP2_INVALID_SESSION',
  'ERR_HTTP2_GOAWAY_SESSION',
  'ERR_HTTP2_OUT_OF_STREAMS',
]);

function closedError(): Error {
  return Object.assign(new Error('the credentials were closed'), {
    code: 'ERR_CREDENTIALS_CLOSED',
  });
}

export function createHttp2Pool(options: Http2PoolOptions): Http2Pool {
  const { server, tls, keepAliveMs, idleTimeoutMs } = options;
  const host = server.hostname.replace(/^\[|\]$/g, '');
  const port = Number(server.port || 443);
  const sessions = new Set<Entry>();
  let pending: Promise<Entry | undefined> | undefined;
  let http1Only = false;
  let closed = false;

  const capacity = (entry: Entry): number =>
    entry.settled
      ? Math.max(1, entry.session.remoteSettings.maxConcurrentStreams ?? INITIAL_MAX_STREAMS)
      : INITIAL_MAX_STREAMS;

  const usable = (entry: Entry): boolean =>
    !entry.session.closed && !entry.session.destroyed && entry.active < capacity(entry);

  const drop = (entry: Entry): void => {
    sessions.delete(entry);
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
  };

  const becameIdle = (entry: Entry): void => {
    entry.session.unref();
    if (idleTimeoutMs <= 0 || !sessions.has(entry)) return;
    entry.idleTimer = setTimeout(() => {
      entry.idleTimer = undefined;
      if (entry.active === 0) {
        drop(entry);
        entry.session.close();
      }
    }, idleTimeoutMs);
    entry.idleTimer.unref();
  };

  const connect = (): Promise<Entry | undefined> =>
    new Promise((resolve, reject) => {
      const socket = connectTls({ ...tls, host, port, ALPNProtocols: ['h2', 'http/1.1'] });
      const onError = (error: Error) => {
        socket.destroy();
        reject(error);
      };
      socket.once('error', onError);
      socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () =>
        socket.destroy(Object.assign(new Error('TLS handshake timed out'), { code: 'ETIMEDOUT' })),
      );
      socket.once('secureConnect', () => {
        socket.setTimeout(0);
        socket.off('error', onError);
        if (closed) {
          socket.destroy();
          reject(closedError());
          return;
        }
        if (socket.alpnProtocol !== 'h2') {
          // HTTP/1.1 chosen: remember it; the agent opens its own connections.
          http1Only = true;
          socket.destroy();
          resolve(undefined);
          return;
        }
        if (keepAliveMs > 0) socket.setKeepAlive(true, keepAliveMs);
        const session = connectHttp2(server.origin, { createConnection: () => socket });
        const entry: Entry = { session, active: 0, settled: false, idleTimer: undefined };
        // The server's SETTINGS is its first frame (RFC 9113 §3.4): wait for it, so the stream
        // limit is known before the session is shared.
        const handshake = setTimeout(
          () =>
            session.destroy(
              Object.assign(new Error('no HTTP/2 SETTINGS from the server'), { code: 'ETIMEDOUT' }),
            ),
          HANDSHAKE_TIMEOUT_MS,
        );
        const ready = () => {
          clearTimeout(handshake);
          session.off('close', notReady);
          session.off('error', notReady);
          if (closed) {
            session.destroy();
            reject(closedError());
            return;
          }
          entry.settled = true;
          sessions.add(entry);
          becameIdle(entry);
          resolve(entry);
        };
        const notReady = (error?: Error) => {
          clearTimeout(handshake);
          session.off('remoteSettings', ready);
          reject(
            error ?? Object.assign(new Error('HTTP/2 session closed'), { code: 'ECONNRESET' }),
          );
        };
        // Without an 'error' listener a broken session would crash the process.
        session.on('error', () => drop(entry));
        session.on('close', () => drop(entry));
        session.on('goaway', () => drop(entry));
        session.once('remoteSettings', ready);
        session.once('close', notReady);
        session.once('error', notReady);
      });
    });

  /** Takes a stream slot on `entry` now, so concurrent waiters cannot overfill it. */
  const reserve = (entry: Entry): Entry => {
    entry.active += 1;
    if (entry.idleTimer !== undefined) clearTimeout(entry.idleTimer);
    entry.idleTimer = undefined;
    entry.session.ref();
    return entry;
  };

  const release = (entry: Entry): void => {
    entry.active -= 1;
    if (entry.active === 0) becameIdle(entry);
  };

  /** A session with a slot reserved for one more stream, connecting when none has room. */
  const acquire = async (): Promise<Entry | undefined> => {
    for (;;) {
      if (closed) throw closedError();
      for (const entry of sessions) if (usable(entry)) return reserve(entry);
      if (http1Only) return undefined;
      if (pending === undefined) {
        pending = connect().finally(() => {
          pending = undefined;
        });
      }
      const entry = await pending;
      if (entry === undefined) return undefined;
      if (usable(entry)) return reserve(entry);
      // Taken by other waiters, or already gone: look again (each round adds a session).
    }
  };

  return {
    async openStream(headers, streamOptions) {
      for (let attempt = 0; ; attempt++) {
        const entry = await acquire();
        if (entry === undefined) return undefined;
        let stream: ClientHttp2Stream;
        try {
          stream = entry.session.request(headers, { endStream: streamOptions.endStream });
        } catch (error) {
          release(entry);
          const code = (error as NodeJS.ErrnoException).code ?? '';
          if (SESSION_GONE.has(code) && attempt === 0) {
            drop(entry);
            continue;
          }
          throw error;
        }
        stream.once('close', () => release(entry));
        return stream;
      }
    },
    get sessionCount() {
      return sessions.size;
    },
    close() {
      closed = true;
      for (const entry of [...sessions]) {
        drop(entry);
        entry.session.destroy(undefined, constants.NGHTTP2_CANCEL);
      }
    },
  };
}

/** The pool behind a credentials object, when it has one (kept out of the public type). */
const pools = new WeakMap<object, Http2Pool>();

export function registerHttp2Pool(owner: object, pool: Http2Pool): void {
  pools.set(owner, pool);
}

export function http2PoolOf(owner: object): Http2Pool | undefined {
  return pools.get(owner);
}
