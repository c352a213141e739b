import type { TrustedIssuer } from "../config/config.ts";
import type { Clock } from "../shared/clock.ts";
import { type AuthResult, refuse } from "./auth-error.ts";
import type { JwksCache } from "./jwks-cache.ts";
import { type JwtIdentity, verifySignedJwt } from "./verify-signed-jwt.ts";

export function revocationEventUri(schemaHost: string): string {
  return `${schemaHost}/events/agent/auth/identity/assertion/revoked`;
}

/** How long after its `iat` a logout token without `exp` is accepted (and its `jti` remembered). */
export const logoutTokenMaxAgeSeconds = 5 * 60;

export interface VerifiedLogoutToken extends JwtIdentity {
  /** When the token stops verifying: its `exp`, or `iat` + 5 minutes when it has none. */
  expiresAt: Date;
}

/**
 * When a verified logout token stops being accepted. OpenID Back-Channel Logout does not require
 * `exp`, and the auth.md reference provider sends none; such a token is bounded by its `iat` instead.
 */
function logoutTokenExpiry(payload: { iat: number; exp?: unknown }, now: Date): AuthResult<Date> {
  if (typeof payload.exp === "number") return { ok: true, value: new Date(payload.exp * 1000) };
  const expiresAt = new Date((payload.iat + logoutTokenMaxAgeSeconds) * 1000);
  if (expiresAt.getTime() < now.getTime()) {
    return refuse(
      "invalid_assertion",
      `The logout token carries no exp and was issued more than ${logoutTokenMaxAgeSeconds / 60} minutes ago.`,
    );
  }
  return { ok: true, value: expiresAt };
}

/**
 * Verifies a logout token (OpenID Back-Channel Logout shape) announcing that the provider revoked
 * an identity assertion: signed by a trusted issuer, for us, carrying the revocation event, a
 * `sub`, no `nonce`, and either an `exp` in the future or an `iat` of the last 5 minutes. Its `jti`
 * is recorded by the caller until `expiresAt`.
 */
export async function verifyLogoutToken(
  token: string,
  config: { authUrl: string; trustedIssuers: readonly TrustedIssuer[]; eventSchemaHost: string },
  deps: { clock: Clock; jwks: JwksCache },
): Promise<AuthResult<VerifiedLogoutToken>> {
  const verified = await verifySignedJwt(
    token,
    config,
    {
      typ: "logout+jwt",
      requiredClaims: ["iss", "sub", "aud", "jti", "iat", "events"],
      noTrustedIssuer: "No identity provider is trusted here.",
    },
    deps,
  );
  if (!verified.ok) return verified;
  const { payload, identity } = verified.value;
  const events = payload.events;
  if (
    typeof events !== "object" ||
    events === null ||
    Array.isArray(events) ||
    !Object.hasOwn(events, revocationEventUri(config.eventSchemaHost))
  ) {
    return refuse("invalid_assertion", "The logout token does not carry the assertion-revoked event.");
  }
  if (payload.nonce !== undefined) {
    return refuse("invalid_assertion", "A logout token must not carry a nonce.");
  }
  // verifySignedJwt has checked that iat is a number.
  const expiresAt = logoutTokenExpiry({ iat: payload.iat as number, exp: payload.exp }, deps.clock.now());
  if (!expiresAt.ok) return expiresAt;
  return { ok: true, value: { ...identity, expiresAt: expiresAt.value } };
}
