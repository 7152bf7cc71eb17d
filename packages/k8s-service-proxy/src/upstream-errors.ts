/**
 * @module Maps a failure to reach the control plane onto the error envelope: refused, reset or
 * unreachable → 502, timed out → 504 (RFC 9110 §15.6.3, §15.6.5). The message names the cause
 * class only; it never echoes headers, URLs with credentials, or tokens. The low-level error is
 * kept as the ApiError's `cause` (never part of the envelope) so a log can say why.
 */
import { ApiError } from '@resourceful/error-envelope';

/** Set on errors raised when the relay's own timer fires. */
export const UPSTREAM_TIMEOUT = 'UPSTREAM_TIMEOUT';
/** Set on errors raised when a forward proxy refuses the CONNECT tunnel. */
export const PROXY_REFUSED = 'UPSTREAM_PROXY_REFUSED';

const TIMEOUT_CODES = new Set([UPSTREAM_TIMEOUT, 'ETIMEDOUT', 'ESOCKETTIMEDOUT']);
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);

/** The `innererror.code` for a low-level error code. */
function innerCode(code: string | undefined): string {
  if (code === undefined) return 'UPSTREAM_FAILED';
  if (TIMEOUT_CODES.has(code)) return 'UPSTREAM_TIMEOUT';
  if (code === 'ECONNREFUSED') return 'UPSTREAM_REFUSED';
  if (code === PROXY_REFUSED) return PROXY_REFUSED;
  if (UNREACHABLE_CODES.has(code)) return 'UPSTREAM_UNREACHABLE';
  if (/CERT|SELF_SIGNED|ERR_TLS|SSL|HOSTNAME|ALTNAME|SIGNATURE/i.test(code)) return 'UPSTREAM_TLS';
  return 'UPSTREAM_FAILED';
}

export function upstreamError(cause: unknown): ApiError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const inner = innerCode(typeof code === 'string' ? code : undefined);
  if (inner === 'UPSTREAM_TIMEOUT') {
    return ApiError.upstream('The control plane did not answer in time.', {
      timeout: true,
      innererror: { code: inner },
      cause,
    });
  }
  const message =
    inner === 'UPSTREAM_TLS'
      ? 'The control plane certificate could not be verified.'
      : inner === PROXY_REFUSED
        ? 'The proxy to the control plane refused the connection.'
        : inner === 'UPSTREAM_REFUSED'
          ? 'The control plane refused the connection.'
          : 'The control plane could not be reached.';
  return ApiError.upstream(message, { innererror: { code: inner }, cause });
}
