import { isRpcError } from "@weft/client";
import type { StudioSessionView } from "@weft/contract";
import { rememberCsrfToken, weft } from "./weft-client.ts";
import { weftQuery } from "./weft-query.ts";

/** The key of the session query: `session.get`'s, as `weftQuery` gives every procedure's. */
export const sessionQueryKey = weftQuery.session.get.key({ type: "query" });

/**
 * The signed-in person, or null when no one is (the session route answers 401); its CSRF token is
 * kept for the calls that follow.
 */
export async function readSession(): Promise<StudioSessionView | null> {
  try {
    const session = await weft.session.get();
    rememberCsrfToken(session.csrfToken);
    return session;
  } catch (error) {
    if (!isRpcError(error, "UNAUTHORIZED")) throw error;
    rememberCsrfToken(undefined);
    return null;
  }
}
