import type { Context } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import type { Clock } from "../../shared/clock.ts";
import type { AuthResult } from "../auth-error.ts";
import { authErrorResponse } from "../auth-http.ts";
import type { OAuthTokens } from "./oauth-tokens.ts";
import type { TokenParameters } from "./token-request.ts";
import type { GrantHandler } from "./token-route.ts";

/** The successful token response of the authorization code and refresh grants (RFC 6749 §5.1). */
export function tokenResponse(c: Context<AppEnv>, clock: Clock, tokens: OAuthTokens): Response {
  return c.json({
    access_token: tokens.accessToken,
    token_type: "Bearer",
    expires_in: Math.max(0, Math.floor((tokens.expiresAt.getTime() - clock.now().getTime()) / 1000)),
    refresh_token: tokens.refreshToken,
    scope: tokens.scopes.join(" "),
  });
}

/** A grant that issues OAuth tokens from its parameters: their response, or the refusal's. */
export function oauthTokensGrant(
  clock: Clock,
  issue: (parameters: TokenParameters) => Promise<AuthResult<OAuthTokens>>,
): GrantHandler {
  return async (c, parameters) => {
    const issued = await issue(parameters);
    if (!issued.ok) return authErrorResponse(c, issued.refusal);
    return tokenResponse(c, clock, issued.value);
  };
}
