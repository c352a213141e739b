import type { PlatformContext } from "../../platform-context.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { rotateRefreshToken } from "./rotate-refresh-token.ts";
import { optionalParameter, requireParameter } from "./token-request.ts";
import { oauthTokensGrant } from "./token-response.ts";
import type { GrantHandler } from "./token-route.ts";

/** The refresh token grant (RFC 6749 §6); a public client names itself with `client_id`. */
export function refreshTokenGrant(context: PlatformContext, documents: ClientMetadataDocuments): GrantHandler {
  const { database, clock, ids, credentialRevocations } = context;
  return oauthTokensGrant(clock, (parameters) =>
    rotateRefreshToken(
      database.db,
      { clock, ids, credentialRevocations, documents },
      {
        clientId: requireParameter(parameters, "client_id"),
        refreshToken: requireParameter(parameters, "refresh_token"),
        scope: optionalParameter(parameters, "scope"),
      },
    ),
  );
}
