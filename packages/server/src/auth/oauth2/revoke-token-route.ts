import type { Handler } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { AuthError } from "../auth-error.ts";
import { authErrorResponse, authHandler, noStore } from "../auth-http.ts";
import type { ClientMetadataDocuments } from "./client-metadata-documents.ts";
import { revokeOAuthToken } from "./revoke-oauth-token.ts";
import { optionalParameter, readTokenParameters, requireParameter } from "./token-request.ts";

/**
 * `POST {auth_url}/oauth2/revoke`: RFC 7009 revocation of a token of the token endpoint, as a form
 * `token`, `token_type_hint` (optional) and `client_id`. Success is 200 with an empty body; a
 * refusal is the authorization server's one `{error, error_description}` body.
 */
export function revokeTokenRoute(context: PlatformContext, documents: ClientMetadataDocuments): Handler<AppEnv> {
  const { database, clock, ids, credentialRevocations } = context;
  const deps = { clock, ids, credentialRevocations, documents };
  return authHandler(async (c) => {
    noStore(c);
    const parameters = await readTokenParameters(c, "the revocation request (RFC 7009 §2.1)");
    const token = requireParameter(parameters, "token");
    // Every client is public (token_endpoint_auth_method none): client_id is its whole client
    // authentication, so a request without one is unauthenticated (RFC 6749 §5.2).
    const clientId = optionalParameter(parameters, "client_id");
    if (clientId === undefined) {
      throw new AuthError("invalid_client", "client_id is required: name the client the token was issued to.");
    }
    const revoked = await revokeOAuthToken(database.db, deps, {
      clientId,
      token,
      tokenTypeHint: optionalParameter(parameters, "token_type_hint"),
    });
    if (!revoked.ok) return authErrorResponse(c, revoked.refusal);
    return c.body(null, 200);
  });
}
