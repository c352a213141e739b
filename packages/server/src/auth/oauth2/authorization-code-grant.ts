import type { PlatformContext } from "../../platform-context.ts";
import { AuthError } from "../auth-error.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { isPkceValue } from "./pkce.ts";
import { redeemAuthorizationCode } from "./redeem-authorization-code.ts";
import { optionalParameter, requireParameter, type TokenParameters } from "./token-request.ts";
import { oauthTokensGrant } from "./token-response.ts";
import type { GrantHandler } from "./token-route.ts";

/**
 * The PKCE verifier of a token request. A malformed one (RFC 7636 §4.1) is a malformed request,
 * `invalid_request`, refused before the code is spent; a missing one is left to the redemption,
 * which answers it `invalid_grant` as it does a wrong one (§4.6).
 */
function codeVerifierOf(parameters: TokenParameters): string | undefined {
  const verifier = optionalParameter(parameters, "code_verifier");
  if (verifier !== undefined && !isPkceValue(verifier)) {
    throw new AuthError(
      "invalid_request",
      "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~' (RFC 7636 §4.1).",
    );
  }
  return verifier;
}

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
        codeVerifier: codeVerifierOf(parameters),
      },
    ),
  );
}
