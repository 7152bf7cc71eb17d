/**
 * @module Bearer tokens, fixed or read from a file that rotates. The kubelet swaps projected
 * service-account tokens by replacing a symlink, so the file is re-read by path on a timer
 * (client-go: one minute), never through a held file descriptor.
 */
import { readFileSync } from 'node:fs';

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
  const value = token.trim();
  return { current: () => (value === '' ? undefined : value), close: () => {} };
}

export interface FileTokenSourceOptions {
  /** Re-read interval in milliseconds. @default 60000 */
  refreshMs?: number;
  /** Told when a re-read fails; the last good token stays in use. Never given the token. */
  onWarning?: (message: string) => void;
}

/**
 * Reads `path` now (throws when it cannot, naming the path only), then again every `refreshMs`.
 * Whitespace around the token is trimmed. The timer does not keep the process alive.
 */
export function fileTokenSource(path: string, options: FileTokenSourceOptions = {}): TokenSource {
  const refreshMs = options.refreshMs ?? DEFAULT_TOKEN_REFRESH_MS;
  if (!Number.isFinite(refreshMs) || refreshMs <= 0) {
    throw new RangeError('refreshMs must be a positive number of milliseconds');
  }
  const read = (): string => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
      throw new Error(`cannot read token file ${path} (${code})`);
    }
    return text.trim();
  };
  let token = read();
  const timer = setInterval(() => {
    try {
      token = read();
    } catch (error) {
      options.onWarning?.(`${(error as Error).message}; keeping the previous token`);
    }
  }, refreshMs);
  timer.unref();
  return {
    current: () => (token === '' ? undefined : token),
    close: () => clearInterval(timer),
  };
}
