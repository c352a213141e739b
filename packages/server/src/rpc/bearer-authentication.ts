import type { BearerAuthentication } from "./context.ts";
import type { PrincipalResolver } from "./principal-cache.ts";

const bearerPattern = /^Bearer[ ]+(\S*)\s*$/i;

/**
 * Reads `Authorization: Bearer <credential>` (RFC 6750 §2.1). A request without a bearer
 * credential is "missing"; one whose credential is unknown, expired or revoked is "invalid".
 */
export async function authenticateBearer(
  authorization: string | undefined,
  resolver: PrincipalResolver,
): Promise<BearerAuthentication> {
  if (authorization === undefined) return { status: "missing" };
  const match = bearerPattern.exec(authorization);
  if (match === null) return { status: "missing" };
  const secret = match[1] ?? "";
  if (secret === "") return { status: "invalid" };
  try {
    const principal = await resolver.resolve(secret);
    return principal === undefined ? { status: "invalid" } : { status: "authenticated", principal };
  } catch (error) {
    return { status: "failed", error };
  }
}

/** The `WWW-Authenticate` challenge of a 401 (RFC 6750 §3, RFC 9728 §5.1). */
export function bearerChallenge(
  authentication: BearerAuthentication,
  protectedResourceMetadataUrl: string,
): string | undefined {
  if (authentication.status === "authenticated" || authentication.status === "failed") return undefined;
  const challenge = `Bearer resource_metadata="${protectedResourceMetadataUrl}"`;
  return authentication.status === "invalid"
    ? `${challenge}, error="invalid_token", error_description="The credential is unknown, expired or revoked."`
    : challenge;
}

/** The `WWW-Authenticate` challenge of a 403 for a missing scope (RFC 6750 §3.1), for step-up authorization. */
export function insufficientScopeChallenge(scope: string, protectedResourceMetadataUrl: string): string {
  return `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${protectedResourceMetadataUrl}"`;
}
