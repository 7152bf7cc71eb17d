/**
 * @module One line when a backing service (Redis, PostgreSQL) becomes unreachable and one when
 * it is back, with the number of requests refused meanwhile. An outage is an expected, degraded
 * mode, not a fault: full stack traces stay for real faults.
 */

export interface Logger {
  log(message: string): void;
  warn(message: string): void;
  error(error: unknown): void;
}

export const consoleLogger: Logger = {
  log: (message) => console.log(message),
  warn: (message) => console.warn(message),
  error: (error) => console.error(error),
};

export interface OutageMessages {
  /** The line logged when the service becomes unreachable; `reason` is the error's first line. */
  down(reason: string): string;
  /** The line logged when it is back. */
  back(seconds: string, refused: number): string;
}

export interface OutageLog {
  failed(error: unknown): void;
  succeeded(): void;
  refusedOne(): void;
}

/** A failure-free stretch this long ends an outage (so a failover's flapping is one outage). */
const RECOVERY_QUIET_MS = 2_000;

/** Tracks a service's health from its calls; logs one line per state change. */
export function outageLog(logger: Logger, messages: OutageMessages): OutageLog {
  let down = false;
  let since = 0;
  let lastFailure = 0;
  let refused = 0;
  return {
    failed(error) {
      lastFailure = Date.now();
      if (down) return;
      down = true;
      since = lastFailure;
      refused = 0;
      const reason = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
      logger.warn(messages.down(reason));
    },
    succeeded() {
      if (!down || Date.now() - lastFailure < RECOVERY_QUIET_MS) return;
      down = false;
      logger.log(messages.back(((Date.now() - since) / 1000).toFixed(1), refused));
    },
    refusedOne() {
      refused++;
    },
  };
}
