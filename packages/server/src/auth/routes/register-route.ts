import type { Handler } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { AuthError } from "../auth-error.ts";
import { authErrorResponse, authHandler, noStore, readJsonObject, requireString } from "../auth-http.ts";
import type { JwksCache } from "../jwks-cache.ts";
import { claimPageUrl, registerWithEmail } from "../register-with-email.ts";
import { registerWithIdJag } from "../register-with-id-jag.ts";
import { idJagAssertionType, verifyIdJag } from "../verify-id-jag.ts";

const maxAgentDescriptionLength = 200;

/** The agent as it describes itself (its User-Agent), shown to the person asked to approve. */
function agentDescription(userAgent: string | undefined): string {
  const cleaned = (userAgent ?? "").replace(/[\p{Cc}]/gu, " ").trim();
  return cleaned === "" ? "an AI agent that did not name itself" : cleaned.slice(0, maxAgentDescriptionLength);
}

function checkAssertionRequest(body: Record<string, unknown>) {
  const type = requireString(body, "type");
  const assertionType = requireString(body, "assertion_type");
  const assertion = requireString(body, "assertion");
  const credentialType = requireString(body, "requested_credential_type");
  if (type !== "identity_assertion") {
    throw new AuthError("unsupported_identity_type", "type must be identity_assertion.");
  }
  if (assertionType !== idJagAssertionType && assertionType !== "verified_email") {
    throw new AuthError(
      "unsupported_assertion_type",
      `assertion_type must be verified_email or ${idJagAssertionType}.`,
    );
  }
  if (credentialType !== "api_key") {
    throw new AuthError("unsupported_credential_type", "requested_credential_type must be api_key.");
  }
  return { assertionType, assertion };
}

/** `POST {auth_url}/agent/auth`: ID-JAG (credential at once) or verified email (claim token, mail). */
export function registerRoute(context: PlatformContext, jwks: JwksCache): Handler<AppEnv> {
  const { config, database, clock, ids } = context;
  return authHandler(async (c) => {
    const { assertionType, assertion } = checkAssertionRequest(await readJsonObject(c));
    noStore(c);
    if (assertionType === idJagAssertionType) {
      const verified = await verifyIdJag(assertion, config, { clock, jwks });
      if (!verified.ok) return authErrorResponse(c, verified.refusal);
      const registered = await registerWithIdJag(database.db, { clock, ids }, verified.value);
      if (!registered.ok) return authErrorResponse(c, registered.refusal);
      const registration = registered.value;
      return c.json(
        {
          registration_id: registration.registrationId,
          registration_type: "agent-provider",
          credential_type: "api_key",
          credential: registration.credential,
          credential_expires: registration.credentialExpires.toISOString(),
          scopes: registration.scopes,
        },
        201,
      );
    }
    const registered = await registerWithEmail(
      database.db,
      { clock, ids, mailer: context.mailer, authUrl: config.authUrl },
      { email: assertion, agentDescription: agentDescription(c.req.header("user-agent")) },
    );
    if (!registered.ok) return authErrorResponse(c, registered.refusal);
    const registration = registered.value;
    return c.json(
      {
        registration_id: registration.registrationId,
        registration_type: "email-verification",
        claim_url: claimPageUrl(config.authUrl, registration.registrationId),
        claim_token: registration.claimToken,
        claim_token_expires: registration.claimTokenExpires.toISOString(),
        post_claim_scopes: registration.postClaimScopes,
      },
      201,
    );
  });
}
