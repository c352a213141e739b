import { useQuery } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext } from "react";
import { Navigate, useLocation } from "react-router";
import type { Session } from "../api/session-api.ts";
import { sessionQuery } from "../api/session-query.ts";
import { QueryState } from "../components/query-state.tsx";

const SessionContext = createContext<Session | null>(null);

/** The signed-in person; only below `RequireSession`. */
export function useSignedIn(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error("useSignedIn is used outside RequireSession.");
  return session;
}

/** Shows its children to a signed-in person; sends anyone else to sign-in, keeping the page they wanted. */
export function RequireSession({ children }: { children: ReactNode }): ReactNode {
  const session = useQuery(sessionQuery.queryOptions({ staleTime: 60_000 }));
  const location = useLocation();
  return (
    <QueryState query={session} loading="your session">
      {(signedIn) =>
        signedIn === null ? (
          <Navigate replace to={`/sign-in?next=${encodeURIComponent(`${location.pathname}${location.search}`)}`} />
        ) : (
          <SessionContext.Provider value={signedIn}>{children}</SessionContext.Provider>
        )
      }
    </QueryState>
  );
}
