/**
 * @module `auth-provider: oidc`: the kubeconfig's `id-token` is the bearer token while it is
 * valid, as client-go's oidc provider judges it: a three-part JWT whose claims are JSON with an
 * `exp` more than 10 seconds ahead. kubectl refreshes any other id-token with the identity
 * provider; this package does not (it would need an OIDC client), so such a token fails each
 * request with a 500 that says why, and nothing reaches the control plane.
 */
import { ApiError } from '@resourceful/error-envelope';

/** client-go counts an id-token expiring this soon as expired (`expiryDelta`). */
const EXPIRY_MARGIN_MS = 10_000;

/** The claims of a three-part JWT, or `undefined` when it is not one (client-go's test). */
function jwtClaims(token: string): { exp?: unknown } | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  try {
    const claims: unknown = JSON.parse(Buffer.from(parts[1] ?? '', 'base64url').toString('utf8'));
    return typeof claims === 'object' && claims !== null ? claims : undefined;
  } catch {
    return undefined;
  }
}

function refused(reason: string, code: string): ApiError {
  return ApiError.internal(
    `The OIDC id-token in the kubeconfig ${reason} and this proxy cannot refresh it; log in again (for instance with kubelogin) and restart.`,
    { innererror: { code } },
  );
}

/**
 * Judges `idToken` once: the returned function gives the bearer value for a request at `now`,
 * or the 500 ApiError kubectl's refusal becomes.
 */
export function oidcAuthorizer(idToken: string): (now: number) => string | ApiError {
  const claims = jwtClaims(idToken);
  if (claims === undefined) {
    const invalid = refused('is not a valid JWT', 'OIDC_TOKEN_INVALID');
    return () => invalid;
  }
  if (typeof claims.exp !== 'number') {
    const unbounded = refused('has no expiry (exp)', 'OIDC_TOKEN_EXPIRED');
    return () => unbounded;
  }
  const usableUntil = claims.exp * 1000 - EXPIRY_MARGIN_MS;
  const authorization = `Bearer ${idToken}`;
  return (now) =>
    now < usableUntil ? authorization : refused('has expired', 'OIDC_TOKEN_EXPIRED');
}
