import { createProcedureUtils } from "@orpc/tanstack-query";
import { readSession, type Session } from "./session-api.ts";
import { rememberCsrfToken } from "./weft-client.ts";

/** The session read as a query, keyed the way `weftQuery` keys the procedures. */
export const sessionQuery = createProcedureUtils<Record<never, never>, undefined, Session | null, unknown>(
  async () => {
    const session = await readSession();
    rememberCsrfToken(session?.csrfToken);
    return session;
  },
  { path: ["session"] },
);
