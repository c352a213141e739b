import { allScopes, type Scope } from "@weft/contract";
import type { TrustedIssuer } from "../config/config.ts";
import type { Clock } from "../shared/clock.ts";
import { checkStorableJson, describeUnstorable } from "../shared/storable-json.ts";
import { type AuthResult, refuse } from "./auth-error.ts";
import { isDeliverableEmailAddress } from "./email-address.ts";
import type { JwksCache } from "./jwks-cache.ts";
import { type JwtIdentity, verifySignedJwt } from "./verify-signed-jwt.ts";

export const idJagAssertionType = "urn:ietf:params:oauth:token-type:id-jag";

export interface VerifiedIdJag extends JwtIdentity {
  expiresAt: Date;
  email: string;
  clientId: string;
  scopes: Scope[];
}

/** An ID-JAG's optional `scope` claim narrows what is granted (unknown scopes are ignored); it never widens it. */
function grantedScopes(scopeClaim: unknown): AuthResult<Scope[]> {
  if (scopeClaim === undefined) return { ok: true, value: [...allScopes] };
  if (typeof scopeClaim !== "string") return refuse("invalid_assertion", "The scope claim must be a string.");
  const requested = new Set(scopeClaim.split(" "));
  const granted = allScopes.filter((scope) => requested.has(scope));
  if (granted.length === 0) {
    return refuse("invalid_assertion", "The scope claim names no scope this service grants.");
  }
  return { ok: true, value: granted };
}

/**
 * Verifies an ID-JAG (Identity Assertion JWT Authorization Grant) against the trusted issuers.
 * Does not record its `jti`: the caller does that last, once every other check has passed.
 */
export async function verifyIdJag(
  token: string,
  config: { authUrl: string; trustedIssuers: readonly TrustedIssuer[] },
  deps: { clock: Clock; jwks: JwksCache },
): Promise<AuthResult<VerifiedIdJag>> {
  const verified = await verifySignedJwt(
    token,
    config,
    {
      typ: "oauth-id-jag+jwt",
      requiredClaims: ["iss", "sub", "aud", "client_id", "jti", "iat", "exp"],
      noTrustedIssuer: "ID-JAG registration is not enabled here; register with verified_email.",
    },
    deps,
  );
  if (!verified.ok) return verified;
  const { payload, issuer, identity } = verified.value;
  // Signed by a trusted issuer, yet stored (jti, sub): a claim PostgreSQL cannot store would be a 500.
  const storable = checkStorableJson(payload);
  if (!storable.ok) return refuse("invalid_assertion", `The claim ${describeUnstorable(storable)}.`);
  if (typeof payload.client_id !== "string" || !issuer.clientIds.includes(payload.client_id)) {
    return refuse("invalid_client_id", "The asserting client is not trusted for this issuer.");
  }
  // The same rule as `verified_email` registrations: the claim becomes the account's address.
  if (
    typeof payload.email !== "string" ||
    !isDeliverableEmailAddress(payload.email.trim()) ||
    payload.email_verified !== true
  ) {
    return refuse(
      "missing_verified_email",
      "The ID-JAG must carry an email claim holding an email address, with email_verified: true.",
    );
  }
  const scopes = grantedScopes(payload.scope);
  if (!scopes.ok) return scopes;
  return {
    ok: true,
    value: {
      ...identity,
      expiresAt: new Date((payload.exp as number) * 1000),
      email: payload.email,
      clientId: payload.client_id,
      scopes: scopes.value,
    },
  };
}
