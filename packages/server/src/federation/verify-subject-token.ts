import { allScopes, isScope, type Scope } from "@weft/contract";
import { and, asc, eq } from "drizzle-orm";
import { decodeJwt, decodeProtectedHeader, type JWTPayload, jwtVerify } from "jose";
import { type AuthResult, refuse } from "../auth/auth-error.ts";
import type { JwksCache } from "../auth/jwks-cache.ts";
import type { OidcDiscovery } from "../auth/oidc-discovery.ts";
import { acceptedAlgorithms, describeVerificationFailure, maxIssuedAtSkewSeconds } from "../auth/verify-signed-jwt.ts";
import type { Database } from "../db/database.ts";
import { federationPolicies } from "../db/schema/index.ts";
import type { Clock } from "../shared/clock.ts";
import { claimText, matchesClaimPattern } from "./claim-pattern.ts";
import { type FederationPolicyRecord, toFederationPolicyRecord } from "./federation-policy-record.ts";

/**
 * The furthest a subject token's `exp` may be: its `jti` is kept until then, so that it is used
 * once, and a token that lived for years would be a stored key after all.
 */
export const maxSubjectTokenLifetimeSeconds = 24 * 60 * 60;

/** A subject token that verified and matched a policy granting the scopes asked for. */
export interface MatchedSubjectToken {
  policy: FederationPolicyRecord;
  issuer: string;
  subject: string;
  jti: string;
  expiresAt: Date;
  scopes: Scope[];
}

export interface SubjectTokenDependencies {
  clock: Clock;
  jwks: JwksCache;
  discovery: OidcDiscovery;
}

/** RFC 8693 §2.2.2: a subject token that cannot be used is `invalid_request`. */
function unusable(description: string) {
  return refuse("invalid_request", description);
}

function audienceContains(aud: JWTPayload["aud"], audience: string): boolean {
  return Array.isArray(aud) ? aud.includes(audience) : aud === audience;
}

function matchesPolicy(policy: FederationPolicyRecord, payload: JWTPayload): boolean {
  if (!audienceContains(payload.aud, policy.audience)) return false;
  if (policy.subject !== null && !matchesClaimPattern(policy.subject, payload.sub ?? "")) return false;
  return Object.entries(policy.claims ?? {}).every(([name, pattern]) => {
    const value = claimText(payload[name]);
    return value !== undefined && matchesClaimPattern(pattern, value);
  });
}

/** The scopes asked for (`scope`, space-separated), or undefined for "what the policy grants". */
function requestedScopes(scope: string | undefined): AuthResult<Scope[] | undefined> {
  if (scope === undefined) return { ok: true, value: undefined };
  const names = scope.split(" ").filter((name) => name !== "");
  const unknown = names.find((name) => !isScope(name));
  if (unknown !== undefined) {
    return refuse("invalid_scope", `Unknown scope ${unknown}; the scopes are ${allScopes.join(", ")}.`);
  }
  return { ok: true, value: names.length === 0 ? undefined : [...new Set(names as Scope[])] };
}

/**
 * Verifies an identity provider's JWT for a project: an asymmetric signature with the issuer's keys
 * (OIDC discovery, then its JWKS), `iss` exactly a policy's issuer, `exp`/`nbf`/`iat` within the
 * allowed skew and `exp` at most 24 h ahead, a `jti`, then a policy of the project matching on
 * audience, subject and claims that grants every scope asked for. The issuer is looked up among
 * the project's policies before anything is fetched, so a token of an issuer no policy names never
 * makes us call out. `jti` is left to the caller to spend, with the credential it issues.
 */
export async function verifySubjectToken(
  db: Database,
  deps: SubjectTokenDependencies,
  input: { projectId: string; token: string; scope: string | undefined },
): Promise<AuthResult<MatchedSubjectToken>> {
  const requested = requestedScopes(input.scope);
  if (!requested.ok) return requested;
  let header: ReturnType<typeof decodeProtectedHeader>;
  let unverified: JWTPayload;
  try {
    header = decodeProtectedHeader(input.token);
    unverified = decodeJwt(input.token);
  } catch {
    return unusable("The subject_token is not a well-formed signed JWT.");
  }
  if (typeof header.alg !== "string" || !acceptedAlgorithms.includes(header.alg)) {
    return unusable("The subject_token must be signed with an asymmetric algorithm.");
  }
  const issuer = unverified.iss;
  if (typeof issuer !== "string") return unusable("The subject_token has no iss claim.");
  const policies = (
    await db
      .select()
      .from(federationPolicies)
      .where(and(eq(federationPolicies.projectId, input.projectId), eq(federationPolicies.issuer, issuer)))
      .orderBy(asc(federationPolicies.id))
  ).map(toFederationPolicyRecord);
  if (policies.length === 0) return unusable("No federation policy of this project trusts this issuer.");
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(
      input.token,
      async (protectedHeader) => deps.jwks.keyFor(await deps.discovery.jwksUriOf(issuer), protectedHeader),
      {
        algorithms: acceptedAlgorithms,
        issuer,
        requiredClaims: ["sub", "exp", "iat", "jti"],
        clockTolerance: maxIssuedAtSkewSeconds,
        currentDate: deps.clock.now(),
      },
    ));
  } catch (error) {
    return unusable(describeVerificationFailure(error));
  }
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  if (typeof payload.iat !== "number" || payload.iat > nowSeconds + maxIssuedAtSkewSeconds) {
    return unusable("The JWT iat claim is in the future.");
  }
  if (typeof payload.sub !== "string" || payload.sub === "") return unusable("The JWT sub claim is missing.");
  if (typeof payload.exp !== "number" || payload.exp > nowSeconds + maxSubjectTokenLifetimeSeconds) {
    return unusable("The JWT exp claim is more than 24 hours ahead; mint a token that expires sooner.");
  }
  if (typeof payload.jti !== "string" || payload.jti === "") {
    return unusable("The JWT jti claim must be a non-empty string.");
  }
  const matching = policies.filter((policy) => matchesPolicy(policy, payload));
  if (matching.length === 0) {
    return unusable("The subject_token matches no federation policy of this project (audience, subject, claims).");
  }
  const wanted = requested.value;
  const policy =
    wanted === undefined ? matching[0] : matching.find((each) => wanted.every((scope) => each.scopes.includes(scope)));
  if (policy === undefined) return refuse("invalid_scope", "No matching federation policy grants these scopes.");
  return {
    ok: true,
    value: {
      policy,
      issuer,
      subject: payload.sub,
      jti: payload.jti,
      expiresAt: new Date(payload.exp * 1000),
      scopes: wanted ?? policy.scopes,
    },
  };
}
