/**
 * The one-line failure log: what a line says, and how a reason repeated by a control plane that
 * stays broken is held back (the clock is injected; the proxy's own use is in
 * kubectl-credentials-differential.test.ts, against kubectl's log).
 */
import type { IncomingMessage } from 'node:http';
import { ApiError, type ErrorReport } from '@resourceful/error-envelope';
import { describe, expect, it } from 'vitest';
import { createFailureLog } from '../src/failure-log.js';

function tlsFailure(host: string): ApiError {
  const cause = Object.assign(
    new Error(`Hostname/IP does not match certificate's altnames: Host: ${host}.`),
    { code: 'ERR_TLS_CERT_ALTNAME_INVALID' },
  );
  return ApiError.upstream('The control plane certificate could not be verified.', {
    innererror: { code: 'UPSTREAM_TLS' },
    cause,
  });
}

function report(error: ApiError, url = '/api?watch=1'): ErrorReport {
  const fault = error.status >= 500;
  return {
    error,
    cause: error,
    status: error.status,
    kind: fault ? 'fault' : 'client-error',
    fault,
    headersSent: false,
    req: { method: 'GET', url } as IncomingMessage,
    requestId: undefined,
  };
}

function logWithClock() {
  const lines: string[] = [];
  let time = 0;
  const log = createFailureLog((line) => lines.push(line), { quietMs: 10_000, now: () => time });
  return { lines, log, advance: (ms: number) => (time += ms) };
}

describe('the failure log', () => {
  it("writes one line with the cause's message and code, the path without its query", () => {
    const { lines, log } = logWithClock();
    log(report(tlsFailure('wrong.example')));
    expect(lines).toEqual([
      "error: proxying GET /api failed: 502 UPSTREAM_TLS: Hostname/IP does not match certificate's altnames: Host: wrong.example. (ERR_TLS_CERT_ALTNAME_INVALID)\n",
    ]);
  });

  it("names a failed credential plugin by the error's own message, on one line", () => {
    const { lines, log } = logWithClock();
    const failed = ApiError.internal('The credential plugin "aws"\nexited with code 3.', {
      innererror: { code: 'CREDENTIAL_PLUGIN_FAILED' },
    });
    log(report(failed, '/api/v1/pods'));
    expect(lines).toEqual([
      'error: proxying GET /api/v1/pods failed: 500 CREDENTIAL_PLUGIN_FAILED: The credential plugin "aws" exited with code 3.\n',
    ]);
  });

  it('holds a repeated reason back for the quiet period, then says how many it held', () => {
    const { lines, log, advance } = logWithClock();
    log(report(tlsFailure('a.example')));
    for (let i = 0; i < 50; i += 1) {
      advance(100);
      log(report(tlsFailure('a.example')));
    }
    expect(lines).toHaveLength(1);
    advance(5_000);
    log(report(tlsFailure('a.example')));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /a\.example\. \(ERR_TLS_CERT_ALTNAME_INVALID\) \(50 more like it in the last 10 s\)\n$/,
    );
    advance(10_000);
    log(report(tlsFailure('a.example')));
    expect(lines[2]).not.toMatch(/more like it/);
  });

  it('logs a different reason at once, and nothing for client errors', () => {
    const { lines, log } = logWithClock();
    log(report(tlsFailure('a.example')));
    log(report(tlsFailure('b.example')));
    log(report(ApiError.invalidRequest('A request header cannot be relayed.')));
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('b.example');
  });
});
