import { exchangeSubjectToken } from "../../federation/exchange-subject-token.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { AuthError } from "../auth-error.ts";
import { authErrorResponse } from "../auth-http.ts";
import type { JwksCache } from "../jwks-cache.ts";
import type { OidcDiscovery } from "../oidc-discovery.ts";
import { optionalParameter, requireParameter } from "./token-request.ts";
import type { GrantHandler } from "./token-route.ts";

export const tokenExchangeGrantType = "urn:ietf:params:oauth:grant-type:token-exchange";
export const accessTokenType = "urn:ietf:params:oauth:token-type:access_token";
/** The identity provider's JWT, as a plain JWT or as an OpenID Connect ID token. */
const subjectTokenTypes = ["urn:ietf:params:oauth:token-type:jwt", "urn:ietf:params:oauth:token-type:id_token"];

/**
 * The target of the exchange (`audience` or `resource`, RFC 8693 §2.1): one value, sent once or the
 * same in both.
 */
function targetOf(audience: string | undefined, resource: string | undefined): string {
  if (audience !== undefined && resource !== undefined && audience !== resource) {
    throw new AuthError("invalid_request", "audience and resource name different targets; send one.");
  }
  const target = audience ?? resource;
  if (target === undefined) throw new AuthError("invalid_request", "audience (the project id) is required.");
  return target;
}

/**
 * RFC 8693 token exchange: an identity provider's JWT for a credential of one project, under the
 * project's federation policies.
 */
export function tokenExchangeGrant(
  context: PlatformContext,
  verifiers: { jwks: JwksCache; discovery: OidcDiscovery },
): GrantHandler {
  const { database, clock, ids, config } = context;
  return async (c, parameters) => {
    const subjectToken = requireParameter(parameters, "subject_token");
    const subjectTokenType = requireParameter(parameters, "subject_token_type");
    if (!subjectTokenTypes.includes(subjectTokenType)) {
      throw new AuthError("invalid_request", `subject_token_type must be one of: ${subjectTokenTypes.join(", ")}.`);
    }
    const requestedType = optionalParameter(parameters, "requested_token_type");
    if (requestedType !== undefined && requestedType !== accessTokenType) {
      throw new AuthError("invalid_request", `requested_token_type can only be ${accessTokenType}.`);
    }
    const exchanged = await exchangeSubjectToken(
      database.db,
      { clock, ids, ...verifiers, baseUrl: config.baseUrl },
      {
        target: targetOf(optionalParameter(parameters, "audience"), optionalParameter(parameters, "resource")),
        subjectToken,
        scope: optionalParameter(parameters, "scope"),
      },
    );
    if (!exchanged.ok) return authErrorResponse(c, exchanged.refusal);
    const issued = exchanged.value;
    return c.json({
      access_token: issued.credential,
      issued_token_type: accessTokenType,
      token_type: "Bearer",
      expires_in: Math.max(0, Math.floor((issued.expiresAt.getTime() - clock.now().getTime()) / 1000)),
      scope: issued.scopes.join(" "),
    });
  };
}
