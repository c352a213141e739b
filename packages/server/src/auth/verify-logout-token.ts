import type { TrustedIssuer } from "../config/config.ts";
import type { Clock } from "../shared/clock.ts";
import { AuthError } from "./auth-error.ts";
import type { JwksCache } from "./jwks-cache.ts";
import { verifySignedJwt } from "./verify-signed-jwt.ts";

export function revocationEventUri(schemaHost: string): string {
  return `${schemaHost}/events/agent/auth/identity/assertion/revoked`;
}

export interface VerifiedLogoutToken {
  issuer: string;
  subject: string;
  jti: string;
  expiresAt: Date;
}

/**
 * Verifies a logout token (OpenID Back-Channel Logout shape) announcing that the provider revoked
 * an identity assertion: signed by a trusted issuer, for us, carrying the revocation event, a
 * `sub`, an `exp`, and no `nonce`. Its `jti` is recorded by the caller.
 */
export async function verifyLogoutToken(
  token: string,
  config: { authUrl: string; trustedIssuers: readonly TrustedIssuer[]; eventSchemaHost: string },
  deps: { clock: Clock; jwks: JwksCache },
): Promise<VerifiedLogoutToken> {
  if (config.trustedIssuers.length === 0) {
    throw new AuthError("issuer_not_enabled", "No identity provider is trusted here.");
  }
  const { payload, issuer } = await verifySignedJwt(
    token,
    {
      typ: "logout+jwt",
      audience: config.authUrl,
      trustedIssuers: config.trustedIssuers,
      requiredClaims: ["iss", "sub", "aud", "jti", "iat", "exp", "events"],
    },
    deps,
  );
  const events = payload.events;
  if (
    typeof events !== "object" ||
    events === null ||
    Array.isArray(events) ||
    !Object.hasOwn(events, revocationEventUri(config.eventSchemaHost))
  ) {
    throw new AuthError("invalid_assertion", "The logout token does not carry the assertion-revoked event.");
  }
  if (payload.nonce !== undefined) {
    throw new AuthError("invalid_assertion", "A logout token must not carry a nonce.");
  }
  return {
    issuer: issuer.issuer,
    subject: payload.sub as string,
    jti: payload.jti as string,
    expiresAt: new Date((payload.exp as number) * 1000),
  };
}
