/**
 * @module One way for the Redis store to send a command, whether it was given one endpoint
 * (`createClient`) or a Redis Cluster (`createCluster`): commands name the key they are about,
 * so the cluster client routes them to the slot's primary and follows MOVED and ASK itself.
 */

/**
 * The few members of a Redis client the store uses. A node-redis v4/v5 client from
 * `createClient()` fits; so does anything with a `sendCommand(args)` that answers RESP2 replies
 * as strings, numbers, arrays and null.
 */
export interface RedisClientLike {
  sendCommand(args: string[]): Promise<unknown>;
  /** When present and false, commands fail at once instead of waiting in an offline queue. */
  readonly isReady?: boolean;
  /** `error` (the store adds a listener so a lost Redis never crashes the process), `ready`. */
  on?(event: 'error' | 'ready', listener: (error?: Error) => void): unknown;
  /** When present, the `ready` listener is removed once no store on the client needs it. */
  off?(event: 'ready', listener: () => void): unknown;
}

/**
 * The few members of a Redis Cluster client the store uses: node-redis's `createCluster()`
 * (v5) fits. `sendCommand(firstKey, isReadonly, args)` sends to the primary of `firstKey`'s
 * slot.
 */
export interface RedisClusterLike {
  sendCommand(
    firstKey: string | undefined,
    isReadonly: boolean | undefined,
    args: string[],
  ): Promise<unknown>;
  /** When present and false, the cluster client was closed or never connected. */
  readonly isOpen?: boolean;
  /** `error` (as for a client), `connect` (the topology was read). */
  on?(event: 'error' | 'connect', listener: (error?: Error) => void): unknown;
  /** When present, the `connect` listener is removed once no store on it needs it. */
  off?(event: 'connect', listener: () => void): unknown;
}

/** Error for a command that did not run: client not ready, or no answer in time. */
export class RedisStoreUnavailableError extends Error {
  override readonly name: string = 'RedisStoreUnavailableError';
  /** How long the store expects to stay unavailable, when it knows. */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options: { retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.retryAfterMs = options.retryAfterMs;
  }
}

export interface Connection {
  /** Sends `args` to the node holding `key`. */
  send(key: string, args: string[]): Promise<unknown>;
  /** False when commands cannot be sent at all right now. */
  ready(): boolean;
  /** After a failure that was not a Redis error reply: let a cluster client re-read the slots. */
  failed(error: unknown): void;
}

interface Waiting {
  readonly deadline: number;
  readonly reject: (error: unknown) => void;
  settled: boolean;
}

/**
 * Fails commands that get no answer within `ms`. One timer for every command in flight, not a
 * timer armed and cleared per command: all wait the same time, so their deadlines come in the
 * order they were sent, and the timer only ever waits for the oldest unanswered one. A command
 * still fails `ms` after it was sent, as with a timer of its own.
 */
function deadlines(ms: number): <T>(promise: Promise<T>) => Promise<T> {
  const queue: Waiting[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;

  function expire(): void {
    timer = undefined;
    const now = performance.now();
    let index = 0;
    for (; index < queue.length; index++) {
      const waiting = queue[index]!;
      if (waiting.settled) continue;
      if (waiting.deadline > now) break;
      waiting.settled = true;
      waiting.reject(new RedisStoreUnavailableError(`Redis did not answer within ${ms} ms`));
    }
    queue.splice(0, index);
    if (queue.length > 0) arm(queue[0]!.deadline - now);
  }

  function arm(delay: number): void {
    // Unreferenced: a command in flight has a connection that keeps the process running.
    timer = setTimeout(expire, Math.max(0, delay));
    timer.unref();
  }

  return function withDeadline<T>(promise: Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      // The monotonic clock, as a timer of its own would count: a change of the wall clock
      // must not move a deadline.
      const waiting: Waiting = { deadline: performance.now() + ms, reject, settled: false };
      queue.push(waiting);
      if (timer === undefined) arm(ms);
      promise.then(
        (value) => {
          waiting.settled = true;
          resolve(value);
        },
        (error: unknown) => {
          waiting.settled = true;
          reject(error);
        },
      );
    });
  };
}

/**
 * node-redis's cluster client re-reads the slot map only when a node answers MOVED or ASK
 * (redis/node-redis#2806): when a primary dies, nobody answers, and it would send that primary's
 * slots to the dead address forever, even after a replica took over. Ask it to rediscover after
 * a connection failure, at most once per `REDISCOVER_INTERVAL_MS`. It reaches into the client's
 * slot map (`_slots.rediscover`, declared on its type, not documented); a client without it is
 * left alone.
 */
interface RediscoveringCluster {
  readonly _slots?: { rediscover?: (startWith: unknown) => Promise<void> };
  readonly masters?: readonly { readonly client?: { readonly isReady?: boolean } }[];
}

const REDISCOVER_INTERVAL_MS = 250;

function isErrorReply(error: unknown): boolean {
  // node-redis's class for "-ERR …" answers: the server answered, so the topology is known.
  return error instanceof Error && error.constructor.name === 'ErrorReply';
}

export function clientConnection(client: RedisClientLike, timeoutMs: number): Connection {
  const withDeadline = deadlines(timeoutMs);
  return {
    send: (_key, args) => withDeadline(client.sendCommand(args)),
    ready: () => client.isReady !== false,
    failed: () => undefined,
  };
}

export function clusterConnection(cluster: RedisClusterLike, timeoutMs: number): Connection {
  let lastRediscovery = 0;
  const withDeadline = deadlines(timeoutMs);
  return {
    send: (key, args) => withDeadline(cluster.sendCommand(key, false, args)),
    ready: () => cluster.isOpen !== false,
    failed(error) {
      if (isErrorReply(error) && !String((error as Error).message).startsWith('CLUSTERDOWN')) {
        return;
      }
      const now = Date.now();
      if (now - lastRediscovery < REDISCOVER_INTERVAL_MS) return;
      lastRediscovery = now;
      const { _slots: slots, masters = [] } = cluster as RediscoveringCluster;
      const live = masters.find((master) => master.client?.isReady === true)?.client;
      if (slots?.rediscover === undefined || live === undefined) return;
      slots.rediscover(live).catch(() => undefined);
    },
  };
}
