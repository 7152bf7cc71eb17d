/**
 * @module `auth-provider: oidc`: the kubeconfig's `id-token` is the bearer token while it is
 * valid. kubectl refreshes an expired one with the identity provider; this package does not
 * (it would need an OIDC client), so an expired id-token fails each request with a 500 that
 * says so, and nothing reaches the control plane.
 */
import { ApiError } from '@resourceful/error-envelope';

/** The `exp` claim of a JWT in milliseconds, or `undefined` when it has none or is not a JWT. */
export function jwtExpiry(token: string): number | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof claims.exp === 'number' ? claims.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** The bearer value for an id-token, or a 500 ApiError when it has expired. */
export function oidcAuthorization(idToken: string, now: number): string | ApiError {
  const expiry = jwtExpiry(idToken);
  if (expiry !== undefined && expiry <= now) {
    return ApiError.internal(
      'The OIDC id-token in the kubeconfig has expired and this proxy cannot refresh it; log in again (for instance with kubelogin) and restart.',
      { innererror: { code: 'OIDC_TOKEN_EXPIRED' } },
    );
  }
  return `Bearer ${idToken}`;
}
