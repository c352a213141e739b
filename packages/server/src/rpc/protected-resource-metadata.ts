import { allScopes } from "../identity/scopes.ts";

export const protectedResourceMetadataPath = "/.well-known/oauth-protected-resource";

/** Where clients find the metadata: the well-known path on the resource server's origin (RFC 9728 §3). */
export function protectedResourceMetadataUrl(baseUrl: string): string {
  return new URL(protectedResourceMetadataPath, baseUrl).href;
}

/** RFC 9728 protected resource metadata of the API. */
export function protectedResourceMetadata(config: { baseUrl: string; authUrl: string }) {
  return {
    resource: config.baseUrl,
    authorization_servers: [config.authUrl],
    scopes_supported: [...allScopes],
    bearer_methods_supported: ["header"],
    resource_name: "Weft API",
    resource_documentation: `${config.baseUrl}/openapi.json`,
  };
}
