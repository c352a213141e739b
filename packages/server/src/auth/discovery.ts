import { allScopes } from "@weft/contract";
import type { TrustedIssuer } from "../config/config.ts";
import { tokenExchangeGrantType } from "./oauth2/token-exchange-grant.ts";
import { idJagAssertionType } from "./verify-id-jag.ts";
import { revocationEventUri } from "./verify-logout-token.ts";

export interface DiscoveryConfig {
  authUrl: string;
  baseUrl: string;
  trustedIssuers: readonly TrustedIssuer[];
  eventSchemaHost: string;
}

/** ID-JAG is offered only while some issuer is trusted; the email flow always is. */
export function supportedAssertionTypes(config: DiscoveryConfig): string[] {
  return config.trustedIssuers.length > 0 ? [idJagAssertionType, "verified_email"] : ["verified_email"];
}

export function agentAuthEndpoints(authUrl: string) {
  return {
    guide: `${authUrl}/auth.md`,
    register: `${authUrl}/agent/auth`,
    claim: `${authUrl}/agent/auth/claim/complete`,
    revoke: `${authUrl}/agent/auth/revoke`,
    token: `${authUrl}/oauth2/token`,
    revokeToken: `${authUrl}/oauth2/revoke`,
    authorize: `${authUrl}/oauth2/authorize`,
    registerClient: `${authUrl}/oauth2/register`,
  };
}

/** RFC 8414 authorization server metadata, extended with the agent registration description. */
export function authorizationServerMetadata(config: DiscoveryConfig) {
  const endpoints = agentAuthEndpoints(config.authUrl);
  const assertionTypes = supportedAssertionTypes(config);
  return {
    issuer: config.authUrl,
    service_documentation: endpoints.guide,
    // RFC 7009 revocation of the token endpoint's tokens; agent credentials have their own
    // endpoint, `agent_auth.revocation_uri`.
    revocation_endpoint: endpoints.revokeToken,
    revocation_endpoint_auth_methods_supported: ["none"],
    authorization_endpoint: endpoints.authorize,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registerClient,
    token_endpoint_auth_methods_supported: ["none"],
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    code_challenge_methods_supported: ["S256"],
    grant_types_supported: ["authorization_code", "refresh_token", tokenExchangeGrantType],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
    scopes_supported: [...allScopes],
    identity_assertion_types_supported: assertionTypes,
    agent_auth: {
      skill: endpoints.guide,
      // Every registration endpoint, so that a client guesses no path (decision 0105).
      register_uri: endpoints.register,
      claim_uri: endpoints.claim,
      revocation_uri: endpoints.revoke,
      identity_types_supported: ["identity_assertion"],
      identity_assertion: {
        assertion_types_supported: assertionTypes,
        credential_types_supported: ["api_key"],
      },
      events_supported: [revocationEventUri(config.eventSchemaHost)],
    },
  };
}
