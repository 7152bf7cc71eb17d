/**
 * @module Bearer tokens, fixed or read from a file that rotates. The kubelet swaps projected
 * service-account tokens by replacing a symlink, so the file is re-read by path on a timer
 * (client-go: one minute), never through a held file descriptor.
 */
import { readFileSync } from 'node:fs';
import {
  assertKnownOptions,
  assertOptionsObject,
  functionOption,
  invalidOption,
  millisecondsOption,
  stringOption,
} from '@resourceful/option-checks';
import { CLUSTER_ERROR_CODES, ClusterConfigError, unreadableFile } from './cluster-errors.js';

/** Where a relay gets the bearer token for the next request. */
export interface TokenSource {
  /** The current token, or `undefined` when none could be read. */
  current(): string | undefined;
  /** Stops the refresh timer, if any. */
  close(): void;
}

/** client-go re-reads token files every minute. */
export const DEFAULT_TOKEN_REFRESH_MS = 60_000;

export function staticTokenSource(token: string): TokenSource {
  if (typeof token !== 'string') invalidOption('staticTokenSource', 'token', 'a string', token);
  const value = token.trim();
  return { current: () => (value === '' ? undefined : value), close: () => {} };
}

export interface FileTokenSourceOptions {
  /** Re-read interval in milliseconds. @default 60000 */
  refreshMs?: number;
  /** Told when a read fails; the last good token stays in use. Never given the token. */
  onWarning?: (message: string) => void;
  /**
   * Sent until the file is first read (client-go's `BearerToken` beside `BearerTokenFile`): with
   * it, a file that cannot be read at start is not an error. Once read, the file's token wins.
   */
  fallback?: string;
}

/**
 * Reads `path` now (throws when it cannot, or holds only whitespace, naming the path only;
 * unless a `fallback` is given), then again every `refreshMs`. Whitespace around the token is
 * trimmed. As client-go's file token source, a failed or empty re-read keeps the last good
 * token. The timer does not keep the process alive.
 */
export function fileTokenSource(path: string, options: FileTokenSourceOptions = {}): TokenSource {
  const factory = 'fileTokenSource';
  if (typeof path !== 'string' || path === '') {
    invalidOption(factory, 'path', 'the path of a token file', path);
  }
  assertOptionsObject(factory, options);
  assertKnownOptions(factory, options, ['refreshMs', 'onWarning', 'fallback']);
  const refreshMs = millisecondsOption(
    factory,
    'refreshMs',
    options.refreshMs,
    DEFAULT_TOKEN_REFRESH_MS,
    { positive: true },
  );
  functionOption(factory, 'onWarning', options.onWarning, 'a function taking a message');
  const fallback = stringOption(factory, 'fallback', options.fallback)?.trim() || undefined;
  const read = (): string => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      throw unreadableFile('token file', path, error);
    }
    const token = text.trim();
    if (token === '') {
      throw new ClusterConfigError(
        CLUSTER_ERROR_CODES.tokenFileEmpty,
        `token file ${path} is empty`,
        path,
      );
    }
    return token;
  };
  let token: string | undefined;
  try {
    token = read();
  } catch (error) {
    if (fallback === undefined) throw error;
    options.onWarning?.(
      `${(error as Error).message}; sending the inline token until it can be read`,
    );
  }
  const timer = setInterval(() => {
    try {
      token = read();
    } catch (error) {
      const keeping = token === undefined ? 'the inline token' : 'the previous token';
      options.onWarning?.(`${(error as Error).message}; keeping ${keeping}`);
    }
  }, refreshMs);
  timer.unref();
  return {
    current: () => token ?? fallback,
    close: () => clearInterval(timer),
  };
}
