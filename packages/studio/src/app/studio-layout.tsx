import { useMutation, useQueryClient } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { NavLink, Outlet, useNavigate } from "react-router";
import { weftQuery } from "../api/weft-query.ts";
import { ErrorNotice } from "../components/error-notice.tsx";
import { WorkspacePicker, WorkspaceProvider } from "../components/workspace.tsx";
import { RequireSession, useSignedIn } from "./require-session.tsx";

/** The frame of every signed-in page: navigation, the workspace, the person and sign-out. */
export function StudioLayout(): ReactNode {
  return (
    <RequireSession>
      <WorkspaceProvider>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <header className="top-bar">
          <span className="brand">Weft Studio</span>
          <nav aria-label="Main">
            <ul className="nav-list">
              <li>
                <NavLink to="/" end>
                  Overview
                </NavLink>
              </li>
              <li>
                <NavLink to="/projects">Projects</NavLink>
              </li>
              <li>
                <NavLink to="/schedules">Schedules</NavLink>
              </li>
              <li>
                <NavLink to="/sent-events">Events</NavLink>
              </li>
              <li>
                <NavLink to="/approvals">Approvals</NavLink>
              </li>
              <li>
                <NavLink to="/agents">Agents</NavLink>
              </li>
              <li>
                <NavLink to="/members">Members</NavLink>
              </li>
              <li>
                <NavLink to="/audit-log">Audit log</NavLink>
              </li>
              <li>
                <NavLink to="/usage">Usage</NavLink>
              </li>
            </ul>
          </nav>
          <WorkspacePicker />
          <Account />
        </header>
        <main id="main" className="page">
          <Outlet />
        </main>
      </WorkspaceProvider>
    </RequireSession>
  );
}

function Account(): ReactNode {
  const session = useSignedIn();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const leave = useMutation(
    weftQuery.session.signOut.mutationOptions({
      onSuccess: async () => {
        queryClient.clear();
        await navigate("/sign-in");
      },
    }),
  );
  return (
    <div className="account">
      <span className="account-email">{session.email}</span>
      <button type="button" className="button secondary" onClick={() => leave.mutate()} disabled={leave.isPending}>
        Sign out
      </button>
      <ErrorNotice error={leave.error} />
    </div>
  );
}
