import { issuerUrlSchema } from "@weft/contract";
import type { Clock } from "../shared/clock.ts";
import { fetchIssuerDocument, JwksUnavailableError } from "./jwks-cache.ts";

export interface OidcDiscovery {
  /** The `jwks_uri` of an issuer's OpenID configuration. Throws `JwksUnavailableError` when it has none. */
  jwksUriOf(issuer: string): Promise<string>;
}

/** OpenID Connect Discovery 1.0 §4: the configuration sits under the issuer, trailing slash dropped. */
export function openIdConfigurationUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
}

/**
 * Per-process cache of issuers' `jwks_uri`, kept as long as the issuer's `Cache-Control` allows
 * within the JWKS cache's bounds. Only issuers that some federation policy names reach it. The
 * configuration must name the issuer itself (§4.3) and a key set address of the same kind as an
 * issuer's: https, or http on a loopback host.
 */
export function createOidcDiscovery(clock: Clock): OidcDiscovery {
  const cache = new Map<string, { jwksUri: string; expiresAt: number }>();
  return {
    jwksUriOf: async (issuer) => {
      const cached = cache.get(issuer);
      if (cached !== undefined && cached.expiresAt > clock.now().getTime()) return cached.jwksUri;
      const { body, lifetimeMs } = await fetchIssuerDocument(openIdConfigurationUrl(issuer), "OpenID configuration");
      const document = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
      if (document.issuer !== issuer) {
        throw new JwksUnavailableError("the issuer's OpenID configuration names another issuer");
      }
      const jwksUri = document.jwks_uri;
      if (typeof jwksUri !== "string" || !issuerUrlSchema.safeParse(jwksUri).success) {
        throw new JwksUnavailableError("the issuer's OpenID configuration has no usable jwks_uri");
      }
      cache.set(issuer, { jwksUri, expiresAt: clock.now().getTime() + lifetimeMs });
      return jwksUri;
    },
  };
}
