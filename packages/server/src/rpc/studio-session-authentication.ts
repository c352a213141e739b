import { studioCsrfHeader } from "@weft/contract";
import type { Context } from "hono";
import type { LastUsedRecorder } from "../agents/last-used-recorder.ts";
import { acceptedSecretKeys } from "../config/secret-key.ts";
import type { AppEnv } from "../http/app-env.ts";
import type { PlatformContext } from "../platform-context.ts";
import { studioCookies, studioSessionCookie } from "../studio/routes/studio-cookies.ts";
import { studioCsrfTokenIsValid } from "../studio/session/studio-csrf.ts";
import { findStudioSession } from "../studio/session/studio-sessions.ts";
import type { BearerAuthentication } from "./context.ts";
import { principalOfCredential } from "./principal-cache.ts";

export type StudioAuthentication = BearerAuthentication | { status: "csrf-failed" };

/**
 * How a call to `/studio/rpc` authenticates: by the Studio session cookie alone (an Authorization
 * header is not read), and only with the session's CSRF token in `x-weft-csrf`, on every method:
 * oRPC answers GET as well as POST, and a top-level GET carries a SameSite=Lax cookie.
 */
export function studioSessionAuthenticator(
  context: PlatformContext,
  lastUsed: LastUsedRecorder,
  options: { csrf: boolean } = { csrf: true },
): (c: Context<AppEnv>) => Promise<StudioAuthentication> {
  const { database, clock, ids, config, credentialRevocations } = context;
  const cookies = studioCookies(config);
  return async (c) => {
    const token = cookies.read(c, studioSessionCookie);
    try {
      const session = await findStudioSession(database.db, { clock, ids, credentialRevocations }, token);
      if (session === undefined) return { status: token === undefined ? "missing" : "invalid" };
      // Only Studio's event stream goes without: an EventSource sends no header, and a GET there changes nothing.
      const csrfChecked =
        !options.csrf ||
        studioCsrfTokenIsValid(acceptedSecretKeys(config), session.sessionId, c.req.header(studioCsrfHeader));
      if (!csrfChecked) {
        return { status: "csrf-failed" };
      }
      const principal = await principalOfCredential(database.db, session.credential);
      if (principal === undefined) return { status: "invalid" };
      lastUsed.touch(principal.credentialId, clock.now().getTime());
      return { status: "authenticated", principal };
    } catch (error) {
      return { status: "failed", error };
    }
  };
}
