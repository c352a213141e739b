import type { Handler } from "hono";
import type { AppEnv } from "../../http/app-env.ts";
import type { PlatformContext } from "../../platform-context.ts";
import { AuthError } from "../auth-error.ts";
import { authErrorResponse, authHandler, readJsonObject, requireString } from "../auth-http.ts";
import type { JwksCache } from "../jwks-cache.ts";
import { revokeDelegation, revokePresentedCredential } from "../revoke-credentials.ts";
import { verifyLogoutToken } from "../verify-logout-token.ts";

/**
 * `POST {auth_url}/agent/auth/revoke`: JSON `{credential}` revokes that credential (200 whether or
 * not it existed); a logout token (`application/logout+jwt`) revokes every credential of its `(iss, sub)`.
 */
export function revokeRoute(context: PlatformContext, jwks: JwksCache): Handler<AppEnv> {
  const { config, database, clock, ids, credentialRevocations } = context;
  const deps = { clock, ids, credentialRevocations };
  return authHandler(async (c) => {
    if (/^application\/logout\+jwt\s*(;|$)/i.test(c.req.header("content-type") ?? "")) {
      const token = (await c.req.text()).trim();
      if (token === "") throw new AuthError("invalid_request", "The body must be the logout token.");
      const verified = await verifyLogoutToken(token, config, { clock, jwks });
      if (!verified.ok) return authErrorResponse(c, verified.refusal);
      const revoked = await revokeDelegation(database.db, deps, verified.value);
      if (!revoked.ok) return authErrorResponse(c, revoked.refusal);
      return c.json({});
    }
    const credential = requireString(await readJsonObject(c), "credential");
    await revokePresentedCredential(database.db, deps, credential);
    return c.json({});
  });
}
