import { useQuery } from "@tanstack/react-query";
import type { StudioSessionView } from "@weft/contract";
import { createContext, type ReactNode, useContext } from "react";
import { Navigate, useLocation } from "react-router";
import { readSession, sessionQueryKey } from "../api/session.ts";
import { QueryState } from "../components/query-state.tsx";

const SessionContext = createContext<StudioSessionView | null>(null);

/** The signed-in person; only below `RequireSession`. */
export function useSignedIn(): StudioSessionView {
  const session = useContext(SessionContext);
  if (session === null) throw new Error("useSignedIn is used outside RequireSession.");
  return session;
}

/** Shows its children to a signed-in person; sends anyone else to sign-in, keeping the page they wanted. */
export function RequireSession({ children }: { children: ReactNode }): ReactNode {
  const session = useQuery({ queryKey: sessionQueryKey, queryFn: readSession, staleTime: 60_000 });
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
