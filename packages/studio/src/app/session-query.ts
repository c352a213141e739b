import { useQuery } from "@tanstack/react-query";
import { readSession, type Session } from "../api/session-api.ts";
import { rememberCsrfToken } from "../api/weft-client.ts";

export const sessionQueryKey = ["session"] as const;

/** The signed-in person, or null; undefined while it is first read. */
export function useSession(): { session: Session | null | undefined; error: unknown } {
  const query = useQuery({
    queryKey: sessionQueryKey,
    queryFn: async () => {
      const session = await readSession();
      rememberCsrfToken(session?.csrfToken);
      return session;
    },
    staleTime: 60_000,
  });
  return { session: query.data, error: query.error };
}
