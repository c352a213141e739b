import { allScopes } from "@weft/contract";
import { basePathOf } from "../shared/base-path.ts";

export const protectedResourceMetadataPath = "/.well-known/oauth-protected-resource";

/**
 * Where clients find the metadata (RFC 9728 §3.1): the well-known path on the resource server's
 * origin, followed by the path of `{base_url}` when it has one.
 */
export function protectedResourceMetadataUrl(baseUrl: string): string {
  return new URL(`${protectedResourceMetadataPath}${basePathOf(baseUrl)}`, baseUrl).href;
}

/** RFC 9728 protected resource metadata of the API. */
export function protectedResourceMetadata(config: { baseUrl: string; authUrl: string; logoUrl: string | undefined }) {
  return {
    resource: config.baseUrl,
    authorization_servers: [config.authUrl],
    scopes_supported: [...allScopes],
    bearer_methods_supported: ["header"],
    resource_name: "Weft API",
    resource_documentation: `${config.baseUrl}/openapi.json`,
    // Not an RFC 9728 field: where this resource's MCP endpoint is, for a reader of the document.
    mcp_endpoint: `${config.baseUrl}/mcp`,
    ...(config.logoUrl === undefined ? {} : { resource_logo_uri: config.logoUrl }),
  };
}
