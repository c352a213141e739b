import { issuerUrlSchema } from "@weft/contract";
import type { Clock } from "../shared/clock.ts";
import { singleFlight } from "../shared/single-flight.ts";
import type { FetchIssuerDocument, IssuerDocument } from "./jwks-cache.ts";

export interface OidcDiscovery {
  /** The `jwks_uri` of an issuer's OpenID configuration. Throws `JwksUnavailableError` when it has none. */
  jwksUriOf(issuer: string): Promise<string>;
}

/** OpenID Connect Discovery 1.0 §4: the configuration sits under the issuer, trailing slash dropped. */
export function openIdConfigurationUrl(issuer: string): string {
  return `${issuer.replace(/\/$/, "")}/.well-known/openid-configuration`;
}

/**
 * An issuer's OpenID configuration, used for its `jwks_uri`: it must name the issuer itself (§4.3)
 * and a key set address of the same kind as an issuer's (https, or http on a loopback host).
 */
function configurationOf(issuer: string): IssuerDocument<string> {
  return {
    what: "OpenID configuration",
    shape: `JSON whose issuer is ${issuer} and whose jwks_uri is an https URL`,
    read: (body) => {
      const document = typeof body === "object" && body !== null ? (body as Record<string, unknown>) : {};
      const jwksUri = document.jwks_uri;
      if (document.issuer !== issuer || typeof jwksUri !== "string") return undefined;
      return issuerUrlSchema.safeParse(jwksUri).success ? jwksUri : undefined;
    },
  };
}

/**
 * Per-process cache of issuers' `jwks_uri`, kept as long as the issuer's `Cache-Control` allows
 * within the JWKS cache's bounds. Only issuers that some federation policy names reach it.
 * Concurrent misses share one fetch.
 */
export function createOidcDiscovery(clock: Clock, fetchDocument: FetchIssuerDocument): OidcDiscovery {
  const cache = new Map<string, { jwksUri: string; expiresAt: number }>();
  const discover = singleFlight(async (issuer: string): Promise<string> => {
    const { value: jwksUri, lifetimeMs } = await fetchDocument(openIdConfigurationUrl(issuer), configurationOf(issuer));
    cache.set(issuer, { jwksUri, expiresAt: clock.now().getTime() + lifetimeMs });
    return jwksUri;
  });
  return {
    jwksUriOf: (issuer) => {
      const cached = cache.get(issuer);
      if (cached !== undefined && cached.expiresAt > clock.now().getTime()) return Promise.resolve(cached.jwksUri);
      return discover(issuer);
    },
  };
}
