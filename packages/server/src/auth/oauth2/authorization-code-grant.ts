import type { PlatformContext } from "../../platform-context.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { redeemAuthorizationCode } from "./redeem-authorization-code.ts";
import { requireParameter } from "./token-request.ts";
import { oauthTokensGrant } from "./token-response.ts";
import type { GrantHandler } from "./token-route.ts";

/** OAuth 2.1 authorization code grant for public clients: the code, its redirect URI and the PKCE verifier. */
export function authorizationCodeGrant(context: PlatformContext, documents: ClientMetadataDocuments): GrantHandler {
  const { database, clock, ids, credentialRevocations } = context;
  return oauthTokensGrant(clock, (parameters) =>
    redeemAuthorizationCode(
      database.db,
      { clock, ids, credentialRevocations, documents },
      {
        clientId: requireParameter(parameters, "client_id"),
        code: requireParameter(parameters, "code"),
        redirectUri: requireParameter(parameters, "redirect_uri"),
        codeVerifier: requireParameter(parameters, "code_verifier"),
      },
    ),
  );
}
