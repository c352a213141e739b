import type { Context, Handler } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import { AuthError } from "../auth-error.ts";
import { authHandler, noStore } from "../auth-http.ts";
import { readTokenParameters, requireParameter, type TokenParameters } from "./token-request.ts";

/** One grant of the token endpoint: answers a request whose `grant_type` it is registered under. */
export type GrantHandler = (c: Context<AppEnv>, parameters: TokenParameters) => Promise<Response>;

/**
 * `POST {auth_url}/oauth2/token`: dispatches on `grant_type` to one handler per grant; any other
 * grant is `unsupported_grant_type`. Every answer is `no-store`, and every refusal the one
 * `{error, error_description}` body of the authorization server (RFC 6749 §5.2).
 */
export function tokenRoute(grants: ReadonlyMap<string, GrantHandler>): Handler<AppEnv> {
  return authHandler(async (c) => {
    noStore(c);
    const parameters = await readTokenParameters(c, "the token request (RFC 6749 §3.2)");
    const grantType = requireParameter(parameters, "grant_type");
    const grant = grants.get(grantType);
    if (grant === undefined) {
      throw new AuthError("unsupported_grant_type", `grant_type must be one of: ${[...grants.keys()].join(", ")}.`);
    }
    return grant(c, parameters);
  });
}
