/**
 * @module One stderr line per request the proxy could not relay, saying why, as kubectl proxy
 * logs "Error while proxying request: x509: …". The reason is the low-level error the relay
 * keeps as the ApiError's `cause` (a TLS, DNS or socket error: its message and code), or the
 * ApiError's own message (a failed credential plugin). The client's envelope is unchanged: the
 * reason goes to the operator's log only.
 *
 * A control plane that stays broken fails every request the same way, so a reason already
 * logged is held back for `quietMs`; the next line for it says how many were held back. Nothing
 * runs on the path of a request that succeeds.
 */
import type { ErrorReport } from '@resourceful/error-envelope';

/** How long the same reason stays quiet after it was logged. */
export const FAILURE_LOG_QUIET_MS = 10_000;
/** Reasons remembered at once; past this the memory starts over (a log line may repeat early). */
const MAX_REASONS = 100;

export interface FailureLogOptions {
  /** @default 10000 */
  quietMs?: number;
  /** @default Date.now */
  now?: () => number;
}

interface Seen {
  loggedAt: number;
  heldBack: number;
}

/** Why the request failed, on one line. */
function reasonOf(report: ErrorReport): string {
  const { error } = report;
  const cause = error.cause as (Error & { code?: unknown }) | undefined;
  const inner = error.innererror?.code;
  const prefix = `${error.status} ${typeof inner === 'string' ? inner : error.code}`;
  const code = cause instanceof Error && typeof cause.code === 'string' ? ` (${cause.code})` : '';
  const why = cause instanceof Error ? cause.message : error.message;
  return `${prefix}: ${why}${code}`.replace(/\s*[\r\n]+\s*/g, ' ');
}

/** An `onError` for error-envelope's `sendError` that writes faults to `write`, one line each. */
export function createFailureLog(
  write: (line: string) => void,
  options: FailureLogOptions = {},
): (report: ErrorReport) => void {
  const quietMs = options.quietMs ?? FAILURE_LOG_QUIET_MS;
  const now = options.now ?? Date.now;
  const seen = new Map<string, Seen>();
  return function logFailure(report) {
    if (!report.fault) return;
    const reason = reasonOf(report);
    const time = now();
    const last = seen.get(reason);
    if (last !== undefined && time - last.loggedAt < quietMs) {
      last.heldBack += 1;
      return;
    }
    if (last === undefined && seen.size >= MAX_REASONS) seen.clear();
    const path = (report.req?.url ?? '').split('?')[0];
    const method = report.req?.method ?? '';
    const held =
      last !== undefined && last.heldBack > 0
        ? ` (${last.heldBack} more like it in the last ${Math.round((time - last.loggedAt) / 1000)} s)`
        : '';
    seen.set(reason, { loggedAt: time, heldBack: 0 });
    write(`error: proxying ${method} ${path} failed: ${reason}${held}\n`);
  };
}
