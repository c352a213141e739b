import { createContext, type ReactNode, useContext } from "react";
import { Navigate, useLocation } from "react-router";
import type { Session } from "../api/session-api.ts";
import { ErrorNotice } from "../components/error-notice.tsx";
import { Loading } from "../components/loading.tsx";
import { useSession } from "./session-query.ts";

const SessionContext = createContext<Session | null>(null);

/** The signed-in person; only below `RequireSession`. */
export function useSignedIn(): Session {
  const session = useContext(SessionContext);
  if (session === null) throw new Error("useSignedIn is used outside RequireSession.");
  return session;
}

/** Shows its children to a signed-in person; sends anyone else to sign-in, keeping the page they wanted. */
export function RequireSession({ children }: { children: ReactNode }): ReactNode {
  const { session, error } = useSession();
  const location = useLocation();
  if (error !== null) return <ErrorNotice error={error} />;
  if (session === undefined) return <Loading what="your session" />;
  if (session === null) {
    const wanted = `${location.pathname}${location.search}`;
    return <Navigate replace to={`/sign-in?next=${encodeURIComponent(wanted)}`} />;
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
