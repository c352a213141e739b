import { createProcedureUtils } from "@orpc/tanstack-query";
import { type UseQueryResult, useQuery } from "@tanstack/react-query";
import { readSession, type Session } from "../api/session-api.ts";
import { rememberCsrfToken } from "../api/weft-client.ts";

/** The session read as a query, keyed the way `weftQuery` keys the procedures. */
const sessionUtils = createProcedureUtils<Record<never, never>, undefined, Session | null, unknown>(
  async () => {
    const session = await readSession();
    rememberCsrfToken(session?.csrfToken);
    return session;
  },
  { path: ["session"] },
);

export const sessionQueryKey = sessionUtils.queryKey();

/** The signed-in person, or null when no one is. */
export function useSession(): UseQueryResult<Session | null, unknown> {
  return useQuery(sessionUtils.queryOptions({ staleTime: 60_000 }));
}
