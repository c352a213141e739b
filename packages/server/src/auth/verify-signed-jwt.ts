import { decodeJwt, decodeProtectedHeader, errors, type JWTPayload, jwtVerify } from "jose";
import type { TrustedIssuer } from "../config/config.ts";
import type { Clock } from "../shared/clock.ts";
import { type AuthResult, refuse } from "./auth-error.ts";
import { type JwksCache, JwksUnavailableError } from "./jwks-cache.ts";

/** Asymmetric algorithms only: `none` and HMAC (a shared secret anyone with the JWKS URL could not hold) never verify. */
export const acceptedAlgorithms = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** How far ahead of our clock an issuer's `iat` may be. */
export const maxIssuedAtSkewSeconds = 60;

export interface SignedJwtExpectations {
  /** The media type in the `typ` header, without `application/`, lower-case. */
  typ: string;
  requiredClaims: string[];
  /** The refusal's description when no issuer is trusted at all. */
  noTrustedIssuer: string;
}

/** Who issued a verified JWT and which one it is: what the caller records to refuse its replay. */
export interface JwtIdentity {
  issuer: string;
  subject: string;
  jti: string;
}

export interface VerifiedJwt {
  payload: JWTPayload & Record<string, unknown>;
  issuer: TrustedIssuer;
  identity: JwtIdentity;
}

/** RFC 8725 §3.11: compare `typ` case-insensitively, allowing the optional `application/` prefix. */
export function typMatches(typ: unknown, expected: string): boolean {
  if (typeof typ !== "string") return false;
  const normalized = typ.toLowerCase();
  return normalized === expected || normalized === `application/${expected}`;
}

/** Why `jwtVerify` refused a token, for the caller; anything but a verification failure is thrown on. */
export function describeVerificationFailure(error: unknown): string {
  if (error instanceof JwksUnavailableError) return `The issuer's keys are unavailable: ${error.message}.`;
  if (error instanceof errors.JWTExpired) return "The JWT has expired.";
  if (error instanceof errors.JWTClaimValidationFailed) {
    return `The JWT ${error.claim} claim is ${error.reason === "missing" ? "missing" : "not valid"}.`;
  }
  if (error instanceof errors.JOSEError) return "The JWT signature does not verify with the issuer's keys.";
  throw error;
}

function invalid(description: string) {
  return refuse("invalid_assertion", description);
}

function readHeaderAndIssuer(
  token: string,
  trustedIssuers: readonly TrustedIssuer[],
  expected: SignedJwtExpectations,
): AuthResult<TrustedIssuer> {
  let header: ReturnType<typeof decodeProtectedHeader>;
  let unverified: JWTPayload;
  try {
    header = decodeProtectedHeader(token);
    unverified = decodeJwt(token);
  } catch {
    return invalid("The assertion is not a well-formed signed JWT.");
  }
  if (!typMatches(header.typ, expected.typ)) {
    return invalid(`The JWT header typ must be ${expected.typ}.`);
  }
  if (typeof header.alg !== "string" || !acceptedAlgorithms.includes(header.alg)) {
    return invalid("The JWT must be signed with an asymmetric algorithm.");
  }
  if (typeof unverified.iss !== "string") return invalid("The JWT has no iss claim.");
  // The trust list is consulted before anything is fetched: an untrusted iss never makes us call out.
  const issuer = trustedIssuers.find((candidate) => candidate.issuer === unverified.iss);
  if (issuer === undefined) {
    return refuse("issuer_not_enabled", "This issuer is not trusted here; register with verified_email instead.");
  }
  return { ok: true, value: issuer };
}

/**
 * Verifies a JWT from a trusted issuer: header `typ` and `alg`, issuer trust, signature against the
 * issuer's JWKS, `aud` exactly our address, `exp` in the future, `iat` not ahead of us, and the
 * presence of every required claim. Claim-specific checks are left to the caller.
 */
export async function verifySignedJwt(
  token: string,
  config: { authUrl: string; trustedIssuers: readonly TrustedIssuer[] },
  expected: SignedJwtExpectations,
  deps: { clock: Clock; jwks: JwksCache },
): Promise<AuthResult<VerifiedJwt>> {
  if (config.trustedIssuers.length === 0) return refuse("issuer_not_enabled", expected.noTrustedIssuer);
  const trusted = readHeaderAndIssuer(token, config.trustedIssuers, expected);
  if (!trusted.ok) return trusted;
  const issuer = trusted.value;
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, (header) => deps.jwks.keyFor(issuer.jwksUri, header), {
      algorithms: acceptedAlgorithms,
      issuer: issuer.issuer,
      audience: config.authUrl,
      requiredClaims: expected.requiredClaims,
      currentDate: deps.clock.now(),
    }));
  } catch (error) {
    return invalid(describeVerificationFailure(error));
  }
  if (Array.isArray(payload.aud) && (payload.aud.length !== 1 || payload.aud[0] !== config.authUrl)) {
    return invalid("The JWT aud must be exactly this authorization server.");
  }
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  if (typeof payload.iat !== "number" || payload.iat > nowSeconds + maxIssuedAtSkewSeconds) {
    return invalid("The JWT iat claim is in the future.");
  }
  for (const claim of ["iss", "sub", "jti"] as const) {
    if (typeof payload[claim] !== "string" || payload[claim] === "") {
      return invalid(`The JWT ${claim} claim is missing.`);
    }
  }
  const identity = { issuer: issuer.issuer, subject: payload.sub as string, jti: payload.jti as string };
  return { ok: true, value: { payload: payload as VerifiedJwt["payload"], issuer, identity } };
}
