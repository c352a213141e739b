import type { Handler } from "hono";
import { acceptedSecretKeys } from "../../config/secret-key.ts";
import type { AppEnv } from "../../http/app-env.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { AuthError } from "../auth-error.ts";
import { authErrorResponse, authHandler, noStore, readJsonObject, requireString } from "../auth-http.ts";
import { completeClaim } from "../complete-claim.ts";
import { messagePage } from "../pages/approval-pages.ts";

/** `POST {auth_url}/agent/auth/claim/complete`: claim token + 6-digit code → credential, once. */
export function claimRoute(context: PlatformContext): Handler<AppEnv> {
  const { database, clock, ids, config } = context;
  return authHandler(async (c) => {
    const body = await readJsonObject(c);
    const claimToken = requireString(body, "claim_token");
    const otp = requireString(body, "otp");
    if (!/^\d{6}$/.test(otp)) throw new AuthError("invalid_request", "otp must be the 6-digit code.");
    const completed = await completeClaim(
      database.db,
      { clock, ids, secretKeys: acceptedSecretKeys(config) },
      { claimToken, code: otp },
    );
    noStore(c);
    if (!completed.ok) return authErrorResponse(c, completed.refusal);
    const claimed = completed.value;
    return c.json({
      registration_id: claimed.registrationId,
      status: "claimed",
      credential_type: "api_key",
      credential: claimed.credential,
      credential_expires: claimed.credentialExpires.toISOString(),
      scopes: claimed.scopes,
    });
  });
}

/** `GET {auth_url}/agent/auth/claim/:registrationId` (the `claim_url`): tells the person what to do; holds no secret. */
export function claimInstructionsRoute(): Handler<AppEnv> {
  return (c) =>
    c.html(
      messagePage(
        "Check your email",
        "An AI agent asked to act for you. Open the link in the mail we sent you, approve the request, and read the 6-digit code shown there back to the agent.",
      ),
    );
}
