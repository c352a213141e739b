import { RegistrationError } from "./registration-error.ts";

/** Where the registration endpoints are (the `agent_auth` block of the authorization server metadata). */
export interface AgentAuthEndpoints {
  registerUri: string;
  /**
   * Where an email registration is claimed (`agent_auth.claim_uri`); undefined when the server
   * advertises none, and `completeClaim` then refuses rather than guess an address.
   */
  claimUri: string | undefined;
  revocationUri: string;
}

export interface Discovery extends AgentAuthEndpoints {
  /** The URL the 401 challenge pointed at. */
  resourceMetadataUrl: string;
  /** RFC 9728 protected resource metadata, as served. */
  resourceMetadata: { resource: string; authorization_servers: string[]; scopes_supported?: string[] } & Record<
    string,
    unknown
  >;
  /** The authorization server's issuer URL ({auth_url}). */
  authUrl: string;
  /** RFC 8414 authorization server metadata, as served. */
  authorizationServerMetadata: Record<string, unknown>;
  /** E.g. `urn:ietf:params:oauth:token-type:id-jag` and `verified_email`: which registration flows exist. */
  identityAssertionTypesSupported: string[];
  /** The OAuth token endpoint (token exchange for a project-scoped credential). */
  tokenUri: string;
}

const challengePattern = /resource_metadata="([^"]+)"/;

export function discoveryError(message: string): RegistrationError {
  return new RegistrationError({ code: "discovery_failed", message, status: 0 });
}

async function getJson(fetcher: typeof fetch, url: string): Promise<Record<string, unknown>> {
  const response = await fetcher(url, { headers: { accept: "application/json" } });
  if (!response.ok) throw discoveryError(`GET ${url} answered ${response.status}.`);
  const body: unknown = await response.json();
  if (typeof body !== "object" || body === null) throw discoveryError(`GET ${url} did not answer a JSON object.`);
  return body as Record<string, unknown>;
}

/** RFC 8414 §3: the well-known path goes between the host and the issuer's path. */
function authorizationServerMetadataUrl(issuer: string): string {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/+$/, "");
  return `${url.origin}/.well-known/oauth-authorization-server${path}`;
}

function stringAt(record: Record<string, unknown> | undefined, key: string, fallback: string): string {
  const value = record?.[key];
  return typeof value === "string" ? value : fallback;
}

/**
 * Finds how to get a credential for an API knowing only its base URL: an unauthenticated call
 * answers 401 with a `WWW-Authenticate` challenge naming the protected resource metadata, which
 * names the authorization server, whose metadata describes the registration endpoints.
 */
export async function discover(baseUrl: string, options: { fetch?: typeof fetch } = {}): Promise<Discovery> {
  const fetcher = options.fetch ?? fetch;
  const probe = await fetcher(`${baseUrl.replace(/\/+$/, "")}/rpc/projects/list`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ json: {} }),
  });
  await probe.body?.cancel();
  const challenge = probe.headers.get("www-authenticate") ?? "";
  const resourceMetadataUrl = challengePattern.exec(challenge)?.[1];
  if (probe.status !== 401 || resourceMetadataUrl === undefined) {
    throw discoveryError(`${baseUrl} did not answer an unauthenticated call with a resource_metadata challenge.`);
  }
  const resourceMetadata = await getJson(fetcher, resourceMetadataUrl);
  const authUrl = Array.isArray(resourceMetadata.authorization_servers)
    ? resourceMetadata.authorization_servers.find((server): server is string => typeof server === "string")
    : undefined;
  if (authUrl === undefined) throw discoveryError(`${resourceMetadataUrl} names no authorization server.`);
  const authorizationServerMetadata = await getJson(fetcher, authorizationServerMetadataUrl(authUrl));
  const agentAuth =
    typeof authorizationServerMetadata.agent_auth === "object" && authorizationServerMetadata.agent_auth !== null
      ? (authorizationServerMetadata.agent_auth as Record<string, unknown>)
      : undefined;
  const issuer = authUrl.replace(/\/+$/, "");
  const assertionTypes = authorizationServerMetadata.identity_assertion_types_supported;
  return {
    resourceMetadataUrl,
    resourceMetadata: resourceMetadata as Discovery["resourceMetadata"],
    authUrl,
    authorizationServerMetadata,
    identityAssertionTypesSupported: Array.isArray(assertionTypes)
      ? assertionTypes.filter((type): type is string => typeof type === "string")
      : [],
    registerUri: stringAt(agentAuth, "register_uri", `${issuer}/agent/auth`),
    claimUri: typeof agentAuth?.claim_uri === "string" ? agentAuth.claim_uri : undefined,
    revocationUri: stringAt(agentAuth, "revocation_uri", `${issuer}/agent/auth/revoke`),
    tokenUri: stringAt(authorizationServerMetadata, "token_endpoint", `${issuer}/oauth2/token`),
  };
}
